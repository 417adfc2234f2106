"""The pure packages type-check under ``mypy --strict`` (STYLE.md §E), as python-chess's CI does."""

from __future__ import annotations

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def test_engines_ledger_schemas_and_replays_pass_mypy_strict(tmp_path: Path) -> None:
    from mypy import api

    out, err, status = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"),
                                *(str(ROOT / p) for p in ("engines", "ledger", "schemas", "replays"))])
    assert status == 0, out + err
