"""Checks the translated rules pages against the English originals (issue 28).

Pure file checks, no server: every translation under api/rules/<lang>/ must have an
English counterpart, keep the same heading anchors in the same order, and keep every
backticked code (card codes, event types, option names) of the English page.
"""

import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "api" / "rules"
ANCHOR = re.compile(r"\{#([^}]+)\}")
CODE = re.compile(r"`([^`\n]+)`")

ENGLISH = sorted(p.name for p in RULES.glob("*.md"))
TRANSLATIONS = sorted(
    p.relative_to(RULES).as_posix() for p in RULES.glob("*/*.md") if p.parent.name.isalpha() and len(p.parent.name) == 2
)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_english_pages_exist():
    assert {"cabo.md", "cau-robat.md", "el-roby.md", "kabu.md", "la-cabra.md", "common.md"} <= set(ENGLISH)


def test_spanish_set_complete():
    spanish = {p.name for p in (RULES / "es").glob("*.md")}
    assert spanish == set(ENGLISH)


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_has_english_original(rel):
    assert (RULES / Path(rel).name).is_file(), rel


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_keeps_anchors_in_order(rel):
    english = ANCHOR.findall(_read(RULES / Path(rel).name))
    translated = ANCHOR.findall(_read(RULES / rel))
    assert translated == english


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_keeps_backticked_codes(rel):
    english = set(CODE.findall(_read(RULES / Path(rel).name)))
    translated = set(CODE.findall(_read(RULES / rel)))
    missing = sorted(english - translated)
    assert not missing, f"{rel} lacks {missing}"
