"""Small helpers the blueprints share: reading the token, the expected version and ETags."""

from __future__ import annotations

from flask import request

from api.service import BadRequest


def bearer_token() -> str | None:
    """Return the token of an ``Authorization: Bearer …`` header, or None."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def expected_version(body_value: int | None) -> int | None:
    """Read the expected version from ``If-Match: "n"`` or the body's ``expectedVersion``.

    Raises:
        BadRequest: an If-Match that is no version, or one that contradicts the body.
    """
    header = request.headers.get("If-Match")
    if header is None:
        return body_value
    raw = header.strip().removeprefix("W/").strip('"')
    if not raw.isdigit():
        raise BadRequest("request.bad_if_match", f'If-Match must be a version in quotes, like "3"; got {header}')
    version = int(raw)
    if body_value is not None and body_value != version:
        raise BadRequest("request.version_mismatch", f"If-Match says {version} but expectedVersion says {body_value}")
    return version


def etag(version: int) -> dict[str, str]:
    """Return the ETag header for a match version."""
    return {"ETag": f'"{version}"'}


def read_headers(version: int) -> dict[str, str]:
    """Return the headers of a read whose body depends on the write token (private facts shown or not)."""
    return {**etag(version), "Vary": "Authorization"}
