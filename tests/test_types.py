"""The pure packages and the Flask-free service type-check under ``mypy --strict`` (docs/DESIGN.md),
as python-chess's CI does. ``api``'s HTTP modules are left out: flask-smorest's decorators are untyped."""

from __future__ import annotations

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def test_engines_ledger_schemas_replays_and_the_service_pass_mypy_strict(tmp_path: Path) -> None:
    from mypy import api

    out, err, status = api.run(
        [
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            *(str(ROOT / p) for p in ("engines", "ledger", "schemas", "replays", "api/service")),
        ]
    )
    assert status == 0, out + err
