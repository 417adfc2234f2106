"""The state cache is bounded by bytes: entries weighed when stored, least recently used out first.

Entries are real ones: La Cabra series (result-only 60-60 deals and notes, which never end a
series) recorded through the service on a real SQLite file, folded by the cache itself. How
much a read folds is counted with a counting hook on the engine's ``apply`` (work, not time).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from api.app import create_app
from api.context import own_service
from api.service import Service, StateCache, cache as cache_module
from api.service.cache import DEFAULT_BUDGET, Folded, weigh
from engines import la_cabra
from engines.base import Event, events_from, replay
from ledger import SqliteLedger
from tests.api.snapshot_logs import eggs_log
from tests.plain import machine_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[SqliteLedger]:
    with SqliteLedger(tmp_path / "tanteo.db") as opened:
        yield opened


def recorded(ledger: SqliteLedger, length: int, *, every: int = 100, batch: int = 50) -> tuple[str, str]:
    """Record a series of ``length`` events through the service; return its id and token."""
    service = Service(ledger, StateCache(), snapshot_every=every)
    log = eggs_log(length)
    created = service.start_match(log[0]["data"])
    for start in range(1, len(log), batch):
        service.record(created["id"], log[start : start + batch], token=created["token"])
    return str(created["id"]), str(created["token"])


def entry_of(ledger: SqliteLedger, match_id: str) -> Folded:
    """The entry a fresh cache folds for the match at its head (from its stored snapshot)."""
    return StateCache().at_head(ledger, match_id, la_cabra, ledger.version(match_id))


# --------------------------------------------------------------------------- weighing


def test_a_long_match_weighs_more_and_its_checkpoints_share_the_head_state(ledger: SqliteLedger) -> None:
    short, _ = recorded(ledger, 40)
    long, _ = recorded(ledger, 1200)
    log = events_from(ledger.read(long))
    cache = StateCache()
    folded_cold = cache.at_head(ledger, long, la_cabra, len(log))  # from the snapshot: one checkpoint
    full = cache_module.folded(la_cabra_walk(log), len(log), ledger.read(long)[-1].hash)  # from event 1: many
    assert len(full.checkpoints) > 4
    head_only = Folded(full.version, full.head, full.state, {})
    assert weigh(entry_of(ledger, long)) > 10 * weigh(entry_of(ledger, short))
    # checkpoints share the earlier hands with the head: they add a little, not a copy each
    assert weigh(head_only) < weigh(full) < 1.5 * weigh(head_only)
    assert weigh(folded_cold) > 0


def test_what_a_stored_snapshot_remembers_of_its_hands_is_weighed_with_the_entry(ledger: SqliteLedger) -> None:
    """Storing a snapshot makes the state's histories remember their items' text (so the next
    store encodes only new hands): that memory is the entry's, and the budget counts it."""
    from engines.codec import dump_state

    long, _ = recorded(ledger, 600)
    log = events_from(ledger.read(long))
    entry = cache_module.folded(la_cabra_walk(log), len(log), ledger.read(long)[-1].hash)
    before = weigh(entry)
    dump_state(entry.state)
    texts = sum(len(t) for t in entry.state.past.memo() if t is not None)
    assert texts > 10_000
    assert weigh(entry) >= before + texts


def la_cabra_walk(log: list[Event]) -> Any:
    from engines.base import walk

    return walk(la_cabra, log, "recorded")


# --------------------------------------------------------------------------- the budget


def test_entries_beyond_the_budget_go_least_recently_used_first(ledger: SqliteLedger) -> None:
    ids = [recorded(ledger, 60 + 20 * i)[0] for i in range(5)]
    entries = {m: entry_of(ledger, m) for m in ids}
    weights = {m: weigh(e) for m, e in entries.items()}
    budget = weights[ids[0]] + weights[ids[1]] + weights[ids[2]] + weights[ids[3]] // 2
    cache = StateCache(budget)
    for m in ids[:3]:
        cache.put(m, entries[m])
    assert [m in cache for m in ids[:3]] == [True, True, True]
    assert cache.weight == weights[ids[0]] + weights[ids[1]] + weights[ids[2]]
    assert cache.get(ids[0]) is entries[ids[0]]  # read: now the most recently used
    cache.put(ids[3], entries[ids[3]])
    assert ids[1] not in cache, "the least recently used entry goes first"
    assert ids[0] in cache and ids[2] in cache and ids[3] in cache
    assert cache.weight <= budget
    cache.put(ids[4], entries[ids[4]])
    assert cache.weight <= budget
    assert ids[4] in cache and ids[2] not in cache
    assert cache.weight == sum(weights[m] for m in ids if m in cache)


def test_an_entry_heavier_than_the_budget_is_not_kept(ledger: SqliteLedger) -> None:
    small, _ = recorded(ledger, 40)
    big, _ = recorded(ledger, 900)
    budget = weigh(entry_of(ledger, small)) * 3
    assert weigh(entry_of(ledger, big)) > budget
    cache = StateCache(budget)
    cache.put(small, entry_of(ledger, small))
    behind = StateCache().at_head(ledger, big, la_cabra, 30)  # the big match early on: it fitted then
    cache.put(big, behind)
    assert big in cache
    cache.put(big, entry_of(ledger, big))
    assert big not in cache, "too heavy for the whole budget: not kept, and its older entry goes too"
    assert small in cache, "a too-heavy entry does not push the others out"
    assert cache.weight == weigh(entry_of(ledger, small))
    # it is still read right, each time from its stored snapshot
    assert cache.at_head(ledger, big, la_cabra, 900).state == replay(la_cabra, events_from(ledger.read(big)))


def test_a_budget_of_zero_keeps_nothing_and_reads_still_work(ledger: SqliteLedger) -> None:
    match_id, token = recorded(ledger, 300)
    service = Service(ledger, StateCache(0), snapshot_every=100)
    assert service.state(match_id, token=token)["version"] == 300
    assert len(service.cache) == 0 and service.cache.weight == 0
    with pytest.raises(ValueError):
        StateCache(-1)


def test_a_state_read_again_after_eviction_folds_from_the_stored_snapshot(
    ledger: SqliteLedger, applied: list[int]
) -> None:
    long, token = recorded(ledger, 1250, every=100)
    other, other_token = recorded(ledger, 1000, every=100)
    log = events_from(ledger.read(long))
    service = Service(ledger, StateCache(weigh(entry_of(ledger, long)) * 3 // 2), snapshot_every=100)
    first = service.state(long, token=token)
    assert long in service.cache
    service.state(other, token=other_token)  # the scorer of another long match: the first one is pushed out
    assert long not in service.cache and other in service.cache
    applied[0] = 0
    again = service.state(long, token=token)
    assert again == first
    assert applied[0] < 100, f"folded {applied[0]} events: from the stored snapshot, not from event 1"
    assert service._state(long, la_cabra)[0] == replay(la_cabra, log)
    middle = service.state(long, at=777, token=token)
    assert middle["version"] == 1250 and middle["at"] == 777
    assert service._state(long, la_cabra, 777)[0] == replay(la_cabra, log[:777])


# --------------------------------------------------------------------------- appends


@pytest.fixture
def weighed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the cache weighs an entry (a counting wrapper around the real weigh)."""
    count = [0]
    real = cache_module.weigh

    def counting(entry: Folded) -> int:
        count[0] += 1
        return real(entry)

    monkeypatch.setattr(cache_module, "weigh", counting)
    return count


def test_appends_do_not_weigh_the_whole_entry_each_time(ledger: SqliteLedger, weighed: list[int]) -> None:
    service = Service(ledger, StateCache(), snapshot_every=100)
    log = eggs_log(1001)
    created = service.start_match(log[0]["data"])
    for start in range(1, len(log), 5):  # 200 appends of 5 events
        service.record(created["id"], log[start : start + 5], token=created["token"])
    assert weighed[0] < 15, f"weighed {weighed[0]} times for 200 appends: again only as the match grows by half"
    kept = service.cache.get(created["id"])
    assert kept is not None and kept.version == 1001
    measured = weigh(kept)  # the real one: the module's is the counting wrapper
    assert 0.5 * measured <= service.cache.weight <= 2 * measured, "between weighings the weight is extrapolated"


def test_appends_to_a_match_too_heavy_to_keep_do_not_weigh_it_each_time(
    ledger: SqliteLedger, weighed: list[int]
) -> None:
    service = Service(ledger, StateCache(20_000), snapshot_every=100)  # less than any La Cabra state weighs
    log = eggs_log(801)
    created = service.start_match(log[0]["data"])
    for start in range(1, len(log), 4):  # 200 appends of 4 events
        service.record(created["id"], log[start : start + 4], token=created["token"])
    assert len(service.cache) == 0
    assert weighed[0] < 40, f"weighed {weighed[0]} times for 200 appends: its last weight is remembered"
    assert service.state(created["id"], token=created["token"])["version"] == 801


def test_many_threads_keep_the_total_within_the_budget(ledger: SqliteLedger) -> None:
    ids = [recorded(ledger, 40 + 10 * i)[0] for i in range(8)]
    entries = [entry_of(ledger, m) for m in ids]
    budget = sum(weigh(e) for e in entries) // 2
    cache = StateCache(budget)

    def work(offset: int) -> None:
        for i in range(200):
            k = (i + offset) % len(ids)
            cache.put(ids[k], entries[k])
            cache.get(ids[(k + 3) % len(ids)])
            if i % 17 == 0:
                cache.drop(ids[(k + 5) % len(ids)])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = [e for m, e in zip(ids, entries) if m in cache]
    assert cache.weight <= budget
    assert cache.weight == sum(weigh(e) for e in kept)


# --------------------------------------------------------------------------- configuration


def test_the_budget_comes_from_the_app_config_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TANTEO_CACHE_BYTES", raising=False)
    app = create_app({"TANTEO_DB": str(tmp_path / "a.db"), "TANTEO_CACHE_BYTES": 5_000_000})
    with app.app_context():
        assert own_service(app).cache.budget == 5_000_000
    assert create_app({"TANTEO_DB": str(tmp_path / "b.db")}).extensions["tanteo.cache"].budget == DEFAULT_BUDGET
    monkeypatch.setenv("TANTEO_CACHE_BYTES", "7340032")
    assert create_app({"TANTEO_DB": str(tmp_path / "c.db")}).extensions["tanteo.cache"].budget == 7 * 1024 * 1024
    for wrong in ("lots", "-5", "1.5"):
        with pytest.raises(ValueError) as refused:
            create_app({"TANTEO_DB": str(tmp_path / "d.db"), "TANTEO_CACHE_BYTES": wrong})
        assert "TANTEO_CACHE_BYTES" in str(refused.value) and not machine_text({"detail": str(refused.value)})


def test_serve_takes_the_budget_in_mib_and_says_it(tmp_path: Path) -> None:
    from tests.server.conftest import free_port

    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "s.db"),
            "--cache-mb",
            "7",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline().decode()
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert "state cache: 7 MiB" in banner, banner


def test_serve_refuses_a_budget_that_is_not_a_number(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "serve", "--db", str(tmp_path / "s.db")],
        env={"PATH": "/usr/bin:/bin", "TANTEO_CACHE_BYTES": "lots"},
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert "TANTEO_CACHE_BYTES is a number of bytes" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


FREED_BUFFERS = """
import sys, threading
from api.cli import _share_malloc_heaps
if sys.argv[1] == "serve":
    _share_malloc_heaps()
def rss():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS"))
before = rss()
one_at_a_time = threading.Lock()
finished = threading.Barrier(9)
def worker():  # a cold read's big buffers, allocated and freed on each of 8 live worker threads
    with one_at_a_time:
        for _ in range(3):
            buffer = bytearray(8 << 20)
            del buffer
    finished.wait()
threads = [threading.Thread(target=worker) for _ in range(8)]
for thread in threads:
    thread.start()
finished.wait()
for thread in threads:
    thread.join()
print(rss() - before)
"""


def test_serve_keeps_few_freed_buffers_across_its_worker_threads() -> None:
    def kept_mib(mode: str) -> float:
        done = subprocess.run([sys.executable, "-c", FREED_BUFFERS, mode], capture_output=True, cwd=ROOT, timeout=60)
        return int(done.stdout) / 1024

    assert kept_mib("serve") < 32, "as tanteo serve sets malloc up, the threads share two heaps: two buffers kept"
    assert kept_mib("default") > 48, "glibc's default: a heap per thread, each keeping its freed 8 MiB buffer"


def test_a_cold_fold_reads_the_log_a_chunk_at_a_time(ledger: SqliteLedger, monkeypatch: pytest.MonkeyPatch) -> None:
    """Folding a long match cold (no stored snapshot) never holds its whole log at once, and ends in
    the state the whole log folds to."""
    service = Service(ledger, StateCache(), snapshot_every=10_000)  # no snapshot: the fold starts at event 1
    log = eggs_log(1300)
    created = service.start_match(log[0]["data"])
    service.record(created["id"], log[1:], token=created["token"])
    whole = events_from(ledger.read(created["id"]))
    sizes: list[int] = []
    real_read = ledger.read

    def counting_read(match_id: str, **window: Any) -> Any:
        records = real_read(match_id, **window)
        sizes.append(len(records))
        return records

    monkeypatch.setattr(ledger, "read", counting_read)
    entry = StateCache().at_head(ledger, created["id"], la_cabra, 1300)
    assert max(sizes) <= cache_module.FOLD_CHUNK < 1300 and sum(sizes) == 1300, sizes
    assert entry.version == 1300 and entry.state == replay(la_cabra, whole)
    assert entry.head == real_read(created["id"], after=1299)[0].hash
