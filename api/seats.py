"""POST /matches/{id}/seats/{seat}/key and …/signer: the seats' own keys (issue 31, VOCABULARY.md §4)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from api.context import current_service
from api.schemas import SeatKeyIssued, SignerBody, SignerRegistered
from api.web import Blueprint, bearer_token, etag, recorder

blp = Blueprint("seats", __name__, description="Seat keys: each player confirms or contests hands from their phone")

_KEY_EXAMPLE = {
    "seat": 1,
    "key": "d3Jvbmcta2V5LWZvci1zZWF0LW9uZQ",
    "link": "/m/Xk3pQ9aZ1bcd/seat/1#key=d3Jvbmcta2V5LWZvci1zZWF0LW9uZQ",
    "version": 12,
}
_SIGNER_EXAMPLE = {
    "publicKey": {
        "kty": "EC",
        "crv": "P-256",
        "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
    }
}


@blp.route("/matches/<match_id>/seats/<int:seat>/key")
class SeatKey(MethodView):
    @blp.response(201, SeatKeyIssued, example=_KEY_EXAMPLE)
    @blp.alt_response(400, schema="Problem", description="no such seat")
    @blp.alt_response(401, schema="Problem", description="no write token")
    @blp.alt_response(403, schema="Problem", description="not this match's write token (a seat key cannot give keys)")
    @blp.alt_response(404, schema="Problem")
    @blp.doc(security=[{"bearer": []}])
    def post(self, match_id: str, seat: int) -> Any:
        """Give a seat its own key (the write token's): the player's phone opens ``link``.

        The key is shown once; the log keeps only its sha256 (a ``seat_key`` event). Giving a
        seat a key again replaces its earlier one. A seat key confirms and contests that
        seat's hands, and reads the match as anyone may; it records no move.
        """
        issued = current_service().give_seat_key(match_id, seat, token=bearer_token(), by=recorder())
        return issued, 201, etag(issued["version"])


@blp.route("/matches/<match_id>/seats/<int:seat>/signer")
class SeatSigner(MethodView):
    @blp.arguments(SignerBody(), error_status_code=400, example=_SIGNER_EXAMPLE)
    @blp.response(201, SignerRegistered, example={"version": 13, "head": "9f86d081884c7d65" * 4})
    @blp.alt_response(400, schema="Problem", description="no such seat, or not a P-256 public key")
    @blp.alt_response(401, schema="Problem", description="no key")
    @blp.alt_response(403, schema="Problem", description="not this seat's key")
    @blp.alt_response(404, schema="Problem")
    @blp.alt_response(422, schema="Problem", description="another seat's key")
    @blp.doc(security=[{"bearer": []}])
    def post(self, body: dict[str, Any], match_id: str, seat: int) -> Any:
        """Register the seat's public signing key, with the seat's own key (``Authorization: Bearer <seat key>``).

        Its later ``confirm`` events are checked against it (ECDSA P-256, SHA-256).
        """
        done = current_service().register_signer(match_id, seat, body["publicKey"], token=bearer_token(), by=recorder())
        return done, 201, etag(done["version"])
