"""Count what one read of a match costs: folds of its log and reads of its match row.

Not a timing: it counts, so the numbers are the same on any machine and can be compared
across commits (run it on two checkouts). A La Cabra series and an El Roby match are
recorded with the conformance drivers and left in play (so open reads must redact), then
every read the API offers is made twice, without and with the write token; the second,
warm read is counted (the first fills the state cache, as a running server's would be).

* **folds**: how many times the engine applied the events of the log, as a multiple of the
  number of game events in it (1.00 = the log folded once; a read served from the state
  cache folds 0);
* **row reads**: how many times the ledger read the match's row.

Usage: ``.venv/bin/python bench/read_counts.py`` (prints a table; about ten seconds).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.app import create_app  # noqa: E402
from engines import ENGINES  # noqa: E402
from engines.base import CORRECTIONS, STATE_NEUTRAL  # noqa: E402
from ledger.sqlite import SqliteLedger  # noqa: E402
from tests.engines.drivers import DRIVERS, run  # noqa: E402

READS = ("", "/events", "/state", "/state?at=5", "/legal-moves", "/replay", "/audit", "/export", "/sheet.csv")
COUNTS = {"apply": 0, "rows": 0}


def counted(function: Callable[..., Any], key: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        COUNTS[key] += 1
        return function(*args, **kwargs)

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="the same (it is small already): checks that it runs")
    parser.parse_args()
    for engine in ENGINES.values():
        engine.apply = counted(engine.apply, "apply")  # type: ignore[attr-defined]
    SqliteLedger.get_match = counted(SqliteLedger.get_match, "rows")  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"TANTEO_DB": str(Path(folder) / "counts.db"), "TESTING": True})
        client = app.test_client()
        print(f"{'match':<22} {'read':<14} {'open folds':>10} {'open rows':>9} {'key folds':>9} {'key rows':>8}")
        for game, seed in (("la-cabra", 3), ("el-roby", 2), ("kabu", 1), ("cabo", 0), ("cau-robat", 0)):
            events, _ = run(ENGINES[game], DRIVERS[game](random.Random(seed)))
            deals = [i for i, e in enumerate(events) if e.type == "hand_started"] + [len(events)]
            first, end = max(zip(deals, deals[1:]), key=lambda span: span[1] - span[0])  # the longest hand
            events = events[: (first + end) // 2]  # cut in its middle: in play, hiding cards
            created = client.post("/matches", json=dict(events[0].data)).get_json()
            key = {"Authorization": f"Bearer {created['token']}"}
            body = {"events": [{"type": e.type, "data": dict(e.data)} for e in events[1:]]}
            assert client.post(f"/matches/{created['id']}/events", json=body, headers=key).status_code == 201
            summary = client.get(f"/matches/{created['id']}").get_json()
            assert summary["status"] == "playing", summary["status"]
            hidden = client.get(f"/matches/{created['id']}/events").get_data(as_text=True).count('"private":true')
            assert hidden, "the match hides nothing: choose another seed or cut"
            game_events = sum(1 for e in events[1:] if e.type not in CORRECTIONS and e.type not in STATE_NEUTRAL)
            for path in READS:
                row = []
                for headers in ({}, key):
                    url = f"/matches/{created['id']}{path}"
                    client.get(url, headers=headers)
                    COUNTS.update(apply=0, rows=0)
                    response = client.get(url, headers=headers)
                    assert response.status_code == 200, (url, response.get_data(as_text=True)[:200])
                    row += [COUNTS["apply"] / game_events, COUNTS["rows"]]
                label = f"{game} ({len(events)} events)"
                print(f"{label:<22} {path or '(summary)':<14} {row[0]:>10.2f} {row[1]:>9} {row[2]:>9.2f} {row[3]:>8}")
        app.extensions["tanteo.ledgers"].close()


if __name__ == "__main__":
    main()
