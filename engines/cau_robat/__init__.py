"""Cau Robat: the rule engine (docs/RULES.md §1, VOCABULARY.md §5.1).

A Catalan fishing game for 3-5 players (2-6 with the ``players`` option) with the Spanish
40-card pack and the cyclic sequence 1-7, 10, 11, 12, back to 1. Four face-up table cards
(five with five players), the rest dealt in threes (a last single round with five players);
play is anticlockwise. A card matching a table card must capture it, with the run walked
down and up through table cards and other players' pile tops (whole piles taken as blocks;
one's own pile top breaks the run). A card that captures nothing opens a chain: Cau, Recau
and Contracau, resolved by the final caller, who is paid 1, 2 or 3 cards; emptying the table
is paid one card by every other player. Most cards wins the hand (ties all win); the game
goes to an agreed number of hand wins.

The recorder writes only the card played (``play {seat, card}``); the engine derives the
captures, chain calls, payments and the new piles. ``captures`` (and ``call``) may be stated
as a check. Hands may be dealt as ``"??"``: each card binds when played.

The engine surface (see ``engines/base.py``): :func:`describe`, :func:`start`, :func:`apply`,
:func:`legal_moves`, :func:`score`, :func:`view`, :func:`narrate`, :func:`is_over`; and for
tests and fixtures, :func:`position`, a state built from a mid-hand position.

>>> from engines.base import Event
>>> from engines import cau_robat
>>> s = cau_robat.position(["A", "B", "C", "D"], table=["3o", "4o", "6o", "7o", "10o", "11o"],
...                        piles=[["12o", "2o"], ["12c", "12e", "5o"], ["1o", "1c"], []], hands=[["11c", "??", "??"], 8, 8, 8])
>>> play = Event(2, "play", {"seat": 0, "card": "11c"})
>>> after = cau_robat.apply(s, play)
>>> cau_robat.narrate(s, play, after)
"A plays caballo de copas: takes caballo-sota-7-6-4-3 and B's pile on 5; clears the table; C pays 1, B and D have nothing to pay"
>>> cau_robat.view(after)["piles"][0]["cards"]
['12o', '2o', '11o', '10o', '7o', '6o', '12c', '12e', '5o', '4o', '3o', '11c', '1c']
>>> cau_robat.apply(after, Event(3, "play", {"seat": 2, "card": "2e"}))
Traceback (most recent call last):
...
engines.base.RuleViolation: common.not_your_turn: it is B's turn, not C's

Readings of what docs/RULES.md and VOCABULARY.md leave open (each one is tested):

* **Only hands are hidden.** Every played card is written, so a hand's count never needs a
  reveal (no hand is ever ``incomplete``). A card not known in the seat's hand binds one of
  its unknown cards unless the record already places it (``common.card_unavailable``, which
  also covers "a fifth card of a rank": with suits written, a fifth 7 is one of the four
  already seen). ``reveal`` takes ``{seat, card}`` bindings only.
* **Chains.** §1.4.1 as written: a same-rank card from a seat not yet in the open chain
  extends it; the fourth card resolves at once; any other card first resolves (2+ seats) or
  closes (starter alone: the card stays on the table) the chain, then is played normally.
  A seat already in the chain that plays the rank again resolves it, and its card is then
  played normally (it can open a new chain). After the hand's last card the chain is resolved.
* **Table clearing** is tested after every capture, chain resolutions included (C3), with
  the payments after the chain payments; a chain resolved by a play that then leaves its
  own card on the empty table was still a clearing (the table was empty after the capture).
  ``lastPlayClears = false`` cancels the clearing payments of every capture made by the
  hand's last play, including the end-of-hand chain resolution.
* **directPileCapture**: a card with no table match that matches another player's pile top
  captures (level 0 = those piles) and walks the run as usual; it opens no chain.
* **chainMode = immediate**: the Cau captures at once (level 0 = the starter's card) and is
  paid 1; a Recau takes back off the Cau caller's pile exactly the cards his capture put
  there (payments he received stay his), captures them as level 0 with a fresh run computed
  after the take-back, and is paid by both earlier callers (2); a Contracau likewise (3).
  The intermediate callers keep their payments. ``captures`` lists the taken-back cards.
* **anyoneMayCall**: an out-of-turn play must extend the open chain (else
  ``common.not_your_turn``); the seat to play keeps the turn; seats with empty hands are
  skipped; the hand ends when every hand is empty.
* **requireAnnouncement**: ``call: true`` on a play that cannot extend a chain is refused
  (``cau-robat.bad_call``); without the option ``call`` is a checked field
  (``cau-robat.mismatch``).
* **pileOrder = recorded**: every capture must be stated (``cau-robat.captures_required``);
  the order may be any permutation of the derived cards with the capturing card on top
  (``cau-robat.pile_order``). It is applied capture by capture, so a later capture in the
  same play sees the recorded top.
* **Leftovers** (``lastCapturer``) go to the last player who captured (a chain's final
  caller included); nobody if nobody captured. ``hand_result.lastCapturer`` is required only
  when cards are left on the table, and that seat's pile has at least 2 cards.
* **Match end**: ``share``: the game ends after the first hand in which someone reaches the
  target; everyone at or above it wins. ``playOn``: it ends after a hand in which the leader
  has reached the target alone. ``initial.wins`` that already end the match are refused.
* **hand_result** cross-checks a move-by-move hand once it is over; a listed ``table`` is
  compared as a set. ``table`` may be left out (the score-sheet form: a sheet holds each
  player's card count): the cards the piles do not hold were left on the table, 0 to 10.
* **Closing a hand from the sheet** (VOCABULARY.md §4): a ``hand_result`` while the hand is in
  play keeps the plays so far and scores the hand from its facts, refusing what the plays
  rule out (``cau-robat.result_conflict``): fewer cards in the piles than they hold now, a
  card already in a pile left on the table, a pile smaller than now when nobody else can
  still play and its owner is not an earlier caller of the open chain (the only ways a pile
  loses cards: robbed as a link, or paying), a pile larger than now when its owner has no
  card left and is not the chain's last caller, a last capturer who cannot capture again
  and did not capture last. These are necessary conditions: whether the remaining plays can
  give exactly those numbers is not searched (a robbed pile makes almost any count
  possible). The hand's sheet entry carries ``closedFromSheet`` (``afterMove``, ``seq``).
* **position(...)** builds a mid-hand state for fixtures (C1-C3) from the table, the piles
  and the hands, checking only that the 40 cards are all there once and the table repeats
  no rank; it does not check that the position can arise in play (C2's cannot).

Rule codes: ``common.match_over``, ``common.hand_in_progress``, ``common.no_hand``,
``common.no_deal``, ``common.not_your_turn``, ``common.bad_seat``, ``common.bad_card``,
``common.card_not_in_deck``, ``common.card_hidden``, ``common.card_duplicate``,
``common.card_unavailable``, ``common.bad_reveal``, ``common.bad_option``,
``common.bad_target``, ``common.bad_initial``, ``common.wrong_game``, ``common.unknown_event``,
``cau-robat.players``, ``cau-robat.wrong_dealer``, ``cau-robat.bad_deal``,
``cau-robat.table_ranks``, ``cau-robat.hand_over``, ``cau-robat.empty_hand``,
``cau-robat.bad_call``, ``cau-robat.mismatch``, ``cau-robat.captures_required``,
``cau-robat.pile_order``, ``cau-robat.bad_result``, ``cau-robat.result_conflict``,
``cau-robat.bad_position``.
"""

from __future__ import annotations

from engines.cau_robat.rules import apply, parse_options, position, start
from engines.cau_robat.scoring import score
from engines.cau_robat.state import GAME, Hand, Options, State
from engines.cau_robat.views import PRIVATE, describe, legal_moves, narrate, view

RULES_VERSION = 1
"""The version of these rules as scored here; raised whenever a change could score a recorded hand differently."""


def is_over(state: State) -> bool:
    """Return whether the match has ended (someone reached the target number of hand wins)."""
    return state.over


__all__ = [
    "GAME",
    "RULES_VERSION",
    "PRIVATE",
    "Hand",
    "Options",
    "State",
    "apply",
    "describe",
    "is_over",
    "legal_moves",
    "narrate",
    "parse_options",
    "position",
    "score",
    "start",
    "view",
]
