"""Kabú: the rule engine (docs/RULES.md §2, VOCABULARY.md §5.2).

Two to ten players (``maxPlayers``, default 6), each on his own, a 40-card French pack A-10
(or the whole pack with J, Q, K worth 0, or the Spanish 40). A hand is worth the last digit
of the sum of its cards. Each player receives two cards (or keeps one of five, or of three,
and receives a new one), may ask for a third card and, having taken it, a fourth; then all
show, and every pair of players settles by the difference of their values in chips. Stacks
start at ten 1s, N 5s and N 10s (10 + 15·N). The game ends when a player cannot pay all he
owes (he pays nobody; the others' transfers go through) and the richest player wins; or, in
the timed game, when the agreed time is up.

The engine surface (see ``engines/base.py``): :func:`describe`, :func:`start`,
:func:`apply`, :func:`legal_moves`, :func:`score`, :func:`view`, :func:`narrate`, :func:`is_over`.

>>> from engines.base import Event
>>> from engines import kabu
>>> s = kabu.start({"game": "kabu", "players": ["P1", "P2", "P3", "P4"]})
>>> s = kabu.apply(s, Event(2, "hand_started", {"dealer": 3, "hands": [["??", "??"]] * 4}))
>>> for seq, (kind, seat) in enumerate([("stand", 0), ("take", 1), ("take", 2), ("stand", 3), ("stand", 1)], 3):
...     s = kabu.apply(s, Event(seq, kind, {"seat": seat}))
>>> kabu.apply(s, Event(8, "take", {"seat": 0}))
Traceback (most recent call last):
...
engines.base.RuleViolation: kabu.stood: P1 stood with 2 cards and can never draw again
>>> s = kabu.apply(s, Event(8, "take", {"seat": 2}))
>>> shown = [["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]
>>> s = kabu.apply(s, Event(9, "showdown", {"hands": shown}))
>>> sheet = kabu.score(s)
>>> sheet["hands"][0]["result"]["values"], sheet["hands"][0]["points"], sheet["hands"][0]["totals"]
([9, 7, 0, 7], [13, 5, -23, 5], [83, 75, 47, 75])

Readings of what docs/RULES.md §2 and VOCABULARY.md §5.2 leave open (each one is tested):

* **Deck sufficiency** (refused at ``match_started``, ``kabu.deck_too_small``): every player
  may end with four cards, so 4·N (+6 under ``openSix``) cards must exist; ``choose5/3``
  also needs 5·N (3·N) for the first deal, and under ``secondCardFrom = returned`` the six
  open cards come from what is left after it (5·N + 6). ``maxPlayers`` bounds N (2-10).
* **The croupier** is not in ``players``: ``players`` are the seats that play, and
  ``hand_started.dealer`` is ``null`` in every hand; the deal order starts at seat 0.
  Under ``keep`` any seat in the game may deal any hand; under ``rotate`` the first hand is
  free and each later one passes to the next seat still in the game.
* **Open cards in the listing** (``views.PRIVATE``): under ``choose5/3`` the six open cards
  are dealt face down and turned up after the last keep, so an open listing of a match in
  play hides them until every seat dealt in has kept (a keep voided since turns them back)
  and shows them, with their salt, from then on, as the state does.
* **Hidden cards.** Dealt cards may be ``"??"``. A ``keep`` names a card of the seat's deal or
  binds one of its ``"??"``; a ``"??"`` keep is refused when the record knows all the seat's
  dealt cards (``kabu.name_keep``: the recorder knows them, so the kept one can be named).
  Returned cards are free again (they may come back as anyone's new card). The new card, the
  third and the fourth are unknown; ``reveal {seat, card}`` binds one of a seat's unknown
  cards, ``reveal {seq, card}`` (no ``index``) a ``"??"`` keep. Whenever a ``"??"`` keep's seat
  becomes fully known, one of its cards must be able to be the kept one (one of its first
  cards, never an open card), else ``common.card_unavailable`` naming the keep's seq.
* **Open cards** are written in ``hand_started.table`` (face up) but views show them only
  after the last keep in ``choose5/3``. They are in nobody's hand. Under ``choose5/3`` with
  ``secondCardFrom = stock`` the returned cards go into the stock before the six are laid
  out, so an open card may be one a player was dealt and returned (never one he kept).
* **Decisions** go in deal order, each seat once per round; the cards of a round are served
  after its last decision. ``kabu.stood`` for a seat that stood, ``kabu.max_cards`` for a
  fifth card, ``kabu.decisions_over`` / ``kabu.decisions_pending`` around the showdown.
  Whether the second card came from the returned cards or the stock is not checked at the
  showdown (the showdown does not say which card was the second; docs/RULES.md §2.2 says the
  option matters for deck sufficiency only).
* **Showdown** lists each seat's final cards in any order, ``null`` for seats out of the
  game; it must hold every card the record placed in that hand (``kabu.mismatch``) and no
  card placed elsewhere (``common.card_duplicate``). A move-by-move hand closes only with
  its showdown; until then a hand whose decisions are over is ``incomplete`` and its
  ``missing`` lists ``{"seat": s}`` once per unknown card. ``hand_result`` may follow as a
  cross-check (also after the game ended: it settles nothing new).
* **Result only**: ``hands`` (2-4 cards a seat, each card once; ``values`` may come too and
  must agree) or ``values`` alone (no deck check).
* **Closing a hand from the sheet** (VOCABULARY.md §4): a result-only ``hand_result`` while a
  move-by-move hand is in play keeps its moves and settles the hand from the facts, once
  they are shown reachable from the moves so far (``kabu.result_conflict``): each seat ends
  with 2 cards plus those it asked for (up to 4 while it may still ask), with every card the
  record puts in its hand, no open card, no card the record puts in another hand, and a card
  it can have kept. ``values`` alone: a value that such cards can make (a seat standing on
  known cards has exactly one). The check is per seat: it does not search whether all seats'
  values can be made at once from one deck. The hand's sheet entry carries
  ``closedFromSheet`` (``afterMove``: the moves recorded before, ``seq``).
* **Settlement and insolvency.** Gross test: chips before the settlement < gross amount owed.
  Net test: chips + what is actually paid to him − what he owes < 0, repeated until stable
  (a debtor found insolvent pays nothing, which can make his creditor fail the net test), so
  no stack ever goes below zero. An insolvent seat pays nobody; under
  ``insolventCollects = false`` he also collects nothing. Several insolvent seats: each pays
  nobody; the game ends once. Winners: the most chips (ties share).
* **Timed game** (``target.end = time``): insolvency settles the hand the same way; then each
  insolvent seat must ``buy_chips`` (any amount from a seat in the game that holds it) or
  ``leave`` before the next ``hand_started`` (``kabu.insolvent``). Any seat in the game may buy
  chips between hands or leave. ``time_up`` ends the match (also with an insolvent seat still
  pending); fewer than two seats left ends it too. Winners: the most chips among the seats
  still in the game. Seats that left are ``null`` in later deals, showdowns and results.
* **Score sheet.** A hand's ``points`` are each seat's net chip change in the settlement;
  ``totals`` the stacks after it *and* after the buys recorded before the next hand; its
  lines (values, every pair for each of its two seats, each seat's net ``N·v − S``, buys)
  sum to the change in totals. ``result`` holds ``hands``, ``values``, ``owes``, ``owedTo``,
  ``net``, ``insolvent``, ``payments``, ``chipsBefore``, ``buys``, ``left``.
* **After the end** only ``hand_result`` cross-checks of the last hand are accepted
  (``common.match_over`` for everything else).

Rule codes: ``common.match_over``, ``common.hand_in_progress``, ``common.no_hand``,
``common.no_deal``, ``common.not_your_turn``, ``common.bad_seat``, ``common.bad_card``,
``common.card_not_in_deck``, ``common.card_hidden``, ``common.card_duplicate``,
``common.card_unavailable``, ``common.bad_reveal``, ``common.bad_option``,
``common.bad_target``, ``common.bad_initial``, ``common.wrong_game``, ``common.unknown_event``,
``kabu.players``, ``kabu.deck_too_small``, ``kabu.wrong_dealer``, ``kabu.bad_deal``,
``kabu.insolvent``, ``kabu.hand_over``, ``kabu.no_keep``, ``kabu.kept_already``,
``kabu.name_keep``, ``kabu.keep_first``, ``kabu.stood``, ``kabu.max_cards``,
``kabu.decisions_over``, ``kabu.decisions_pending``, ``kabu.hand_size``, ``kabu.mismatch``,
``kabu.bad_result``, ``kabu.result_conflict``, ``kabu.time_only``, ``kabu.bad_buy``,
``kabu.not_enough_chips``, ``kabu.bad_leave``.
"""

from __future__ import annotations

from engines.kabu.rules import apply, deck_problem, parse_options, start
from engines.kabu.scoring import score, settle
from engines.kabu.state import GAME, Hand, Options, State, card_value, hand_value
from engines.kabu.views import PRIVATE, describe, legal_moves, narrate, view

RULES_VERSION = 1
"""The version of these rules as scored here; raised whenever a change could score a recorded hand differently."""


def is_over(state: State) -> bool:
    """Return whether the match has ended (insolvency, time up, or fewer than two players left)."""
    return state.over


__all__ = [
    "GAME",
    "RULES_VERSION",
    "PRIVATE",
    "Hand",
    "Options",
    "State",
    "apply",
    "card_value",
    "deck_problem",
    "describe",
    "hand_value",
    "is_over",
    "legal_moves",
    "narrate",
    "parse_options",
    "score",
    "settle",
    "start",
    "view",
]
