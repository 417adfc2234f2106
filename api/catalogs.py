"""Keep the message catalogs in step with the code: the translators' tool (docs/TRANSLATING.md).

``python -m api.catalogs update`` extracts every message id the code, the templates and the page
scripts use (plus the cards' spoken names, which the engines build from the deck) and rewrites each
language's ``messages.po`` with them: a translation already written is kept, an id no longer used
is dropped, a new id comes in empty. ``python -m api.catalogs missing ca`` prints, as JSON, the ids
a language still lacks; ``python -m api.catalogs fill table.json`` writes translations from a table
``{"msgid": {"ca": "…", "es": "…", "de": "…"}}`` (a plural id takes a list of forms in the
language's plural order: Catalan and Spanish one, many, other; German one, other). The catalog test
(tests/test_catalogs.py) extracts with the same map and keywords as this tool, so they never
disagree about which ids exist.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from api.languages import LANGUAGES, TRANSLATIONS
from engines.cards import spoken_names

ROOT = Path(__file__).resolve().parents[1]
METHODS = [
    ("api/**.py", "python"),
    ("engines/**.py", "python"),
    ("replays/**.py", "python"),
    ("schemas/**.py", "python"),
    ("ledger/**.py", "python"),
    ("api/templates/**.html", "jinja2"),
    ("api/templates/**.svg", "jinja2"),
]
"""Where the server's message ids are marked, and how each kind of file is read (babel.cfg says the same)."""
SCRIPTS = [("api/static/**.js", "javascript")]
"""The page scripts: read apart, with their own keywords."""
KEYWORDS: dict[str, Any] = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy_gettext": None,
    "lazy_ngettext": (1, 2),
    "Said": None,
    "Counted": (1, 2),
}
"""The functions that mark an id in Python and templates: Flask-Babel's, ``engines/said.py``'s
(and ``ledger/words.py``'s ``Said``, the same shape for the ledger, which may not import the engines)."""
SCRIPT_KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2)}
"""``say.js``'s functions. Only in the scripts: in Python a loop variable named ``t`` called on
something would be taken for a message."""
SKIP = ("qrcode-generator.js",)  # a vendored library, not ours: it says nothing to a reader


def used() -> dict[Any, list[tuple[str, int]]]:
    """Every message id in the tree (a plural as its ``(one, other)`` pair), with where it is used."""
    found: dict[Any, list[tuple[str, int]]] = {}
    extracted = [
        *extract_from_dir(str(ROOT), method_map=METHODS, keywords=KEYWORDS),
        *extract_from_dir(str(ROOT), method_map=SCRIPTS, keywords=SCRIPT_KEYWORDS),
    ]
    for filename, lineno, message, _comments, _context in extracted:
        if filename.endswith(SKIP) or not message or (isinstance(message, tuple) and not all(message)):
            continue
        found.setdefault(message, []).append((filename, lineno))
    for name in spoken_names():
        found.setdefault(name, []).append(("engines/cards.py", 0))
    return found


def key(message: Any) -> str:
    """The id a catalog looks a message up by: a plural's singular."""
    return message[0] if isinstance(message, tuple) else message


def path(lang: str) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"


def read(lang: str) -> Catalog:
    with path(lang).open("rb") as f:
        return read_po(f, locale=lang)


def write(lang: str, catalog: Catalog) -> None:
    with path(lang).open("wb") as f:
        # files without line numbers: a catalog changes when a message does, not when code moves
        write_po(f, catalog, width=0, sort_by_file=True, ignore_obsolete=True, include_lineno=False)


def update(langs: Iterable[str] = LANGUAGES) -> dict[str, int]:
    """Rewrite each catalog with exactly the ids in use; return how many each still lacks."""
    ids = used()
    lacking = {}
    for lang in langs:
        old = read(lang)
        kept = {key(m.id): m for m in old if m.id}
        new = Catalog(locale=lang, project="Tanteo", version="1", fuzzy=False)
        new.header_comment = old.header_comment
        new.last_translator = "the Tanteo translators"
        new.creation_date, new.revision_date = old.creation_date, old.revision_date
        for message, locations in ids.items():
            before = kept.get(key(message))
            string: Any = (
                before.string
                if before is not None
                else ("" if not isinstance(message, tuple) else ("",) * old.num_plurals)
            )
            if lang == "en":  # the English catalog is the ids themselves
                string = message if not isinstance(message, tuple) else message
            if isinstance(message, tuple) and not isinstance(string, tuple):
                string = (string,) + ("",) * (new.num_plurals - 1)
            if not isinstance(message, tuple) and isinstance(string, tuple):
                string = string[0]
            flags = set(before.flags) - {"python-format"} if before is not None else set()
            new.add(message, string, locations=sorted(set(locations)), flags=flags)
        write(lang, new)
        lacking[lang] = sum(
            1 for m in new if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple) else (m.string,)))
        )
    return lacking


def missing(lang: str, under: str = "") -> dict[str, Any]:
    """The ids ``lang`` still lacks (empty or fuzzy), used under the folder or file ``under``, as a
    table to fill: ``{id: ""}``, or ``{id: ["", …]}`` for a plural (one slot per plural form)."""
    catalog = read(lang)
    out: dict[str, Any] = {}
    for m in catalog:
        if not m.id or not any(where.startswith(under) for where, _ in m.locations):
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.fuzzy or not all(strings):
            out[key(m.id)] = [""] * catalog.num_plurals if isinstance(m.id, tuple) else ""
    return out


def fill(table: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """Write the translations of ``table`` (``{id: {lang: text or [forms]}}``) into the catalogs;
    return, per language, the ids of the table that no code uses (left out)."""
    unused: dict[str, list[str]] = {}
    for lang in {lang for row in table.values() for lang in row}:
        catalog = read(lang)
        by_key = {key(m.id): m for m in catalog if m.id}
        for msgid, row in table.items():
            if lang not in row:
                continue
            message = by_key.get(msgid)
            if message is None:
                unused.setdefault(lang, []).append(msgid)
                continue
            text = row[lang]
            if isinstance(message.id, tuple):
                forms = tuple(text) if isinstance(text, list) else (text,) * catalog.num_plurals
                message.string = forms
            else:
                message.string = text
            message.flags.discard("fuzzy")
        write(lang, catalog)
    return unused


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        print(json.dumps(update(), ensure_ascii=False))
        return 0
    if argv[:1] == ["missing"] and len(argv) >= 2:
        print(json.dumps(missing(argv[1], argv[2] if len(argv) > 2 else ""), ensure_ascii=False, indent=1))
        return 0
    if argv[:1] == ["fill"] and len(argv) == 2:
        table = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        unused = fill(table)
        if unused:
            print(json.dumps({"not used by any code": unused}, ensure_ascii=False, indent=1))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
