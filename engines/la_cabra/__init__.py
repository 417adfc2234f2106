"""La Cabra (Kozel / Burkozel): the rule engine (docs/RULES.md §5, VOCABULARY.md §5.5).

Four players, two teams of partners sitting opposite (seats 0+2 against 1+3), a 36-card
French pack (6 to A; A 11, 10 10, K 4, Q 3, J 2: 120 card points), four cards in hand
refilled from a stock of 20, leads of one to four cards of one suit, beats one to one,
face-down discards, out-of-turn *tiras* of four cards of one suit, loss points 2 / 4 / 6
per lost deal, and the team that reaches 12 loss points is the goat.

The engine surface (see ``engines/base.py``): :func:`describe`, :func:`start`,
:func:`apply`, :func:`legal_moves`, :func:`score`, :func:`view`, :func:`narrate`, :func:`is_over`.

>>> from engines.base import Event
>>> from engines import la_cabra
>>> s = la_cabra.start({"game": "la-cabra", "players": ["North", "East", "South", "West"]})
>>> deal = [["9H", "KH", "6C", "7C"], ["10H", "6S", "8C", "9C"], ["AH", "7S", "JC", "QC"], ["6D", "QD", "8S", "9S"]]
>>> s = la_cabra.apply(s, Event(2, "hand_started", {"dealer": 3, "trump": "QS", "hands": deal}))
>>> s = la_cabra.apply(s, Event(3, "lead", {"seat": 0, "cards": ["9H", "KH"]}))
>>> beat = Event(4, "beat", {"seat": 1, "cards": ["10H", "6S"]})
>>> after = la_cabra.apply(s, beat)
>>> la_cabra.narrate(s, beat, after)
'East beats with 10♥ 6♠'
>>> [m["data"]["cards"] for m in la_cabra.legal_moves(after) if m["type"] == "beat"]
[['AH', '7S']]
>>> la_cabra.apply(after, Event(5, "beat", {"seat": 2, "cards": ["JC", "QC"]}))
Traceback (most recent call last):
...
engines.base.RuleViolation: la-cabra.cannot_beat: South cannot beat 10♥ 6♠ with J♣ Q♣: J♣ Q♣ beat nothing (trump is ♠)

Readings of what docs/RULES.md and VOCABULARY.md leave open (each one is tested):

* **Unknown cards.** A hand is known cards plus a count of unknown ones. A face-up card
  (lead, beat, tira, written discard) is a known card of the hand or binds one of its
  unknowns, if the record places it nowhere else (``common.card_unavailable``). A ``"??"``
  discard uses up unknown cards; from a hand with too few unknown cards it is refused
  (``la-cabra.name_discard``: the recorder knows the hand, so the cards must be named).
* **The ``returned`` trump card** is in the stock, place unknown: it cannot be dealt, nor be
  shown, revealed in a hand or revealed as a discard made before the first refill of the
  deal (the first moment anyone draws). After that any seat may hold it. Under
  ``bottomFaceUp`` it is the last card drawn; the seat that draws it is derived (the seat
  before the trick's winner, as 4·n cards are drawn winner first) and it becomes a card of
  that hand that the whole table knows.
* **Tira.** Allowed before the trick's fourth play (and before anyone led), from a seat that
  has not played to the trick and holds four cards of one suit; not from the seat that is
  to lead an empty trick (it just leads them: ``la-cabra.tira_leader``). Cards already
  played go back to their owners, face-up ones as cards the whole table knows, face-down
  ones as they were recorded (a ``"??"`` becomes an unknown hand card again, and a later
  reveal of that discard slot is refused, pointing at the tira). After a tira, the seats
  whose plays went back have not played to the restarted trick: under
  ``tiraInterruptsTira`` they may claim the next tira. ``rivals`` are checked to be other
  seats that have not played to the trick, and for priority: the first clockwise from the
  trick's *original* leader (the seat that led, or was to lead, before any tira), him
  first. Whether a rival really held four of a suit is not checked.
* **Leader.** The first hand's leader is free (default the dealer's left neighbour); later
  it must be the winner of the previous hand's last trick (``la-cabra.mismatch`` on
  ``leader``). After a result-only hand without ``lastTrick``, the next *dealt* hand must
  name it (``la-cabra.leader_required``); a result-only hand never needs it.
* **hand_result** always concerns the latest hand: in a result-only hand the first one is
  its result and later ones cross-check it; after a finished move-by-move deal it is a
  cross-check. Beyond VOCABULARY's checks, ``cardPoints`` must be reachable by the number of
  cards the tricks allow (e.g. one trick against eight holds 4 cards: at most 44 points) —
  checked with a count-and-sum DP over the deck. ``cards`` in a cross-check must place every
  known pile card in its team's list, match the pile sizes, and put the unknown cards only
  where they could be.
* **Score-sheet forms.** ``cardPoints`` alone (``tricks`` omitted): the tricks stay unknown
  (``result.tricks`` null); they are required only for a team with 0 points when the record
  does not already say whether it took a trick (the moves of a deal played to its end, a
  trick already taken, or an earlier sheet of the hand: its ``tricks``, its 6 loss points,
  its card lists); a hand closed in play leaves a team without a trick yet open (it might
  have taken one after the last recorded move). ``cards`` without ``tricks``
  says it for both teams: the lists name all 36 cards (``"??"`` is refused there), so a
  list's length is its team's pile and an empty list is a team that took no trick (6 loss
  points), not one whose cards went unseen. ``lossPoints`` alone: the deal's own loss points
  before any doubling (0 and 2/4/6, or 0 and 0 for eggs; 8 or 12 is refused, naming the 4 or
  6 meant); the card points stay unknown (``result.cardPoints`` null) and the loss points
  and eggs come from the sheet. Either is scored exactly as the full form would be.
* **Closing from the sheet.** A ``hand_result`` while a dealt hand is in play closes it
  (``Hand.closed_seq``): the recorded moves stay, and the facts must be reachable from there
  (``la-cabra.result_conflict``): no fewer tricks than taken, enough and not too many
  tricks for the cards left (4 to 16 a trick), a ``lastTrick`` team that still wins one,
  trick cards already in a pile on that team's list, and card points (or the loss band) that
  the known pile points plus some share of the cards not in a known pile can make (a
  count-and-sum DP; it allows a few splits real play could not reach, never refuses a real
  one). The hand is scored from the sheet; moves in it are refused; a reveal of one of its
  face-down pile cards must keep the sheet possible (``la-cabra.mismatch`` naming the close).
* **Points with unknown cards.** A finished deal is scored when its points are exact: every
  pile card known, or all the unknown ones in one team's pile (that team has 120 minus the
  other's). Otherwise it is ``incomplete`` (``missing`` lists the face-down cards) until
  reveals or a table count (``hand_result``) settle it; a table count is accepted when some
  assignment of the unplaced cards to the face-down slots gives it, and later reveals must
  keep it possible (else ``la-cabra.mismatch`` with the seq of that ``hand_result``).
* **Loss points** per docs/RULES.md §5.4: 6 with no trick, 4 at 30 or fewer, 2 at 31-59, none at
  60-60 (eggs). Under ``eggs = doubleNext`` the deal after a 60-60 deal counts double, never
  more (a 60-60 deal after a 60-60 deal doubles the next one once). ``initial.doubleNext``
  doubles the first hand and needs that option. An incomplete hand adds nothing, and a hand
  whose multiplier depends on an incomplete hand before it waits too (it lists that hand's
  missing cards). A reveal that would end the series at a hand after which more hands were
  dealt is refused (``common.match_over`` with the seq of the first such hand).
* **Series end.** Reaching 12 or more ends it at once; afterwards only ``reveal`` and
  ``hand_result`` cross-checks of the last hand are accepted. ``initial.lossPoints`` are
  0-11 each.
* ``RuleViolation.seq`` is set only when the violation is about another event than the one
  being applied (a reveal contradicting a ``hand_result``, a late series end), as
  ``engines/base.py`` documents.

Rule codes: ``common.match_over``, ``common.hand_in_progress``, ``common.no_hand``,
``common.no_deal``, ``common.not_your_turn``, ``common.bad_seat``, ``common.bad_cards``,
``common.bad_card``, ``common.card_not_in_deck``, ``common.card_hidden``,
``common.card_duplicate``, ``common.card_unavailable``, ``common.bad_reveal``,
``common.bad_option``, ``common.bad_target``, ``common.bad_initial``, ``common.wrong_game``,
``common.unknown_event``, ``la-cabra.players``, ``la-cabra.teams``,
``la-cabra.wrong_dealer``, ``la-cabra.bad_deal``, ``la-cabra.leader_required``,
``la-cabra.mismatch``, ``la-cabra.deal_over``, ``la-cabra.wrong_move``,
``la-cabra.lead_size``, ``la-cabra.one_suit``, ``la-cabra.wrong_count``,
``la-cabra.hand_size``, ``la-cabra.cannot_beat``, ``la-cabra.name_discard``,
``la-cabra.tira_cards``, ``la-cabra.tira_leader``, ``la-cabra.tira_played``,
``la-cabra.tira_again``, ``la-cabra.bad_rivals``, ``la-cabra.tira_priority``,
``la-cabra.bad_result``, ``la-cabra.result_conflict``.
"""

from __future__ import annotations

from engines.la_cabra.rules import apply, parse_options, start
from engines.la_cabra.scoring import score
from engines.la_cabra.state import GAME, Hand, Options, State
from engines.la_cabra.views import PRIVATE, describe, legal_moves, narrate, view

RULES_VERSION = 1
"""The version of these rules as scored here; raised whenever a change could score a recorded hand differently."""


def is_over(state: State) -> bool:
    """Return whether the series has ended (a team reached 12 loss points)."""
    return state.over


def hand_in_play(state: State) -> bool:
    """Return whether the last hand dealt is still in play: the one :func:`score` marks ``playing``
    (a hand is scored once its result is in), told without scoring every hand of the series."""
    return len(state.hands) > len(state.scores)


__all__ = [
    "GAME",
    "hand_in_play",
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
    "score",
    "start",
    "view",
]
