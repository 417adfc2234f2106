"""A club's roster: the fold of its log (players, seasons, nights, the matches it holds); pure.

A club's log is a stream of its own in the ledger (:data:`ledger.base.CLUB_LOG`), chained and
exported like a match's. Its events (``schemas/club/``) are folded here, each checked against
the roster as it stands, refused in words with a stable code as the engines refuse a move:

* ``club.unknown_player`` — a player id the roster never added (or merged away, for a change);
* ``club.merge_self`` — a player merged into themself (directly or through an earlier merge);
* ``club.merge_same_table`` — two entries who played at the same table (two people, not one);
* ``club.name_taken`` — a name another listed player already has (compared ignoring case);
* ``club.hidden_player`` — a hidden player seated in a new match;
* ``club.seats`` — a player seated twice in one match;
* ``club.match_taken`` — a match the club already holds;
* ``club.unknown_night`` — a night the club never opened.

Ids are given by the fold, not by the writer (``p1``, ``p2`` … in the order players are added;
``s1`` … seasons; ``n1`` … nights), so two organisers who add a player at once cannot both take
one id: the ledger's expected version, or the fold's order, decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engines.base import RuleViolation
from engines.said import Said

ROSTER_TYPES = frozenset(
    {
        "club_started",
        "player_added",
        "player_renamed",
        "players_merged",
        "player_hidden",
        "player_shown",
        "season_declared",
        "night_opened",
        "match_added",
    }
)
"""The event types of a club's log (none of them is a game's event type)."""


@dataclass
class Player:
    """A club's player: ``merged`` names the entry this one was merged into (the same person)."""

    id: str
    name: str
    nickname: str | None = None
    hidden: bool = False
    merged: str | None = None
    matches: int = 0


@dataclass
class Roster:
    """A club as its log reads after ``version`` events."""

    name: str = ""
    place: str | None = None
    version: int = 0
    created: str = ""
    players: dict[str, Player] = field(default_factory=dict)
    seasons: dict[str, dict[str, str]] = field(default_factory=dict)
    nights: dict[str, dict[str, Any]] = field(default_factory=dict)
    matches: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each match the club holds: ``players`` (ids per seat, as seated), ``night``, ``seq``."""

    def person(self, player: str) -> str:
        """The entry a player's matches count for: the end of its chain of merges."""
        seen = set()
        while (merged := self.players[player].merged) is not None and player not in seen:
            seen.add(player)
            player = merged
        return player

    def listed(self, *, hidden: bool = False) -> list[Player]:
        """The players a list shows: never the merged entries; the hidden ones only if asked."""
        return [p for p in self.players.values() if p.merged is None and (hidden or not p.hidden)]

    def names(self) -> dict[str, str]:
        """Each player id (merged entries too) and the name it is shown by: its person's name."""
        return {pid: self.players[self.person(pid)].name for pid in self.players}


def _unknown(player: object) -> RuleViolation:
    return RuleViolation("club.unknown_player", Said("the club has no player %(player)s", player=str(player)))


def _known(roster: Roster, player: str) -> Player:
    found = roster.players.get(player)
    if found is None or found.merged is not None:
        if found is not None:
            raise RuleViolation(
                "club.unknown_player",
                Said(
                    "%(name)s (%(player)s) was merged into %(into)s: change that entry instead",
                    name=found.name,
                    player=player,
                    into=roster.players[roster.person(player)].name,
                ),
            )
        raise _unknown(player)
    return found


def _name_free(roster: Roster, name: str, besides: str | None = None) -> None:
    folded = name.strip().casefold()
    for other in roster.listed(hidden=True):
        if other.id != besides and other.name.strip().casefold() == folded:
            raise RuleViolation(
                "club.name_taken",
                Said(
                    "the club already has a player called %(name)s (%(player)s): give a nickname or another name",
                    name=other.name,
                    player=other.id,
                ),
            )


def apply(roster: Roster, type_: str, data: Mapping[str, Any], seq: int, at: str = "") -> None:
    """Fold one event into ``roster`` in place (the caller folds onto its own copy).

    Raises:
        RuleViolation: the event breaks the roster's rules (see the module docstring).
    """
    if type_ == "club_started":
        roster.name, roster.place, roster.created = data["name"], data.get("place"), at
    elif type_ == "player_added":
        _name_free(roster, data["name"])
        pid = f"p{len(roster.players) + 1}"
        roster.players[pid] = Player(pid, data["name"], data.get("nickname"))
    elif type_ == "player_renamed":
        player = _known(roster, data["player"])
        _name_free(roster, data["name"], besides=player.id)
        player.name, player.nickname = data["name"], data.get("nickname", player.nickname)
    elif type_ == "players_merged":
        player, into = _known(roster, data["player"]), _known(roster, data["into"])
        if player.id == into.id:
            raise RuleViolation(
                "club.merge_self",
                Said("%(name)s cannot be merged into themself: choose two different entries", name=player.name),
            )
        for match_id, seating in roster.matches.items():
            people = {roster.person(pid) for pid in seating["players"]}
            if player.id in people and into.id in people:
                raise RuleViolation(
                    "club.merge_same_table",
                    Said(
                        "%(name)s and %(into)s played at the same table (match %(match)s): they are two people",
                        name=player.name,
                        into=into.name,
                        match=match_id,
                    ),
                )
        player.merged = into.id
        into.matches += player.matches
        into.hidden = into.hidden and player.hidden
    elif type_ in ("player_hidden", "player_shown"):
        _known(roster, data["player"]).hidden = type_ == "player_hidden"
    elif type_ == "season_declared":
        if data["to"] < data["from"]:
            raise RuleViolation(
                "club.season_dates",
                Said("a season ends on or after the day it starts (%(from)s)", **{"from": data["from"]}),
            )
        roster.seasons[f"s{len(roster.seasons) + 1}"] = {"name": data["name"], "from": data["from"], "to": data["to"]}
    elif type_ == "night_opened":
        roster.nights[f"n{len(roster.nights) + 1}"] = {"name": data["name"], "date": data["date"], "matches": []}
    elif type_ == "match_added":
        _add_match(roster, data, seq)
    else:
        raise RuleViolation("club.unknown_event", Said("a club's log has no event %(type)s", type=type_))
    roster.version = seq


def _add_match(roster: Roster, data: Mapping[str, Any], seq: int) -> None:
    if data["match"] in roster.matches:
        raise RuleViolation(
            "club.match_taken", Said("match %(match)s is already one of the club's", match=data["match"])
        )
    seated = [_known(roster, pid) for pid in data["players"]]
    for player in seated:
        if player.hidden:
            raise RuleViolation(
                "club.hidden_player",
                Said(
                    "%(name)s is hidden from the club's lists: show the player again before seating them",
                    name=player.name,
                ),
            )
    if len({p.id for p in seated}) != len(seated):
        raise RuleViolation("club.seats", Said("a player can hold only one seat of a match"))
    night = data.get("night")
    if night is not None and night not in roster.nights:
        raise RuleViolation("club.unknown_night", Said("the club has no night %(night)s", night=night))
    roster.matches[data["match"]] = {"players": list(data["players"]), "night": night, "seq": seq}
    if night is not None:
        roster.nights[night]["matches"].append(data["match"])
    for player in seated:
        player.matches += 1


def folded(roster: Roster | None, events: Iterable[tuple[int, str, Mapping[str, Any], str]]) -> Roster:
    """Return a new roster: ``roster`` (None: an empty one) with ``(seq, type, data, at)`` folded on.

    Raises:
        RuleViolation: the first event that breaks a rule (``roster`` is unchanged).
    """
    new = _copied(roster) if roster is not None else Roster()
    for seq, type_, data, at in events:
        apply(new, type_, data, seq, at)
    return new


def _copied(roster: Roster) -> Roster:
    """A copy of ``roster`` that :func:`apply` may change without touching the original.

    Not a deep copy: :func:`apply` changes players in place and appends to a night's matches,
    so those are copied; a held match's entry is written once and never changed, so the
    entries are shared. A deep copy cost a club with 20,000 matches about 30 ms per match
    started (twice: the check before and the one inside the write), growing with every match.
    """
    return replace(
        roster,
        players={pid: replace(player) for pid, player in roster.players.items()},
        seasons={sid: dict(season) for sid, season in roster.seasons.items()},
        nights={nid: {**night, "matches": list(night["matches"])} for nid, night in roster.nights.items()},
        matches=dict(roster.matches),
    )
