"""Stored snapshots: folded states kept in the ledger so a cold reader need not fold from event 1.

The memory cache (:mod:`api.service.cache`) dies with the process; a snapshot row survives
it. Every ``SNAPSHOT_EVERY`` events, at every correction and when the match ends (its state is
then final: only a correction changes it, and notes after it fold for free) the service stores
the state at the head (the ``recorded`` course, like every state of the cache) as JSON data
(:mod:`engines.codec`). A cold ``state``, ``replay`` or append after a restart starts from
the newest snapshot at or before the step it needs and folds only the events after it.

A snapshot is only a cache, trusted only when it provably belongs to this log and these
rules: its ``head`` must be the stored hash of its event, its ``rules`` the running engine's
rules version (a digest of the engine's source, so any change to the rules invalidates every
snapshot of that game), and its ``digest`` must match the row. Anything else (a row from an
older build, a restored file, a damaged or edited row) is ignored and rebuilt from the log.
"""

from __future__ import annotations

import hashlib
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from engines import get_engine
from engines.base import Engine
from engines.codec import CodecError, dump_state, load_state
from ledger import Ledger, Snapshot

SNAPSHOT_EVERY = 256
"""Store a snapshot when the head has moved this many events past the last one stored."""

_SHARED = ("base.py", "cards.py", "codec.py", "common.py", "history.py")
"""The engine modules every game's fold depends on, besides the game's own package."""


def rules_version(engine: Engine) -> str:
    """Return a digest of the source of ``engine``'s package and of the shared engine modules."""
    return _rules_version(engine.GAME)


@lru_cache(maxsize=None)
def _rules_version(game: str) -> str:
    module = sys.modules[get_engine(game).__name__]  # type: ignore[attr-defined]
    package = Path(module.__file__ or "").parent
    shared = Path(sys.modules["engines"].__file__ or "").parent
    digest = hashlib.sha256(game.encode())
    for path in [*sorted(package.rglob("*.py")), *(shared / name for name in _SHARED)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{game}:{digest.hexdigest()[:24]}"


class Loaded(NamedTuple):
    """A snapshot found good: the state after event ``seq``, whose hash is ``head``."""

    seq: int
    head: str
    state: Any


def _digest(match_id: str, seq: int, head: str, rules: str, state: str) -> str:
    return hashlib.sha256(f"{match_id}\n{seq}\n{head}\n{rules}\n".encode() + state.encode()).hexdigest()


def _orjson_text(data: Any) -> str:
    return orjson.dumps(data).decode("utf-8")


def store(ledger: Ledger, match_id: str, engine: Engine, seq: int, head: str, state: Any) -> None:
    """Store the state after event ``seq`` (whose hash is ``head``) as the match's snapshot there."""
    rules = rules_version(engine)
    text = orjson.dumps(dump_state(state, encode=_orjson_text)).decode()
    ledger.put_snapshot(Snapshot(match_id, seq, head, rules, text, _digest(match_id, seq, head, rules, text)))


def load(ledger: Ledger, match_id: str, engine: Engine, upto: int, *, newer_than: int = 0) -> Loaded | None:
    """Return the newest good snapshot at or before event ``upto`` (and after ``newer_than``), or None.

    Only the newest is looked at: when it is stale or damaged the caller folds from the log
    (and stores a fresh one), which is what rebuilding it means. Earlier hands in the state
    stay JSON until read (:meth:`engines.history.History.lazy`).
    """
    found = ledger.snapshot(match_id, upto=upto)
    if found is None or found.seq <= newer_than or not is_good(ledger, found, engine):
        return None
    try:
        return Loaded(found.seq, found.head, load_state(engine, orjson.loads(found.state), parse=orjson.loads))
    except (CodecError, orjson.JSONDecodeError, TypeError, ValueError, KeyError):
        return None


def is_good(ledger: Ledger, found: Snapshot, engine: Engine) -> bool:
    """Tell whether a stored snapshot belongs to this log, these rules and is intact."""
    if found.rules != rules_version(engine):
        return False
    if found.digest != _digest(found.match_id, found.seq, found.head, found.rules, found.state):
        return False
    event = ledger.read(found.match_id, after=found.seq - 1, upto=found.seq)
    return len(event) == 1 and event[0].hash == found.head
