"""The text notation's, the archive's and the schemas' messages in the players' languages (issue 28).

The notation itself stays English (its tags and event words, as PGN's do); what it says to a person
(why a line cannot be read, why a card cannot stand there, why an event breaks its schema) is said
from message ids, with the same codes in every language."""

from __future__ import annotations

from typing import Any

import pytest

from api import i18n
from api.app import create_app
from replays.addressing import AddressError, Position, locate
from replays.archive import read_archive
from replays.lines import more_errors_said, unread_said
from replays.notation import card_problem, read_text
from schemas import SchemaError, validate_event
from schemas.strict import NotAccepted, whole_number
from tests.languages import english_left, untranslated

LANGS = ("ca", "es", "de")

BROKEN = [
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. hand_started dealer=0\n3. draw seat=1 card\n', ["notation.syntax"]),
    ("2. play seat=0 card=7o\n", ["notation.no_tags"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. hand_started dealer=0 layouts=[[1 2]\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Game "kabu"]\n[Players "Anna" "Ben"]\n', ["notation.duplicate_tag"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. note text="never closed\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. draw seat=1 seat=0\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. = seat=1\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. hand_started dealer=0 }\n', ["notation.syntax"]),
    ('[Game "cabo"]\n[Players "Anna" "Ben"]\n2. hand_started dealer=0 { never closed\n', ["notation.syntax"]),
]


def said_in_every_language(message: Any) -> None:
    for lang in LANGS:
        assert untranslated(message, lang) == [], (str(message), lang)
        assert i18n.say(message, lang) != str(message), (str(message), lang)


@pytest.mark.parametrize(("text", "codes"), BROKEN)
def test_a_broken_text_is_refused_in_every_language(text: str, codes: list[str]) -> None:
    errors = [error for match in read_text(text) for error in match.errors]
    assert [error.code for error in errors] == codes
    for error in errors:
        said_in_every_language(error.message)


@pytest.mark.parametrize("deck", ["french", "spanish", "cabo"])
def test_a_card_that_cannot_stand_there_is_said_in_every_language(deck: str) -> None:
    said_in_every_language(card_problem("??", deck))
    said_in_every_language(card_problem("1x", deck))


def test_archive_lines_are_refused_in_every_language() -> None:
    lines = ['{"match":"q3Xk9aB7_-Zp","seq":"2"}', '{"match":"n","seq":1,', "[1]", '{"seq":1}', '{"match":"bad-id"}']
    _, errors = read_archive(lines)
    assert [e.code for e in errors] == [
        "archive.bad_envelope",
        "archive.bad_json",
        "archive.bad_envelope",
        "archive.bad_envelope",
        "archive.bad_match_id",
    ]
    for error in errors:
        if error.code == "archive.bad_json":  # the JSON reader's own reason stays as it said it
            assert str(error.message).startswith("this line is not JSON: ")
            assert i18n.say(error.message, "de").startswith("diese Zeile ist kein JSON: ")
            continue
        said_in_every_language(error.message)


def test_the_report_counts_are_said_in_every_language() -> None:
    assert more_errors_said(1234) == (
        "1,234 more errors were found and not listed: a report lists the first 100 in the file; correct those "
        "and import the file again to see the next ones"
    )
    assert i18n.say(more_errors_said(1234), "de").startswith("1.234 weitere Fehler wurden gefunden")
    assert i18n.say(more_errors_said(1), "es").startswith("se ha encontrado 1 error más")
    said_in_every_language(unread_said(2000, 1001))
    assert "2.000" in i18n.say(unread_said(2000, 1001), "ca")


def test_a_position_that_does_not_exist_is_said_in_every_language() -> None:
    positions = [Position(2, 1, 0), Position(3, 1, 1)]
    for where in ({"hand": 4}, {"hand": 1, "move": 9}, {"hand": 1, "trick": 2}):
        with pytest.raises(AddressError) as refused:
            locate(positions, **where)
        said_in_every_language(refused.value.message)


# --------------------------------------------------------------------------- the schemas' words


BAD_EVENTS = [
    ("cabo", "draw", {"seat": "one"}, "$.seat"),
    ("cabo", "draw", {}, "$.seat"),
    ("cabo", "discard", {"seat": 0, "card": "14"}, "$.card"),
    ("la-cabra", "lead", {"seat": 0, "cards": ["9H", "XX"]}, "$.cards[1]"),
    ("cabo", "draw", {"seat": 0, "colour": "red"}, "$.colour"),
    ("cau-robat", "match_started", {"game": "cau-robat", "players": ["A"]}, "$.players"),
    ("cabo", "void", {"target": 0, "reason": "x"}, "$.target"),
]


@pytest.mark.parametrize(("game", "kind", "data", "path"), BAD_EVENTS)
def test_a_schema_error_is_said_in_every_language(game: str, kind: str, data: dict[str, Any], path: str) -> None:
    with pytest.raises(SchemaError) as refused:
        validate_event(game, kind, data)
    error = refused.value
    assert error.code == "schema.invalid" and error.path == path
    said_in_every_language(error.message)
    for entry in error.errors:
        said_in_every_language(entry["message"])


def test_several_schema_errors_are_counted_in_every_language() -> None:
    with pytest.raises(SchemaError) as refused:
        validate_event("la-cabra", "lead", {"seat": "x", "cards": ["1H", "XX"], "eggs": 1})
    message = refused.value.message
    assert str(message).endswith("(and 3 more errors)")
    said_in_every_language(message)
    assert i18n.say(message, "de").endswith("(und 3 weitere Fehler)")


def test_an_unknown_game_or_event_is_said_in_every_language() -> None:
    for game, kind in (("chess", "move"), ("cabo", "castle")):
        with pytest.raises(SchemaError) as refused:
            validate_event(game, kind, {})
        said_in_every_language(refused.value.message)


def test_a_strict_value_is_refused_in_every_language() -> None:
    for text in ("12x", "99999999999", "1" * 30):
        with pytest.raises(NotAccepted) as refused:
            whole_number(text, what="seq", highest=1_000_000)
        said_in_every_language(refused.value.message)
    with pytest.raises(NotAccepted) as refused:
        whole_number("2000000", what="seq", highest=1_000_000)
    assert str(refused.value.message) == "seq must be a whole number from 0 to 1,000,000; got a number 2000000"
    assert "1.000.000" in i18n.say(refused.value.message, "de")


# --------------------------------------------------------------------------- through the API


def test_an_import_refusal_reads_in_the_language_asked() -> None:
    """A file the API refuses whole: the same codes, lines and columns in every language; no line's
    message left in English."""
    client = create_app({"TANTEO_DB": "memory:"}).test_client(use_cookies=False)
    text = "2. play seat=0 card=7o\n{ never closed\n".encode()

    def errors(lang: str) -> list[dict[str, Any]]:
        answer = client.post(f"/matches/import?lang={lang}", data=text, headers={"Content-Type": "text/plain"})
        assert answer.status_code == 422 and answer.headers["Content-Language"] == lang
        return list(answer.get_json()["errors"])

    english = errors("en")
    assert english and {e["code"] for e in english} == {"notation.no_tags", "notation.syntax"}
    for lang in LANGS:
        other = errors(lang)
        assert [(e["line"], e["column"], e["code"]) for e in other] == [
            (e["line"], e["column"], e["code"]) for e in english
        ]
        assert english_left(english, other, lang) == [], lang
        assert all(a["message"] != b["message"] for a, b in zip(english, other))
