"""The service's own refusals of a request (Flask-free; api/errors.py maps them to HTTP)."""

from __future__ import annotations

from schemas import SchemaError


class BadRequest(Exception):
    """A request that is well-formed JSON but asks for something that cannot be (a step past the end)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def nested(error: SchemaError, prefix: str, message: str) -> SchemaError:
    """Say a schema error of a payload held inside an event (an amend's ``data``, an irregular's
    move) at its place in the event: every path under ``prefix`` (``$.data``), in ``message``."""

    def inner(path: str) -> str:
        return prefix + path[1:]

    return SchemaError(error.code, message, inner(error.path), [{**e, "path": inner(e["path"])} for e in error.errors])
