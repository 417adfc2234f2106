"""The README is short and true: its commands run, and every path the docs and the code cite exists.

As python-chess tests its README: the quick start is the two commands CI runs, the recorded
hand runs against a real ``tanteo serve`` and says what the README says it says, and a path
named in the README, in ``docs/`` or in a comment of the code is a file of the repository.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Iterator


from tests.server.conftest import Server, server  # noqa: F401, F811 (the real tanteo serve of the server tests)

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks(text: str, language: str = "bash") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_the_readme_is_what_a_newcomer_needs_first() -> None:
    assert len(README.splitlines()) < 250
    for guide in ("docs/PLAYERS.md", "docs/HTTP.md", "docs/OPERATING.md", "docs/DESIGN.md", "docs/BENCHMARKS.md"):
        assert f"]({guide})" in README and (ROOT / guide).exists(), guide


def test_the_quick_start_is_two_commands_and_ci_runs_the_second() -> None:
    quick = [line for line in blocks(README)[0].splitlines() if line.strip()]
    assert len(quick) == 2
    serve, test = quick
    assert serve.endswith(".venv/bin/tanteo serve") and "pip install -q -e ." in serve
    ci = (ROOT / ".ci" / "run").read_text()
    install, run = test.split(" && .venv/bin/python -m pytest")[0], ".venv/bin/python -m pytest"
    assert install in ci and run in ci, "CI runs the README's test command"


def test_the_recorded_hand_runs_as_written(server: Server) -> None:  # noqa: F811 (the fixture imported above)
    script = next(b for b in blocks(README) if "BASE=http://127.0.0.1:8000" in b)
    script = script.replace("BASE=http://127.0.0.1:8000", f"BASE={server.url}")
    out = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    decoder, text, answers = json.JSONDecoder(), out.stdout.strip(), []
    while text:  # the append's answer, then the audit, each one JSON value
        value, end = decoder.raw_decode(text)
        answers.append(value)
        text = text[end:].strip()
    assert answers[0]["version"] == 4
    audit = answers[-1]
    divergence = audit["firstDivergence"]
    assert (divergence["hand"], divergence["claimed"], divergence["computed"], divergence["name"]) == (
        1,
        1,
        2,
        "Jordi–Pau",
    )
    assert "48 card points" in divergence["why"]


PATH = re.compile(r"(?<![\w/.<{-])((?:[\w.-]+/)+[\w.-]+\.(?:md|py|json|js|html|css|tnt|txt|toml|yaml))(?![\w/])")
CITING = ("api", "engines", "ledger", "replays", "schemas", "tests", "bench", "docs")


def cited_paths() -> Iterator[tuple[Path, str]]:
    files = [ROOT / "README.md"] + [
        p
        for d in CITING
        for p in sorted((ROOT / d).rglob("*"))
        if p.suffix in (".py", ".md", ".json", ".js", ".html") and p.is_file()
    ]
    for path in files:
        if path.name in ("qrcode-generator.js", "test_readme.py"):  # vendored as it is; this file names what it allows
            continue
        for match in PATH.finditer(path.read_text(errors="replace")):
            if not any(c in match.group(1) for c in "<>{}*"):  # a pattern (engines/<game>/views.py), not a path
                yield path, match.group(1)


def test_every_path_the_docs_and_the_code_cite_exists() -> None:
    """Relative to the repository, to the citing file's folder, or to schemas/ (where a schema
    names another by its own relative path)."""
    missing = sorted(
        {
            (str(path.relative_to(ROOT)), cited)
            for path, cited in cited_paths()
            if not any((base / cited).exists() for base in (ROOT, path.parent, ROOT / "schemas"))
        }
    )
    references = ("docs/DESIGN.md", "docs/RULES.md", "docs/VOCABULARY.md")
    assert all((ROOT / r).exists() for r in references)
    elsewhere = {
        ("docs/RULES.md", "server/lib/views/shared/rules.html"),  # another project's file, named as a source
        ("tests/schemas/test_schemas.py", "la-cabra/lead.json"),
    }  # a schema name the loader must refuse
    assert set(missing) == elsewhere, missing
