"""League tables, player profiles and series: projections of the match logs, kept as they are recorded; Flask-free.

A read never refolds a club's matches. The projection (documents in the ledger's projection
store, name :data:`NAME`) follows the ledger's feed: before each read it catches up on the
events stored since its position, recomputes the figures of each match those events touched
(one match's state comes from the state cache or its snapshot, as any read of it does) and
moves the sums by the difference between the match's old and new figures. A correction is one
more event of its match: its figures are recomputed and the sums follow. A merge of two players
or a new season re-sums that club from the per-match documents (never the logs).

Documents (keys compare by code point):

* ``m/<match>`` — one match of a club: club, game, date, tags, night, seats (player ids), the
  figures per seat (:func:`engines.league.seat_figures`) and the series it belongs to;
* ``t/<club>/<game>/<period>`` — a league table: the summed figures per player; ``period`` is
  ``all``, ``season:<id>``, ``night:<id>`` or ``tag:<tag>``;
* ``p/<club>/<player>`` — a profile: per game the sums, best and worst match, recent form and
  head-to-head;
* ``pm/<club>/<player>/<game>/<date>/<match>`` — one match of a player (the links behind a figure);
* ``s/<series>`` — the matches of a series in order (from ``match_started.series``).

The write that moves the sums also moves the position, compare-and-set: two servers catching up
at once cannot count an event twice (the loser reads again and finds nothing left to do).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from api.service.cache import Folded, StateCache
from api.service.roster import ROSTER_TYPES, Roster
from engines import LEAGUES, get_engine
from engines.league import FIGURES, seat_figures
from ledger import CLUB_LOG

if TYPE_CHECKING:
    from api.service import Service

NAME = "league"
"""The projection's name in the ledger's projection store."""

FEED_BATCH = 5000
"""Feed rows read at a time while catching up."""

FORM = 10
"""Matches in a profile's recent form."""


def periods(doc: Mapping[str, Any], roster: Roster) -> list[str]:
    """The league tables a club match counts in: all time, its night, its seasons and its tags."""
    found = ["all"]
    if doc.get("night"):
        found.append(f"night:{doc['night']}")
    date = doc.get("date") or ""
    found += [f"season:{sid}" for sid, season in roster.seasons.items() if season["from"] <= date <= season["to"]]
    found += [f"tag:{tag}" for tag in doc.get("tags") or ()]
    return found


class _Pending:
    """The documents one catch-up reads and changes, written back together."""

    def __init__(self, service: Service) -> None:
        self.ledger = service.ledger
        self.docs: dict[str, Any] = {}
        self.changed: set[str] = set()

    def get(self, key: str) -> Any:
        if key not in self.docs:
            self.docs[key] = self.ledger.docs(NAME, [key]).get(key)
        return self.docs[key]

    def put(self, key: str, doc: Any) -> None:
        self.docs[key] = doc
        self.changed.add(key)

    def written(self) -> dict[str, Any]:
        return {key: self.docs[key] for key in self.changed}


class _Passing(StateCache):
    """A state cache that keeps nothing: what a rebuild folds its matches through.

    A rebuild reads every match once; keeping each state meant weighing it first (walking the
    whole state), about half of a rebuild's time (``bench/clubs.py``), for entries the next
    matches pushed out of the budget anyway.
    """

    def put(self, match_id: str, entry: Folded) -> None:
        return


class Projector:
    """Keeps :data:`NAME` caught up with the feed (see the module docstring)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.ledger = service.ledger
        self._passing: _Passing | None = None
        """Set while a rebuild runs: match states are folded without being kept."""

    # ---- catching up

    def catch_up(self) -> int:
        """Bring the projection up to the newest stored event; return the events read."""
        read = 0
        while True:
            position = self.ledger.doc_position(NAME)
            batch = self.ledger.feed(position, FEED_BATCH)
            if not batch:
                return read
            pending = _Pending(self.service)
            self._apply(batch, pending)
            if self.ledger.write_docs(NAME, pending.written(), position=(position, batch[-1][0])):
                read += len(batch)
                self._repair(pending)
            # else another writer moved the position first: read again from where it stands

    def rebuild(self) -> dict[str, int]:
        """Drop every document and catch up from the first event (after an upgrade)."""
        position = self.ledger.doc_position(NAME)
        self.ledger.write_docs(NAME, {}, position=(position, 0), clear=True)
        self._passing = _Passing(0)
        try:
            events = self.catch_up()
        finally:
            self._passing = None
        clubs = self.ledger.list_matches(game=CLUB_LOG, limit=1)[1]
        matches = len(self.ledger.scan_docs(NAME, "m/"))
        return {"events": events, "matches": matches, "clubs": clubs}

    def _apply(self, batch: Sequence[tuple[int, Any]], pending: _Pending) -> None:
        touched: dict[str, str | None] = {}
        resum: set[str] = set()
        for _id, event in batch:
            if event.type in ROSTER_TYPES:
                if event.type == "match_added":
                    touched[event.data["match"]] = event.match
                elif event.type in ("players_merged", "season_declared"):
                    resum.add(event.match)
            else:
                touched.setdefault(event.match, None)
                if event.type == "match_started" and isinstance(event.data.get("series"), dict):
                    series = event.data["series"]["id"]
                    kept = list(pending.get(f"s/{series}") or [])
                    if event.match not in kept:
                        pending.put(f"s/{series}", [*kept, event.match])
        rosters: dict[str, Roster] = {}
        for match_id, club in touched.items():
            old = pending.get(f"m/{match_id}")
            club = club or (old or {}).get("club")
            if club is None:
                continue  # not a club's match
            if club not in rosters:
                rosters[club] = self.service.clubs.roster(club)
            roster = rosters[club]
            seating = roster.matches.get(match_id)
            if seating is None:
                continue  # attached by a later event than this read knows of: that catch-up counts it
            new = self._match_doc(match_id, club, seating["players"], seating.get("night"), roster)
            if old is not None and club not in resum:
                _count(pending, roster, old, -1)
            pending.put(f"m/{match_id}", new)
            if club not in resum:
                _count(pending, roster, new, +1)
        for club in resum:
            roster = rosters.get(club) or self.service.clubs.roster(club)
            _resum(pending, roster, club)

    def _repair(self, pending: _Pending) -> None:
        """Look again for the form and extremes a removed match left short (a correction of one)."""
        fixed = {}
        for key in pending.changed:
            doc = pending.docs[key]
            if not key.startswith("p/") or not doc:
                continue
            _, club, person = key.split("/")
            dirty = {g: m for g, m in doc.items() if m.get("formDirty") or m.get("extremesDirty")}
            if dirty:
                fixed[key] = {
                    **doc,
                    **{g: repair(self.ledger, club, person, g, dict(m), LEAGUES[g].better) for g, m in dirty.items()},
                }
        if fixed:
            self.ledger.write_docs(NAME, fixed)

    def _match_doc(
        self, match_id: str, club: str, seats: Sequence[str], night: str | None, roster: Roster
    ) -> dict[str, Any]:
        """The figures of one match as its log now reads (corrections folded in), dated as the
        table dates it: its own date, else its night's, else the day it was started."""
        record = self.ledger.get_match(match_id)
        engine = get_engine(record.game)
        if self._passing is not None and self.service.cache.get(match_id) is None:
            version = self.ledger.version(match_id)
            state = self._passing.at_head(self.ledger, match_id, engine, version).state
        else:
            state, version = self.service._state(match_id, engine)
        sheet = engine.score(state)
        meta = record.meta
        return {
            "id": match_id,
            "club": club,
            "game": record.game,
            "date": meta.get("date") or (roster.nights[night]["date"] if night else record.created_at[:10]),
            "tags": list(meta.get("tags") or ()),
            "night": night,
            "seats": list(seats),
            "over": bool((sheet.get("end") or {}).get("over")),
            "figures": seat_figures(LEAGUES[record.game], sheet, len(record.players)),
            "version": version,
        }


def _blank() -> dict[str, int]:
    return {figure: 0 for figure in ("matches", "inPlay", *FIGURES)}


def _count(pending: _Pending, roster: Roster, doc: Mapping[str, Any], sign: int) -> None:
    """Add (``sign`` 1) or take away (−1) one match's figures to every sum it counts in."""
    club, game, match_id, date = doc["club"], doc["game"], doc["id"], doc["date"]
    people = [roster.person(pid) for pid in doc["seats"]]
    league = LEAGUES[game]
    for period in periods(doc, roster):
        key = f"t/{club}/{game}/{period}"
        table = dict(pending.get(key) or {})
        for person, figures in zip(people, doc["figures"]):
            table[person] = _added(table.get(person), figures, doc["over"], sign)
        pending.put(key, table)
    for seat, (person, figures) in enumerate(zip(people, doc["figures"])):
        pkey = f"p/{club}/{person}"
        profile = dict(pending.get(pkey) or {})
        mine = dict(profile.get(game) or {"sums": _blank(), "form": [], "headToHead": {}, "best": None, "worst": None})
        mine["sums"] = _added(mine["sums"], figures, doc["over"], sign)
        link = f"pm/{club}/{person}/{game}/{date}/{match_id}"
        if sign > 0:
            pending.put(
                link, {"won": bool(figures["won"]), "over": doc["over"], "total": figures["total"], "seat": seat}
            )
        else:
            pending.put(link, None)
        if doc["over"]:
            _form(mine, date, match_id, bool(figures["won"]), sign)
            _extremes(pending, mine, league.better, club, person, game, match_id, figures["total"], sign)
            h2h = dict(mine["headToHead"])
            for other_seat, (other, theirs) in enumerate(zip(people, doc["figures"])):
                if other_seat == seat or other == person or league.side(other_seat) == league.side(seat):
                    continue
                row = list(h2h.get(other) or [0, 0, 0])
                row[0] += sign
                row[1] += sign * int(bool(figures["won"]) and not theirs["won"])
                row[2] += sign * int(bool(theirs["won"]) and not figures["won"])
                h2h[other] = row
            mine["headToHead"] = h2h
        profile[game] = mine
        pending.put(pkey, profile)


def _added(sums: Mapping[str, int] | None, figures: Mapping[str, int], over: bool, sign: int) -> dict[str, int]:
    new = dict(sums or _blank())
    new["matches"] = new.get("matches", 0) + sign
    new["inPlay"] = new.get("inPlay", 0) + sign * int(not over)
    for figure in FIGURES:
        new[figure] = new.get(figure, 0) + sign * int(figures.get(figure, 0))
    return new


def _form(mine: dict[str, Any], date: str, match_id: str, won: bool, sign: int) -> None:
    form = [entry for entry in mine["form"] if entry[1] != match_id]
    if sign > 0:
        form.append([date, match_id, won])
    form.sort(reverse=True)
    mine["form"] = form[:FORM]
    mine["formDirty"] = sign < 0 and len(form) < FORM


def _extremes(
    pending: _Pending,
    mine: dict[str, Any],
    better: str,
    club: str,
    person: str,
    game: str,
    match_id: str,
    total: int,
    sign: int,
) -> None:
    """Keep the best and the worst finished match; a removed extreme is looked for again."""
    if sign > 0:
        for which, wins in (("best", better == "higher"), ("worst", better != "higher")):
            held = mine.get(which)
            if held is None or (total > held[1] if wins else total < held[1]):
                mine[which] = [match_id, total]
        return
    if any((mine.get(which) or [None])[0] == match_id for which in ("best", "worst")):
        mine["best"] = mine["worst"] = None
        mine["extremesDirty"] = True


def _resum(pending: _Pending, roster: Roster, club: str) -> None:
    """Sum a club's tables and profiles again from its match documents (a merge, a new season)."""
    for prefix in (f"t/{club}/", f"p/{club}/", f"pm/{club}/"):
        for key, _doc in pending.ledger.scan_docs(NAME, prefix):
            pending.put(key, None)
        for key in [k for k in pending.docs if k.startswith(prefix)]:
            pending.put(key, None)
    for match_id in roster.matches:
        doc = pending.get(f"m/{match_id}")
        if doc is not None:
            _count(pending, roster, doc, +1)


def repair(ledger: Any, club: str, person: str, game: str, mine: dict[str, Any], better: str) -> dict[str, Any]:
    """Recompute a profile's form and extremes from its match links when a removal left them short."""
    form_dirty, extremes_dirty = mine.pop("formDirty", False), mine.pop("extremesDirty", False)
    if not (form_dirty or extremes_dirty):
        return mine
    finished: list[tuple[str, str, bool, int]] = []  # date, match, won, total
    for key, doc in ledger.scan_docs(NAME, f"pm/{club}/{person}/{game}/"):
        _, date, match_id = key.rsplit("/", 2)
        if doc.get("over"):
            finished.append((date, match_id, bool(doc["won"]), int(doc["total"])))
    mine["form"] = [[date, match_id, won] for date, match_id, won, _ in sorted(finished, reverse=True)[:FORM]]
    if finished:
        by_total = sorted(finished, key=lambda row: row[3])
        high, low = [by_total[-1][1], by_total[-1][3]], [by_total[0][1], by_total[0][3]]
        mine["best"], mine["worst"] = (high, low) if better == "higher" else (low, high)
    else:
        mine["best"] = mine["worst"] = None
    return mine
    links = ledger.scan_docs(NAME, f"pm/{club}/{person}/{game}/")
    over = [(key.rsplit("/", 2), doc) for key, doc in links if doc.get("over")]
    mine["form"] = sorted(([parts[1], parts[2], doc["won"]] for parts, doc in over), reverse=True)[:FORM]
    if over:
        pick = max if better == "higher" else min
        mine["best"] = list(pick(((parts[2], doc["total"]) for parts, doc in over), key=lambda pair: pair[1]))
        other = min if better == "higher" else max
        mine["worst"] = list(other(((parts[2], doc["total"]) for parts, doc in over), key=lambda pair: pair[1]))
    else:
        mine["best"] = mine["worst"] = None
    return mine


def club_of(ledger: Any, match_id: str) -> str | None:
    """The club a match belongs to, as the projection knows it (None: a casual match)."""
    doc = ledger.docs(NAME, [f"m/{match_id}"]).get(f"m/{match_id}")
    return None if doc is None else str(doc["club"])


def series_matches(ledger: Any, series: str) -> list[str]:
    """The matches of a series in order."""
    return list(ledger.docs(NAME, [f"s/{series}"]).get(f"s/{series}") or [])


__all__ = ["NAME", "Projector", "club_of", "periods", "repair", "series_matches"]
