"""Cabo: the rule engine (docs/RULES.md §3, VOCABULARY.md §5.3).

Two to five players (edition 2: four), a 52-card deck of values 0-13 (two 0s, two 13s, four
of each 1-12), four face-down cards per player in a row, one initial look at two of them,
then in turn: take the top discard and replace, or draw and replace / discard / use the
card's action (7-8 peek, 9-10 spy, 11-12 swap), or call CABO, after which everyone else has
one more turn. Lowest sum scores 0, a caller who is not lowest adds 5, 12-12-13-13 is a
kamikaze, a total of exactly 100 drops to 50, and the game ends when a total goes over 100.

The engine surface (see ``engines/base.py``): :func:`describe`, :func:`start`,
:func:`apply`, :func:`legal_moves`, :func:`score`, :func:`view`, :func:`narrate`, :func:`is_over`.

>>> from engines.base import Event
>>> from engines import cabo
>>> s = cabo.start({"game": "cabo", "players": ["Anna", "Ben"]})
>>> s = cabo.apply(s, Event(2, "hand_started", {"dealer": 1, "layouts": [["??"] * 4, ["??"] * 4], "discard": "5"}))
>>> s = cabo.apply(s, Event(3, "initial_peek", {"seat": 1, "slots": [1, 3], "cards": ["9", "9"]}))
>>> s = cabo.apply(s, Event(4, "draw", {"seat": 1}))
>>> claim = Event(5, "replace", {"seat": 1, "slots": [1, 3], "cards": ["9", "9"]})
>>> after = cabo.apply(s, claim)
>>> cabo.narrate(s, claim, after)
'Ben puts the drawn card in slots 1 and 3 and shows 9 9: they match, 2 cards to the discard pile and the row closes up'
>>> cabo.view(after, 0)["rows"][1]["cards"], cabo.view(after, 0)["discardPile"]
(['??', '??', '??'], ['5', '9', '9'])
>>> cabo.apply(after, Event(6, "peek", {"seat": 0, "card": "5", "slot": 1}))
Traceback (most recent call last):
...
engines.base.RuleViolation: cabo.no_draw: Anna has not drawn a card: peek follows a draw (to use the discard pile, record take_discard)

Readings of what docs/RULES.md and VOCABULARY.md leave open (each one is tested):

* **Tokens.** Every physical card is a token; swaps and replacements move tokens, so a card
  keeps its identity unknown until something shows it. A shown or written value binds the
  token at once (replacement ``cards``, discards, ``drawn``, a draw's or a look's private
  value, the showdown, a reveal); a value that contradicts an earlier record of the same
  card is refused with ``common.card_unavailable`` and ``seq`` = the event that recorded it
  (a peek's ``value`` against the showdown, say). A value known more often than the deck
  holds it is ``common.card_duplicate`` (a third 13). After a reshuffle the new draw pile's
  cards are new tokens whose values must come from the reshuffled (known) discards.
* **Who saw what.** Dealt cards are seen by nobody (even when the scorer wrote them); an
  initial look, a draw, a peek or a spy shows the card to that seat (value recorded or
  not); claims, discards, taken discards and the showdown are public; a ``reveal
  {seat, slot}`` during play tells the record only. ``view(seat)`` shows a value exactly
  when that seat saw that card and the record knows it, wherever the card has moved since.
* **Reshuffle** happens lazily, at the ``draw`` that finds the draw pile empty (edition 1).
  Edition 2 ends the round after the turn that drew the last card (VOCABULARY §8).
* **Initial look**: two distinct own slots, once per seat, any order, before the start
  player's first turn (``cabo.look_closed`` after it, ``cabo.look_twice``).
* **Claims** (``take_discard``/``replace``): 1-4 distinct own slots; success = one slot or
  equal shown cards; the new card takes the lowest slot, the others close up; the replaced
  cards go onto the discard pile in slot order. A failed claim under ``discard`` needs the
  drawn value (``drawn`` or ``draw.card``; ``cabo.drawn_required``); a failed claim with a
  taken discard puts it back. Under ``keep`` the new card is appended as the last slot. A
  failed claim is legal (it is the table's mistake, penalised by the rules), never refused.
* **Edition 2**: a taken discard lies face up in the row (``faceUp`` in views) until it
  leaves the row; a swap moves it face up. A caller who is not lowest scores sum + 10 and
  everyone else their sum; the round's *winners* (for the next start player) are then the
  lowest sums. One 100 → 50 reset per player per game.
* **Round winners** (next start player, ``result.winners``): the kamikaze player, else the
  caller when (tied) lowest, else every seat with the lowest sum. Of several, the one(s)
  with the lowest total after the round may start; a remaining tie is a lot, so each of
  them is accepted (``cabo.wrong_dealer`` otherwise). The first round's start is free.
* **Scoring needs every final card.** A round that is over but has unknown cards in the
  rows is ``incomplete`` (``missing``: ``{seat, slot}``) and the next ``hand_started`` is
  refused (``common.hand_in_progress``) until a showdown or reveal completes it: the next
  start player depends on it. A recording that knew every card scores the round at its last
  turn; a showdown may still follow as a cross-check. The showdown may write ``??`` for a
  card nobody noted; a ``reveal {seat, slot}`` fills it later.
* **hand_result** after a move-by-move round is a cross-check: ``caller`` must match
  (``cabo.mismatch``) and its ``layouts`` bind like a showdown. Result only: rows of 1-4
  cards (more only under ``keep``), at most 51 cards, values within the deck, ``caller``
  null only in edition 2; a later ``hand_result`` must repeat it.
* **The score-sheet form** ``{sums, caller, kamikaze?}`` is scored exactly as the rows
  (the rows only spell the sums out in the lines; ``result.layouts`` is null). Checks: one
  sum per seat; each within what a row can hold (0 to 50 in 4 cards); a kamikaze's sum is
  50, and with rows of at most 4 cards a 50 *is* a kamikaze and must be named; one deck
  gives every sum at once (an exact search over rows of at most 4 cards; under ``keep``
  only the two 0s and the deck's total are checked).
* **Closing from the sheet.** A result-only ``hand_result`` while a dealt round is in play
  (or over but with cards never revealed) closes it (``Round.closed_seq``): the recorded
  moves stay and it is scored from the sheet. ``cabo.result_conflict``: a caller other
  than the one recorded (or one after an edition-2 deck-out with nobody calling); once
  every turn is taken, a sum outside what the row's known cards and the cards the record
  does not place elsewhere can make, or a kamikaze row without 4 cards. While turns remain
  any row can still change, so only the caller is checked. Moves, showdowns and reveals
  in a closed round are refused.
* ``initial.totals``: 0-100 per seat (exactly 100 only in edition 2, where it may stay after
  the one reset; the reset is then assumed unused). Standings: ``winner`` for the winners,
  ``out`` for the others once the game is over.

Rule codes: ``common.match_over``, ``common.hand_in_progress``, ``common.no_hand``,
``common.no_deal``, ``common.not_your_turn``, ``common.bad_seat``, ``common.bad_card``,
``common.card_not_in_deck``, ``common.card_hidden``, ``common.card_duplicate``,
``common.card_unavailable``, ``common.bad_reveal``, ``common.bad_option``,
``common.bad_target``, ``common.bad_initial``, ``common.wrong_game``, ``common.unknown_event``,
``cabo.players``, ``cabo.wrong_dealer``, ``cabo.bad_deal``, ``cabo.look_closed``,
``cabo.look_twice``, ``cabo.bad_slot``, ``cabo.bad_slots``, ``cabo.bad_claim``,
``cabo.drawn_required``, ``cabo.no_discard``, ``cabo.no_cards``, ``cabo.no_draw``,
``cabo.finish_turn``, ``cabo.wrong_action``, ``cabo.spy_own``, ``cabo.swap_own``,
``cabo.swap_scope``, ``cabo.caller_locked``, ``cabo.second_call``, ``cabo.round_over``,
``cabo.round_not_over``, ``cabo.mismatch``, ``cabo.bad_result``, ``cabo.result_conflict``.
"""

from __future__ import annotations

from engines.cabo.rules import apply, parse_options, start
from engines.cabo.scoring import allowed_dealers, score
from engines.cabo.state import GAME, Options, Round, State
from engines.cabo.views import PRIVATE, describe, hindsight, legal_moves, narrate, view

RULES_VERSION = 1
"""The version of these rules as scored here; raised whenever a change could score a recorded hand differently."""


def is_over(state: State) -> bool:
    """Return whether the game has ended (a total went over 100)."""
    return state.over


__all__ = [
    "GAME",
    "RULES_VERSION",
    "PRIVATE",
    "Options",
    "Round",
    "State",
    "allowed_dealers",
    "apply",
    "describe",
    "hindsight",
    "is_over",
    "legal_moves",
    "narrate",
    "parse_options",
    "score",
    "start",
    "view",
]
