"""What a club adds up across matches: each seat's figures from one match's score sheet, and the
order of a league table; each game declares its own in ``engines/<game>/league.py``.

Figures are derived from :func:`score` (VOCABULARY §6) of the match as the log now reads it
(corrections and rulings folded in), never typed. Only finished hands count (``scored``): a
hand in play, incomplete or void adds nothing. A match counts as played (and won) once it is
over; before that its finished hands count already, so a season's table moves as a night goes.

The figures of one seat in one match (:func:`seat_figures`):

* ``played`` 1 when the match is over; ``won`` 1 when the seat (or its team) is among the winners;
* ``hands`` the finished hands; ``handsWon`` those the game's :attr:`League.hand_won` gives the seat;
* ``gained`` and ``lost`` the sums of the seat's positive and negative hand results, in the game's
  unit (hand wins, chips, points, loss points); ``net`` = gained − lost;
* ``total`` the seat's standing at the end (or now), ``totalOver`` the same once the match is over
  (a profile's average is their sum over the matches played); ``money`` El Roby's money; ``lossDiff`` La
  Cabra's loss points given to the other team minus those taken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.said import Said

FIGURES = ("played", "won", "hands", "handsWon", "gained", "lost", "net", "total", "totalOver", "money", "lossDiff")
"""Every figure a seat's match adds to a league table or a profile, in the order they are listed."""


@dataclass(frozen=True)
class League:
    """How a game adds up across matches (each game's ``league.py`` declares one ``LEAGUE``).

    ``order``: the ranking, figure by figure, each ``"desc"`` (more is better) or ``"asc"``;
    ``average`` (total per finished match) may be named. ``better``: whether a higher or a lower
    final ``total`` is the better match (best and worst in a profile). ``words``: the ranking
    rule as the league table page prints it.
    """

    game: str
    unit: Said
    order: tuple[tuple[str, str], ...]
    words: Said
    better: str
    hand_won: Callable[[Mapping[str, Any], int], bool]
    next_dealer: Callable[[Any], int | None]
    teams: Sequence[Sequence[int]] | None = None

    def side(self, seat: int) -> int:
        """The seat, or its team in a team game: whose lines, standing and wins are the seat's."""
        if self.teams is None:
            return seat
        return next(i for i, team in enumerate(self.teams) if seat in team)


def _side_of(item: Mapping[str, Any]) -> int | None:
    side = item.get("team", item.get("seat"))
    return side if isinstance(side, int) else None


def seat_figures(league: League, sheet: Mapping[str, Any], seats: int) -> list[dict[str, int]]:
    """Return one dict of figures per seat (see the module docstring) from a match's score sheet."""
    end = sheet.get("end") or {}
    over = bool(end.get("over"))
    winners = set(end.get("winners") or ()) if over else set()
    standings = {_side_of(s): s for s in sheet.get("standings") or ()}
    finished = [h for h in sheet.get("hands") or () if h.get("status") == "scored"]
    figures = []
    for seat in range(seats):
        side = league.side(seat)
        gained = lost = won_hands = 0
        for hand in finished:
            delta = sum(int(line.get("points") or 0) for line in hand.get("lines") or () if _side_of(line) == side)
            if delta > 0:
                gained += delta
            else:
                lost -= delta
            if league.hand_won(hand.get("result") or {}, seat):
                won_hands += 1
        standing = standings.get(side, {})
        figure = {
            "played": int(over),
            "won": int(over and side in winners),
            "hands": len(finished),
            "handsWon": won_hands,
            "gained": gained,
            "lost": lost,
            "net": gained - lost,
            "total": int(standing.get("total") or 0),
            "totalOver": int(standing.get("total") or 0) if over else 0,
            "money": int(standing.get("money") or 0),
            "lossDiff": 0,
        }
        if league.teams is not None:
            other = 1 - side
            given = sum(int((h.get("result") or {}).get("lossPoints", [0, 0])[other]) for h in finished)
            taken = sum(int((h.get("result") or {}).get("lossPoints", [0, 0])[side]) for h in finished)
            figure["lossDiff"] = given - taken
        figures.append(figure)
    return figures


def average(totals: Mapping[str, int]) -> float | None:
    """The mean final total per finished match (None before the first one)."""
    played = totals.get("played", 0)
    return None if not played else round(totals.get("totalOver", 0) / played, 2)


def ranking_key(league: League, totals: Mapping[str, Any]) -> tuple[float, ...]:
    """The sort key of a league table row: smaller sorts first, so ``desc`` figures are negated."""
    key: list[float] = []
    for figure, direction in league.order:
        value = average(totals) if figure == "average" else totals.get(figure, 0)
        if value is None:  # no finished match yet: below everyone who has one
            value = float("inf") if direction == "asc" else float("-inf")
        key.append(-value if direction == "desc" else value)
    return tuple(key)


def order_rows(league: League, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rank rows of totals by the game's rule: equal keys share a rank and are marked ``tied``."""
    keyed = sorted(((ranking_key(league, row), row) for row in rows), key=lambda pair: pair[0])
    ranked: list[dict[str, Any]] = []
    for index, (key, row) in enumerate(keyed):
        tied = any(other == key for j, (other, _) in enumerate(keyed) if j != index)
        rank = index + 1 if index == 0 or keyed[index - 1][0] != key else ranked[-1]["rank"]
        ranked.append({**row, "rank": rank, "tied": tied})
    return ranked
