"""Irregular play recorded as played (issue 31): the service's checks of an ``irregular`` event.

An ``irregular`` ``{move: {type, data}, hand, reason?, rule}`` keeps a move the rules refuse as
the table played it. The engines never apply it (``engines.base.STATE_NEUTRAL``), so an
irregularity can never change how a legal record is scored. The service:

* before the write, fills ``rule`` (the refusal's code and English message) from the engine's
  own check of the move on the state before it, refuses a client-sent ``rule``, and adds right
  after the irregular a ``dispute`` about its hand (unless the batch already carries one):
  :func:`filled`;
* inside the write transaction (and on an archive import), checks the move's shape against the
  game's schema, the hand, that the engine still refuses the move and that the stored ``rule``
  is that refusal: :func:`check_shape` and :func:`check`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from engines.base import (
    CORRECTIONS,
    COMMON_EVENTS,
    IRREGULAR,
    STATE_NEUTRAL,
    Engine,
    Event,
    RuleViolation,
    refusal,
    replay,
)
from api.service.errors import nested
from engines.said import Said
from schemas import SchemaError, event_types, validate_event

__all__ = ["check", "check_shape", "client_rule", "filled"]


def rule_of(refused: RuleViolation) -> dict[str, str]:
    """The ``rule`` an irregular stores: the refusal's code and its English message."""
    return {"code": refused.code, "message": str(refused.message)}


def check_shape(game: str, event: Event) -> None:
    """Check the move an irregular carries: a move of the game, whose data fits that move's schema.

    Raises:
        SchemaError: another event type (a common event, ``match_started``), or data that does not
            fit the type; the path points into ``$.move``.
    """
    kind = str(event.data["move"]["type"])
    if kind not in event_types(game) or kind in COMMON_EVENTS or kind == "match_started":
        raise SchemaError(
            "schema.invalid",
            Said("%(type)s is not a move of this game: an irregular records a move as it was played", type=kind),
            "$.move.type",
        )
    try:
        validate_event(game, kind, event.data["move"]["data"])
    except SchemaError as error:
        message = Said("the irregular %(type)s: %(message)s", type=kind, message=error.message)
        raise nested(error, "$.move.data", message) from None


def check(engine: Engine, state: Any, event: Event) -> None:
    """Check an irregular against the state before it, inside the write transaction.

    Raises:
        RuleViolation: ``common.unknown_hand`` (the score sheet has no such hand),
            ``common.not_irregular`` (the rules accept the move: record it as a move) or
            ``common.irregular_rule`` (the stored rule is not the engine's refusal).
    """
    hands = [h["hand"] for h in engine.score(state)["hands"]] if state is not None else []
    hand = int(event.data["hand"])
    if hand not in hands:
        raise RuleViolation(
            "common.unknown_hand",
            Said("hand %(hand)s has not been dealt: an irregular is recorded in a hand in play", hand=hand),
        )
    refused = refusal(engine, state, event.data["move"], event.seq)
    if refused is None:
        raise RuleViolation("common.not_irregular", Said("this move is legal: record it as a move"))
    if event.data.get("rule") != rule_of(refused):
        raise RuleViolation(
            "common.irregular_rule",
            Said(
                "the rules refuse this move with %(code)s, not the rule the irregular names: send it again",
                code=refused.code,
            ),
        )


def client_rule(data: Mapping[str, Any]) -> SchemaError | None:
    """The refusal of a client-sent ``rule`` (the service writes it), or None."""
    if "rule" not in data:
        return None
    return SchemaError(
        "schema.invalid",
        Said("rule is written by the service from the rules' own refusal: leave it out"),
        "$.rule",
    )


def filled(
    engine: Engine,
    events: Sequence[Mapping[str, Any]],
    after: int,
    state: Any,
    history: Callable[[], list[Event]],
) -> tuple[list[dict[str, Any]], list[int]]:
    """Return a client's batch with each irregular's ``rule`` filled and its dispute added.

    ``state`` is the head state (after event ``after``); ``history`` reads the stored log (only
    when a correction comes before an irregular in the batch). The second list maps each event
    of the new batch to its index in ``events`` (an added dispute to its irregular's), so a
    refusal names what the client sent. What cannot be followed (an event the rules refuse) is
    left as it is: the transaction refuses the batch at that event.
    """
    out: list[dict[str, Any]] = []
    origin: list[int] = []
    disputed = {int(e["data"]["hand"]) for e in events if e["type"] == "dispute" and "hand" in e["data"]}
    for index, sent in enumerate(events):
        kind, data = sent["type"], sent["data"]
        seq = after + len(out) + 1
        if kind == IRREGULAR and state is not None:
            refused = refusal(engine, state, data["move"], seq)
            if refused is not None:
                data = {**data, "rule": rule_of(refused)}
                out.append({"type": kind, "data": data})
                origin.append(index)
                if int(data["hand"]) not in disputed:
                    disputed.add(int(data["hand"]))
                    reason = str(data.get("reason") or refused.message)
                    out.append({"type": "dispute", "data": {"hand": data["hand"], "reason": reason}})
                    origin.append(index)
                continue
        out.append({"type": kind, "data": data})
        origin.append(index)
        if state is None or kind in STATE_NEUTRAL:
            continue
        try:
            if kind in CORRECTIONS:
                log = history() + [Event(after + i + 1, e["type"], e["data"]) for i, e in enumerate(out)]
                state = replay(engine, log)
            else:
                state = engine.apply(state, Event(seq, kind, data))
        except RuleViolation:
            state = None
    return out, origin
