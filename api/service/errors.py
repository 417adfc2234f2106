"""The service's own refusals of a request (Flask-free; api/errors.py maps them to HTTP)."""

from __future__ import annotations


class BadRequest(Exception):
    """A request that is well-formed JSON but asks for something that cannot be (a step past the end)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
