"""Seat keys and signed confirmations (issue 31): who a seat key is, what it may write, and
whether a player's signed ``confirm`` holds; Flask-free.

The scorer gives a seat a key (``seat_key`` keeps its sha256; the latest one per seat counts).
The seat's phone registers an ECDSA P-256 public key (``seat_signer``) and then signs, for a
hand, the canonical JSON (:func:`ledger.canonical_json`) of ``{match, hand, seat, result, head}``
(:func:`signed_bytes`): ``result`` is the hand's result object as the audit lists it, ``head``
the hash of the event the log stood at. Signatures are checked with ``cryptography`` (never
hand-written curve arithmetic), in the IEEE P1363 form WebCrypto gives (r then s, 32 bytes each).

A confirmation counts (:func:`hand_confirmations`) while its signature verifies with the seat's
signer key of that point of the log, the hand's result is still the one signed, and no
correction that touched the hand came after its ``head``: a correction asks for it again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from engines.base import CORRECTIONS, Engine, Event, RuleViolation, replay, walk
from engines.said import Said
from ledger import canonical_json

CONFIRMATION_MODES = ("none", "opponents", "all")
"""The values of the common option ``confirmation`` (``schemas/common/defs.json``)."""

SEAT_WRITES = frozenset({"seat_signer", "confirm", "dispute"})
"""What a seat key may append (each for its own seat only)."""

SEAT_KEY_LIMITS = Said(
    "a seat key can confirm or contest its own seat's hands, nothing else: recording moves and "
    "everything else needs the scorer's write token"
)
"""Why a seat key is refused where only the write token will do (403 ``seat.not_allowed``)."""


def key_hash(key: str) -> str:
    """How a seat key is stored in its ``seat_key`` event: its sha256, never the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()


def seat_keys(events: Iterable[Event]) -> dict[int, str]:
    """Each seat's key hash: the latest ``seat_key`` per seat."""
    return {int(e.data["seat"]): str(e.data["hash"]) for e in events if e.type == "seat_key"}


def seat_of(events: Iterable[Event], key: str) -> int | None:
    """The seat whose current key ``key`` is (compared in constant time), or None."""
    presented = key_hash(key)
    found = None
    for seat, stored in seat_keys(events).items():
        if hmac.compare_digest(stored, presented):
            found = seat
    return found


def signers(events: Iterable[Event]) -> dict[int, Mapping[str, Any]]:
    """Each seat's signing key (JWK) after ``events``: the latest ``seat_signer`` per seat."""
    return {int(e.data["seat"]): e.data["publicKey"] for e in events if e.type == "seat_signer"}


def confirmation_mode(first: Mapping[str, Any]) -> str:
    """The match's ``confirmation`` option, from its ``match_started`` data (default ``none``)."""
    return str((first.get("options") or {}).get("confirmation") or "none")


def signed_bytes(match_id: str, hand: int, seat: int, result: Any, head: str) -> bytes:
    """The bytes a seat signs to confirm ``hand``: canonical JSON, the same in a browser and here."""
    return canonical_json({"match": match_id, "hand": hand, "seat": seat, "result": result, "head": head})


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verifies(public_key: Mapping[str, Any], message: bytes, signature: str) -> bool:
    """Whether ``signature`` (base64url P1363 r‖s) is an ECDSA P-256 / SHA-256 signature of ``message``."""
    try:
        x = int.from_bytes(_b64(str(public_key["x"])), "big")
        y = int.from_bytes(_b64(str(public_key["y"])), "big")
        key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
        raw = _b64(signature)
    except (KeyError, ValueError, binascii.Error):
        return False
    if len(raw) != 64:
        return False
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


def scored_result(engine: Engine, state: Any, hand: int) -> Any | None:
    """Hand ``hand``'s result object in ``state`` once it is scored (None before, or no such hand)."""
    if state is None:
        return None
    for entry in engine.score(state)["hands"]:
        if entry["hand"] == hand and entry.get("status") == "scored":
            return entry.get("result")
    return None


def hand_spans(engine: Engine, log: Sequence[Event]) -> list[int]:
    """The seq of each standing hand's ``hand_started``, in order (hand n starts at ``[n - 1]``)."""
    return [s.event.seq for s in walk(engine, log) if s.event.type == "hand_started" and s.status != "voided"]


def last_touch(log: Sequence[Event], spans: Sequence[int], hand: int, after: int = 0) -> int:
    """The seq of the last correction that touched hand ``hand`` (0: none): a void or amend whose
    target lies between the hand's deal and the next deal. Without a deal to go by, every correction counts."""
    lo = spans[hand - 1] if 0 < hand <= len(spans) else 0
    hi = spans[hand] if 0 < hand < len(spans) else None
    last = 0
    for event in log:
        if event.type not in CORRECTIONS or event.seq <= after:
            continue
        target = int(event.data["target"])
        if not lo or (lo <= target and (hi is None or target < hi)):
            last = event.seq
    return last


def winners(game: str, result: Mapping[str, Any], standings: Sequence[Mapping[str, Any]]) -> set[int]:
    """The seats whose side won a hand, read off its result (empty: no winner, or not told).

    Cabo and Cau Robat name their ``winners``; El Roby the seat that went ``out``; La Cabra
    the team that lost no points when the other did; Kabu every seat that came out ahead.
    """
    if isinstance(result.get("winners"), list):
        return {int(s) for s in result["winners"]}
    if game == "el-roby":
        return {int(result["out"])} if isinstance(result.get("out"), int) else set()
    if game == "la-cabra" and isinstance(result.get("lossPoints"), list):
        lost = result["lossPoints"]
        teams = [t for t, points in enumerate(lost) if points == 0]
        if len(teams) == 1 and any(lost):
            return {int(s) for st in standings if st.get("team") == teams[0] for s in st.get("seats") or ()}
        return set()
    if game == "kabu" and isinstance(result.get("net"), list):
        return {seat for seat, net in enumerate(result["net"]) if net > 0}
    return set()


def needed_seats(game: str, mode: str, result: Any, standings: Sequence[Mapping[str, Any]], players: int) -> list[int]:
    """The seats whose confirmation a scored hand needs under ``mode``."""
    if mode == "all":
        return list(range(players))
    if mode == "opponents":
        won = winners(game, result if isinstance(result, Mapping) else {}, standings)
        return [seat for seat in range(players) if seat not in won] or list(range(players))
    return []


# --------------------------------------------------------------------------- the write checks


def check_seat_event(
    match_id: str,
    event: Event,
    log: Sequence[Event],
    hashes: Mapping[str, int],
    state: Any,
    engine: Engine,
    players: int,
) -> None:
    """Check a ``seat_key``, ``seat_signer`` or ``confirm`` of a batch against the log before it.

    ``log`` holds every event from event 1 through the batch; ``hashes`` maps each event hash
    of the match (the batch's too) to its seq; ``state`` is the state before ``event``.

    Raises:
        RuleViolation: ``common.bad_seat``, ``seat.no_signer``, ``seat.stale_head``,
            ``seat.not_scored``, ``seat.result_changed`` or ``seat.bad_signature``.
    """
    data = event.data
    seat = int(data["seat"])
    if not 0 <= seat < players:
        raise RuleViolation(
            "common.bad_seat", Said("seat must be a seat from 0 to %(last)s, not %(seat)s", last=players - 1, seat=seat)
        )
    if event.type != "confirm":
        return
    before = [e for e in log if e.seq < event.seq]
    key = signers(before).get(seat)
    if key is None:
        raise RuleViolation(
            "seat.no_signer",
            Said("seat %(seat)s has no signing key yet: open the seat's link on the player's phone first", seat=seat),
        )
    head = hashes.get(str(data["head"]))
    if head is None or head >= event.seq:
        raise RuleViolation(
            "seat.stale_head",
            Said("the confirmation names a point of the log this match does not have: reload the hand and sign again"),
        )
    hand = int(data["hand"])
    result = scored_result(engine, state, hand)
    if result is None:
        raise RuleViolation(
            "seat.not_scored", Said("hand %(hand)s is not scored yet: it cannot be confirmed", hand=hand)
        )
    changed = Said("hand %(hand)s was corrected after you read it: read it again and sign again", hand=hand)
    if last_touch(before, hand_spans(engine, before), hand, after=head):
        raise RuleViolation("seat.result_changed", changed)
    if verifies(key, signed_bytes(match_id, hand, seat, result, str(data["head"])), str(data["signature"])):
        return
    then = scored_result(engine, replay(engine, [e for e in before if e.seq <= head]), hand)
    if then is not None and verifies(
        key, signed_bytes(match_id, hand, seat, then, str(data["head"])), str(data["signature"])
    ):
        raise RuleViolation("seat.result_changed", changed)
    raise RuleViolation(
        "seat.bad_signature",
        Said("the signature does not match seat %(seat)s's signing key: nothing was recorded", seat=seat),
    )


# --------------------------------------------------------------------------- what the audit shows


@dataclass(frozen=True, slots=True)
class Confirmation:
    """One ``confirm`` as read back: whether its signature verifies, and whether it still counts."""

    seq: int
    hand: int
    seat: int
    head: str
    valid: bool
    """The signature verifies with the seat's signer key at that point of the log."""
    counts: bool
    """Valid, and no correction touched its hand after its head (the result is still the one signed)."""


def read_confirmations(
    match_id: str, engine: Engine, log: Sequence[Event], hashes: Mapping[str, int]
) -> list[Confirmation]:
    """Read back every ``confirm`` of a log (from event 1): one walk as recorded gives each the
    result it was signed over; the corrected walk the result now."""
    if not any(e.type == "confirm" for e in log):
        return []
    now = list(walk(engine, log))
    final = now[-1].state if now else None
    spans = [s.event.seq for s in now if s.event.type == "hand_started" and s.status != "voided"]
    keys: dict[int, Mapping[str, Any]] = {}
    state: Any = None
    out: list[Confirmation] = []
    for step in walk(engine, log, "recorded"):
        event = step.event
        if event.type == "seat_signer":
            keys[int(event.data["seat"])] = event.data["publicKey"]
        elif event.type == "confirm":
            hand, seat, head = int(event.data["hand"]), int(event.data["seat"]), str(event.data["head"])
            at = hashes.get(head)
            then = scored_result(engine, state, hand)
            key = keys.get(seat)
            valid = (
                key is not None
                and at is not None
                and at < event.seq
                and then is not None
                and verifies(key, signed_bytes(match_id, hand, seat, then, head), str(event.data["signature"]))
            )
            counts = (
                valid
                and at is not None
                and scored_result(engine, final, hand) == then
                and not last_touch(log, spans, hand, after=at)
            )
            out.append(Confirmation(event.seq, hand, seat, head, valid, counts))
        state = step.state
    return out


def hand_confirmations(
    game: str,
    mode: str,
    hands: Sequence[Mapping[str, Any]],
    standings: Sequence[Mapping[str, Any]],
    confirmations: Sequence[Confirmation],
    players: Sequence[str],
    ats: Mapping[int, str],
) -> dict[int, dict[str, Any]]:
    """Per hand number: ``confirmations`` (the ones that stand, each with its signature's
    validity), ``needs`` (seats still to confirm) and ``settled``."""
    out: dict[int, dict[str, Any]] = {}
    by_hand: dict[int, list[Confirmation]] = {}  # read once, not once per hand of a long match
    for confirmation in confirmations:
        if confirmation.counts or not confirmation.valid:
            by_hand.setdefault(confirmation.hand, []).append(confirmation)
    for entry in hands:
        number = entry["hand"]
        standing = by_hand.get(number, [])
        listed = [
            {
                "seat": c.seat,
                "name": players[c.seat] if c.seat < len(players) else "",
                "seq": c.seq,
                "at": ats.get(c.seq),
                "valid": c.valid,
            }
            for c in standing
        ]
        scored = entry.get("status") == "scored"
        needed = needed_seats(game, mode, entry.get("result"), standings, len(players)) if scored else []
        done = {c.seat for c in standing if c.counts}
        needs = [seat for seat in needed if seat not in done]
        out[number] = {"confirmations": listed, "needs": needs, "settled": scored and not needs}
    return out


def last_needed_seq(per_hand: Mapping[int, Mapping[str, Any]]) -> int | None:
    """The seq of the last confirmation a settled match needed; None while a hand still needs one."""
    if any(not h["settled"] for h in per_hand.values()):
        return None
    return max((c["seq"] for h in per_hand.values() for c in h["confirmations"] if c["valid"]), default=0)
