"""Conformance: random legal playouts over every engine in ``engines.ENGINES``.

OpenSpiel's ``random_sim_test``: from seeded deals (the randomness lives here, in the test,
never in an engine) play whole series with moves taken from ``legal_moves`` and check, at
every step, that every complete template applies, that ``apply`` never changes its input,
that events survive a JSON round trip, that views hide what they must, and at the end that
``replay`` rebuilds the same state. Each game brings a driver (its deal factory, how to
fill templates, its invariants); a game without one is skipped until it has one.

A driver is a module ``tests/engines/driver_<game>.py`` defining ``GAME`` and ``Driver``, a
class built with a seeded ``random.Random`` that has: ``seats``; ``match_data()`` (the
``match_started`` data); ``is_complete(move)`` (a template that applies as it is);
``choose(state, moves) -> (type, data)`` (the next event, filling templates: deals,
shown cards); ``observe(before, event, after)`` (queue follow-ups such as reveals in
``pending``); ``pending`` (a list); ``check(engine, state)`` (the game's invariants, views
included).
"""

from __future__ import annotations

from typing import Any

import pytest

from engines import ENGINES, la_cabra
from engines.base import Event, RuleViolation, replay
from tests.engines.deals import HIDDEN
from tests.engines.drivers import DRIVERS, SEEDS, playout


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_random_playout(game: str, seed: int) -> None:
    assert game in DRIVERS, f"every engine needs a playout driver: add tests/engines/driver_{game.replace('-', '_')}.py"
    events, state = playout(game, seed)
    engine = ENGINES[game]
    assert replay(engine, events) == state
    assert engine.score(state)["end"]["over"], "a random playout runs to the end of the match"
    assert any(e.type == "hand_started" for e in events)


def test_playouts_cover_every_move_type() -> None:
    kinds: set[str] = set()
    for seed in SEEDS:
        kinds |= {e.type for e in playout("la-cabra", seed)[0]}
    assert kinds >= {"hand_started", "lead", "beat", "discard", "reveal", "hand_result"}


# --------------------------------------------------------------------------- hidden recording


def hide(events: list[Event]) -> tuple[list[Event], la_cabra.State]:
    """Record the same series as a scorer who sees no hidden card, then reveals the discards.

    Dealt hands become ``??``; drawn cards are never revealed (the hand-card reveals are
    dropped: face-up plays bind them implicitly); face-down discards are ``??`` unless the
    record already knows the card, and are revealed by ``{seq, index}`` when the deal is
    over (after any cross-check), before the next deal.
    """
    engine = la_cabra
    out = [events[0]]
    state = engine.start(events[0].data)
    slots: list[dict[str, Any]] = []

    def push(kind: str, data: dict[str, Any]) -> None:
        nonlocal state
        event = Event(len(out) + 1, kind, data)
        if kind in ("lead", "beat", "discard", "tira"):
            templates = [
                m for m in engine.legal_moves(state) if m["type"] == kind and m["data"]["seat"] == data["seat"]
            ]
            assert any(
                "cards" not in m["data"] or sorted(m["data"]["cards"]) == sorted(data["cards"]) for m in templates
            ), (kind, data)
        if kind == "tira" and state.current is not None and state.current.trick is not None:
            # a tira gives the trick's cards back to their owners: its face-down discards are no longer slots to reveal
            back = {p.seq for p in state.current.trick.plays}
            slots[:] = [b for b in slots if b["seq"] not in back]
        state = engine.apply(state, event)
        out.append(event)

    def flush() -> None:
        hand = state.current
        if slots and hand is not None and hand.over:
            both = hand.pile_hidden[0] and hand.pile_hidden[1]
            status = engine.score(state)["hands"][-1]["status"]
            assert status == ("incomplete" if both and hand.claim is None else "scored")
        if slots:
            push("reveal", {"cards": list(slots)})
            slots.clear()

    for event in events[1:]:
        data = dict(event.data)
        if event.type == "reveal":
            continue
        if event.type == "hand_started":
            flush()
            if "hands" in data:
                data["hands"] = HIDDEN
        if event.type == "discard" and not state.options.discardFaceUp:
            hand = state.current
            assert hand is not None
            written = []
            for i, text in enumerate(data["cards"]):
                if la_cabra.rules.read_card(text) in hand.known[data["seat"]]:
                    written.append(text)
                else:
                    written.append("??")
                    slots.append({"seq": len(out) + 1, "index": i, "card": text})
            data["cards"] = written
        push(event.type, data)
    flush()
    return out, state


@pytest.mark.parametrize("seed", SEEDS)
def test_hidden_recording_scores_identically(seed: int) -> None:
    events, known = playout("la-cabra", seed)
    hidden_events, hidden = hide(events)

    def sheet(state: la_cabra.State) -> dict[str, Any]:
        """The score sheet; the seq of a close from the sheet differs, as the hidden log holds fewer reveals."""
        out = la_cabra.score(state)
        for h in out["hands"]:
            h.get("closedFromSheet", {}).pop("seq", None)
        return out

    assert sheet(hidden) == sheet(known)
    assert replay(la_cabra, hidden_events) == hidden
    assert any(e.type == "discard" and "??" in e.data["cards"] for e in hidden_events) or known.options.discardFaceUp


def test_refused_events_change_nothing_during_playouts() -> None:
    events, _ = playout("la-cabra", 0)
    state = la_cabra.start(events[0].data)
    for event in events[1:30]:
        fingerprint = hash(state)
        with pytest.raises(RuleViolation):
            la_cabra.apply(state, Event(event.seq, "lead", {"seat": 0, "cards": ["5S"]}))
        assert hash(state) == fingerprint
        state = la_cabra.apply(state, event)
