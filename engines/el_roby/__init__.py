"""El Roby (Spanish rummy, Fournier rules): the rule engine (docs/RULES.md §4, VOCABULARY.md §5.4).

Two 52-card packs (104 cards, each card twice, written alike), 4 players by default (2-8
with ``players``), ten cards each, a stock and a discard pile. A turn is a draw, any melds
(sets and runs) and lay-offs, and a discard; the first to empty his hand makes Roby and the
others add the points left in hand (ace 11, faces 10, the rest face value). A player who
reaches 100 is out unless he re-buys; the last player left takes the pot, and every Roby
earns a stake from each opponent. A money ledger follows entry, re-buys, stakes and the pot.

The engine surface (see ``engines/base.py``): :func:`describe`, :func:`start`, :func:`apply`,
:func:`legal_moves`, :func:`score`, :func:`view`, :func:`narrate`, :func:`is_over`; and for
tests, :func:`position`, which builds a mid-hand position directly (docs/RULES.md §4.8 R2 and R3
start mid-hand; see its docstring).

>>> from engines.base import Event
>>> from engines import el_roby
>>> s = el_roby.start({"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {"entry": 10, "stake": 2},
...                    "initial": {"scores": [40, 70, 75, 97]}})
>>> s = el_roby.apply(s, Event(2, "hand_started", {"dealer": 3}))
>>> s = el_roby.apply(s, Event(3, "hand_result", {"out": 0, "hands": [[], ["AS", "KH", "7D", "7C"], ["5H", "6H", "7H", "QS"], ["2C"]]}))
>>> hand = el_roby.score(s)["hands"][0]
>>> hand["points"], hand["result"]["busted"], hand["result"]["price"], hand["result"]["reentry"]
([0, 35, 28, 2], [1, 2], 20, 99)
>>> s = el_roby.apply(s, Event(4, "rebuy", {"seat": 1}))
>>> el_roby.score(s)["hands"][0]["result"]["money"], el_roby.score(s)["hands"][0]["result"]["pot"]
([-6, -32, -10, -12], 60)
>>> el_roby.apply(s, Event(5, "rebuy", {"seat": 3}))
Traceback (most recent call last):
...
engines.base.RuleViolation: el-roby.not_busted: Dani did not reach 100 in hand 1: only a player who just went over may re-buy

Readings of what docs/RULES.md and VOCABULARY.md leave open (each one is tested):

* **Hands are multisets.** Both copies of a card are written alike and are interchangeable;
  a card is refused (``common.card_duplicate`` / ``common.card_unavailable``) only when a
  third copy would be placed.
* **First dealer** is free (the dealer draw is not recorded); then the next seat still in
  the game after the previous dealer. Seats out of the game are skipped for the deal and
  the turns; a busted seat without a re-buy is out when the next ``hand_started`` comes.
* **Melds.** A longer run or set is legal at once (no need to start with three). The ace is
  low (A-2-3) or high (Q-K-A), never both in one run; ``aceWrap`` allows K-A-2 and runs of up
  to 13 ranks. Lay-offs may carry several cards at once (``2♥ 3♥ 7♥`` on ``4♥ 5♥ 6♥``): the
  meld with all of them must be valid. ``meld.id`` is checked when given.
* **First round.** A meld in a player's first turn must lead to going out at once (melds
  and lay-offs, with or without a final discard). With a fully known hand this is checked
  at the meld by a small search (``search.can_empty``); with hidden cards, at the turn's
  end: a discard that leaves cards in hand is refused (``el-roby.first_round``).
* **11-card Roby.** A lay-off without a meld of one's own is only the 11-card Roby: after a
  stock draw (``elevenCardSource = either``: any draw; else ``el-roby.eleven_card_source``),
  lay-offs alone until the hand is empty; a meld or discard after it is refused
  (``el-roby.eleven_card``). With a known hand, a lay-off is refused when the rest cannot
  all be laid off (``el-roby.needs_meld``, the "lay off before melding" case).
* **Discards.** A discard that fits a meld of another player (``allMelds``: any meld) is
  refused (``el-roby.discard_fits``) unless ``forced: true``, which is accepted only from a
  player with no meld of his own whose every card fits (a player with a meld would lay them
  off); a ``forced`` claim that is not true is refused (``el-roby.not_forced``). Under
  ``noImmediateRediscard`` the taken card may not be discarded unless the hand held another
  copy of it.
* **99-point test** (§4.4.1) is run at the discard that ends a turn with an exposure (per
  ``limitScope``): on the cards kept after the discard, or before it under
  ``beforeDiscard``; going out always passes. The limit is 99 minus the score at the start
  of the hand. It is refused at that discard (``el-roby.limit``), the meld itself being
  accepted: the turn's later melds and lay-offs could still bring the hand down.
* **Hidden cards.** Hands may be dealt ``"??"`` and stock draws may omit the card. A card
  shown from the hand binds one of its unknown cards. Deferred checks (the 99-point test, a
  forced discard) are run when the seat's hidden cards are known at the showdown (or by
  reveals); the record cannot tell which hidden card was which, so a check fails only when
  no choice among the cards identified after it passes (the lowest-valued ones for the
  limit), refusing that event with the ``seq`` of the move. A hand whose remaining cards are
  unknown is ``incomplete`` until a ``showdown`` (or reveals, or a ``hand_result`` with point
  totals that some hidden cards allow; those totals are then used).
* **Result only** (the score-sheet form): ``out`` and per seat the points left in hand (a
  sheet writes ``0`` for the Roby maker, accepted beside ``[]``) or the cards themselves.
* **Closing a hand from the sheet** (VOCABULARY.md §4): a ``hand_result`` while the hand is in
  play keeps the moves so far and scores the hand from its facts, refusing what the moves
  rule out (``el-roby.result_conflict``): a turn never adds a card (one drawn, at least one
  out), so a seat ends with at most the cards it holds now (one fewer if it has drawn and
  must still discard), worth at most 11 points each; melds stay on the table, so a card
  whose two copies are melded is in nobody's hand. The cards a seat holds now need not be
  in its listed hand (it may discard or meld them later); the deferred checks of the moves
  recorded (99-point test, forced discard) are not run again. The hand's sheet entry
  carries ``closedFromSheet`` (``afterMove``: draws, melds, lay-offs and discards recorded
  before; ``seq``).
* **Stock out.** Under ``reshuffle`` the pile but its top card becomes the stock at the end
  of the turn that emptied the stock (the cards go back to the unknown pool); under
  ``voidHand`` the hand is void after that turn unless the player went out.
* **Scoring.** A move-by-move hand whose remaining cards are all known is scored when a
  player goes out (the ``showdown`` is then a cross-check). Re-buys: price = pot ÷ R (R =
  players ≤ 99 after the hand, before re-buys; ``includeRebuyers``: R plus the hand's
  re-buyers, so every re-buyer of the hand pays the price their final number gives),
  rounded per ``rebuyRounding``; re-entry at the highest score among the R.
  Stakes: every opponent dealt in pays the Roby maker, except busted seats without a
  re-buy. A hand's stakes and eliminations are provisional until the next hand starts. When
  only one player is left ≤ 99 he wins at once and takes the pot; ``rebuy`` is then refused
  (``el-roby.rebuy_closed``).
* **Money** per seat starts at minus the entry (or ``initial.money``), the pot at the
  entries (or ``initial.pot``); money plus pot is always zero. Each hand's ``result.money``
  is the net per seat after it and ``result.pot`` the pot after it; standings carry each
  seat's ``ledger`` (entry, re-buys, stakes, the pot).
* **Standings** ``total`` is the score (a seat out keeps its last score, status ``out``);
  hand ``totals`` are the scores after re-buys (None for seats not in the game).

Rule codes: ``common.match_over``, ``common.hand_in_progress``, ``common.no_hand``,
``common.no_deal``, ``common.not_your_turn``, ``common.bad_seat``, ``common.bad_cards``,
``common.bad_card``, ``common.card_not_in_deck``, ``common.card_hidden``,
``common.card_duplicate``, ``common.card_unavailable``, ``common.bad_reveal``,
``common.bad_option``, ``common.bad_target``, ``common.bad_initial``, ``common.wrong_game``,
``common.unknown_event``, ``el-roby.players``, ``el-roby.wrong_dealer``, ``el-roby.bad_deal``,
``el-roby.hand_over``, ``el-roby.draw_first``, ``el-roby.already_drew``, ``el-roby.bad_source``,
``el-roby.stock_empty``, ``el-roby.pile_empty``, ``el-roby.mismatch``, ``el-roby.bad_meld``,
``el-roby.first_round``, ``el-roby.unknown_meld``, ``el-roby.bad_lay_off``,
``el-roby.eleven_card``, ``el-roby.eleven_card_source``, ``el-roby.needs_meld``,
``el-roby.discard_fits``, ``el-roby.not_forced``, ``el-roby.rediscard``, ``el-roby.limit``,
``el-roby.hand_not_over``, ``el-roby.bad_result``, ``el-roby.result_conflict``, ``el-roby.rebuy_closed``,
``el-roby.not_busted``, ``el-roby.rebuy_twice``.
"""

from __future__ import annotations

from engines.el_roby.rules import apply, is_over, parse_options, position, start
from engines.el_roby.scoring import score
from engines.el_roby.state import GAME, Hand, Meld, Options, State
from engines.el_roby.views import PRIVATE, describe, legal_moves, narrate, view

RULES_VERSION = 1
"""The version of these rules as scored here; raised whenever a change could score a recorded hand differently."""

__all__ = [
    "GAME",
    "RULES_VERSION",
    "PRIVATE",
    "Hand",
    "Meld",
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
