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

ENGINES: dict[str, Engine] = {la_cabra.GAME: la_cabra, cau_robat.GAME: cau_robat, cabo.GAME: cabo, kabu.GAME: kabu, el_roby.GAME: el_roby}


def get_engine(game: object) -> Engine:
    """Return the engine for a game id.

    Raises:
        UnknownGame: no engine has that id.
    """
    try:
        return ENGINES[game]  # type: ignore[index]
    except (KeyError, TypeError):
        raise UnknownGame(game) from None


__all__ = ["ENGINES", "Engine", "Event", "RuleViolation", "UnknownGame", "get_engine"]
