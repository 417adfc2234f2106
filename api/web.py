"""Small helpers the blueprints share: reading the token, the expected version and ETags."""

from __future__ import annotations

from urllib.parse import urlencode

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


def page_links(headers: dict[str, str], **next_args: int | None) -> dict[str, str | None]:
    """Return a page's ``links`` (``next``: this request's URL with ``next_args`` set, or None at
    the end) and add the matching ``Link: <…>; rel="next"`` header (RFC 8288) to ``headers``."""
    if any(v is None for v in next_args.values()):
        return {"next": None}
    args = {k: v for k, v in request.args.items() if k not in next_args and k not in ("start", "after", "from")}
    args.update({k: str(v) for k, v in next_args.items()})
    url = f"{request.path}?{urlencode(args)}"
    headers["Link"] = f'<{url}>; rel="next"'
    return {"next": url}
