"""Positions as players say them: "hand 2, move 5", "hand 3, trick 4", a seat by its player's name.

The log counts every stored event (claims, notes and corrections too); players count hands
and the moves within a hand. This module turns one into the other, over the frames of the
corrected course (``replays.steps.frames``, the one walk of a log), so that:

* hands are numbered 1, 2, … in log order, voided hands not counted (VOCABULARY §1);
* ``move`` K is the K-th move of its hand, 1-based, counting the moves the fold plays
  (``hand_result`` and ``showdown`` included) and never a ``reveal``, claim, note, voided
  event or correction; move 0 is the deal itself (``hand_started``);
* ``trick`` T (games whose public view shows a ``lastTrick``, La Cabra) is the T-th trick of
  the hand; with ``move`` the K-th move within that trick, alone the move that completes it;
* ``hand`` alone is the hand as it ended (its last move).

Flask-free and storage-free: it reads frames and engine views, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engines.base import Engine
from engines.said import Counted, Said
from replays.steps import Frame
from schemas.strict import is_whole_number

NOT_MOVES = frozenset({"match_started", "hand_started", "reveal"})
"""Played events that are not moves of a hand (the deal is move 0, a reveal binds cards)."""


class AddressError(Exception):
    """A hand, move or trick that does not exist in the match, said in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "request.bad_position"
        self.message = message


@dataclass(frozen=True)
class Position:
    """Where one stored event stands, as players count: hand, move within it, trick."""

    seq: int
    hand: int | None
    move: int | None
    trick: int | None = None


def positions(
    engine: Engine,
    frames: Sequence[Frame],
    *,
    hands_before: int | None = None,
    views: Mapping[int, Mapping[str, Any]] | None = None,
) -> list[Position]:
    """Return each frame's hand and move numbers (and trick, where the game has tricks).

    Events that are not moves (claims, notes, corrections, reveals, voided events) carry the
    hand they were recorded in and no move number. ``hands_before`` resumes the count in the
    middle of a log: ``frames`` then start at a deal (``hand_started``) and that many hands
    were dealt before it (see :func:`hand_number`). ``views`` holds public views already
    computed, by ``id`` of their state (:func:`replays.steps.frames_json` fills it).
    """
    known = views or {}

    def public(state: Any) -> Mapping[str, Any]:
        view = known.get(id(state))
        return view if view is not None else engine.view(state, None)

    out: list[Position] = []
    hand: int | None = hands_before
    move = trick = 0
    last_trick: Any = None
    has_tricks: bool | None = None
    for frame in frames:
        played = frame.status in ("played", "amended")
        if played and frame.type == "hand_started":
            hand = 1 if hand is None else hand + 1
            move, trick = 0, 1
            view = public(frame.state)
            has_tricks = "lastTrick" in view
            last_trick = view.get("lastTrick")
            out.append(Position(frame.seq, hand, 0, None))
        elif played and frame.type not in NOT_MOVES and hand is not None:
            move += 1
            if not has_tricks:
                out.append(Position(frame.seq, hand, move, None))
                continue
            out.append(Position(frame.seq, hand, move, trick))
            done = public(frame.state).get("lastTrick")
            if done is not None and done != last_trick:  # this move completed the trick
                last_trick = done
                trick += 1
        else:
            out.append(Position(frame.seq, hand, None, None))
    return out


def hand_number(engine: Engine, state: Any) -> int | None:
    """Return the number of the hand in play in ``state`` as the game's view counts it (None: not told).

    The view says it (``hand``; Cabo calls a hand a ``round``), and it counts as
    :func:`positions` does, voided deals not counted (tests/api pin it for every game): a
    page of a replay numbers its hands from the state it starts at, not by walking the log.
    """
    view = engine.view(state, None)
    number = view.get("hand", view.get("round"))
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def locate(positions_: Sequence[Position], *, hand: int, move: int | None = None, trick: int | None = None) -> int:
    """Return the seq that ``hand`` / ``move`` / ``trick`` points at.

    Raises:
        AddressError: no such hand, trick or move, naming what the match has.
    """
    hands = max((p.hand for p in positions_ if p.hand is not None), default=0)
    moves = [p for p in positions_ if p.hand == hand and p.move is not None]
    if not moves:
        raise AddressError(Said("there is no hand %(hand)s: this match has %(hands)s", hand=hand, hands=_hands(hands)))
    if trick is not None:
        if not any(p.trick is not None for p in moves):  # a game without tricks, or a hand recorded by its result
            raise AddressError(
                Said("there are no tricks to count in hand %(hand)s: say where by hand and move", hand=hand)
            )
        in_trick = [p for p in moves if p.trick == trick]
        tricks = max((p.trick for p in moves if p.trick is not None), default=0)
        if not in_trick:
            raise AddressError(
                Said(
                    "hand %(hand)s has no trick %(trick)s: it has %(tricks)s so far",
                    hand=hand,
                    trick=trick,
                    tricks=_tricks(tricks),
                )
            )
        if move is None:
            return in_trick[-1].seq
        if not 1 <= move <= len(in_trick):
            raise AddressError(
                Said(
                    "trick %(trick)s of hand %(hand)s has no move %(move)s: it has %(moves)s",
                    trick=trick,
                    hand=hand,
                    move=move,
                    moves=_moves(len(in_trick)),
                )
            )
        return in_trick[move - 1].seq
    if move is None:
        return moves[-1].seq
    last = len(moves) - 1
    if not 0 <= move <= last:
        raise AddressError(
            Said(
                "hand %(hand)s has no move %(move)s: it has %(moves)s (move 0 is the deal)",
                hand=hand,
                move=move,
                moves=_moves(last),
            )
        )
    return moves[move].seq


def _hands(n: int) -> str:
    """``no hands``, ``1 hand``, ``3 hands``."""
    return Said("no hands") if n == 0 else Counted("%(n)s hand", "%(n)s hands", n)


def _tricks(n: int) -> str:
    """``no tricks``, ``1 trick``, ``3 tricks``."""
    return Said("no tricks") if n == 0 else Counted("%(n)s trick", "%(n)s tricks", n)


def _moves(n: int) -> str:
    """``no moves``, ``1 move``, ``3 moves``."""
    return Said("no moves") if n == 0 else Counted("%(n)s move", "%(n)s moves", n)


def seat_by_name(players: Sequence[str], seat: int | str) -> int | str:
    """Return a seat number for a player's name (exact, else case-insensitive), or ``seat`` unchanged."""
    if not isinstance(seat, str) or seat == "all":
        return seat
    if seat in players:
        return list(players).index(seat)
    folded = [i for i, name in enumerate(players) if name.casefold() == seat.casefold()]
    if len(folded) == 1:
        return folded[0]
    if is_whole_number(seat, signed=True) and len(seat) <= 20:  # ASCII digits: isdigit() also took "²"
        return int(seat)
    return seat
