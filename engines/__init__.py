"""The rules: one module per game, pure Python, standard library only.

``ENGINES`` maps each game id to its engine module; :func:`get_engine` looks one up.
"""

from __future__ import annotations

from engines import la_cabra
from engines import kabu
from engines import cau_robat
from engines import cabo
from engines import el_roby
from engines.base import Engine, Event, RuleViolation, UnknownGame
from engines.league import League
from engines.cabo.league import LEAGUE as _CABO
from engines.cau_robat.league import LEAGUE as _CAU
from engines.el_roby.league import LEAGUE as _ROBY
from engines.kabu.league import LEAGUE as _KABU
from engines.la_cabra.league import LEAGUE as _CABRA

ENGINES: dict[str, Engine] = {
    la_cabra.GAME: la_cabra,
    cau_robat.GAME: cau_robat,
    cabo.GAME: cabo,
    kabu.GAME: kabu,
    el_roby.GAME: el_roby,
}


LEAGUES: dict[str, League] = {league.game: league for league in (_CAU, _KABU, _CABO, _ROBY, _CABRA)}
"""How each game adds up across a club's matches (``engines/<game>/league.py``)."""


PAST_ENGINES: dict[tuple[str, int], Engine] = {}
"""Earlier rules versions still shipped, by ``(game, RULES_VERSION)``: the audit rescores a match
recorded under one of them with it too, and reports the hands the current rules score otherwise.
None yet: every engine is at its first version."""


def get_engine(game: object) -> Engine:
    """Return the engine for a game id.

    Raises:
        UnknownGame: no engine has that id.
    """
    try:
        return ENGINES[game]  # type: ignore[index]
    except (KeyError, TypeError):
        raise UnknownGame(game) from None


def engine_version(game: str, version: int) -> Engine | None:
    """Return the engine that scores ``game`` under rules version ``version``, if still shipped."""
    current = get_engine(game)
    if current.RULES_VERSION == version:
        return current
    return PAST_ENGINES.get((game, version))


__all__ = [
    "ENGINES",
    "LEAGUES",
    "League",
    "PAST_ENGINES",
    "Engine",
    "Event",
    "RuleViolation",
    "UnknownGame",
    "engine_version",
    "get_engine",
]
