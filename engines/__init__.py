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

ENGINES: dict[str, Engine] = {
    la_cabra.GAME: la_cabra,
    cau_robat.GAME: cau_robat,
    cabo.GAME: cabo,
    kabu.GAME: kabu,
    el_roby.GAME: el_roby,
}


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


__all__ = ["ENGINES", "PAST_ENGINES", "Engine", "Event", "RuleViolation", "UnknownGame", "engine_version", "get_engine"]
