"""The text notation's reader and writer on their own: lenient reading, strict writing, errors by place."""

from __future__ import annotations

import pytest

from replays.archive import read_archive
from replays.notation import normal_card, read_text, write_text, write_value


def test_lenient_reading_of_case_whitespace_comments_numbers_and_continued_lines() -> None:
    text = (
        '[Game "la-cabra"]   ; the game\n'
        '[Players "North" "East"\t"South" "West"]\n'
        "{ a comment\n  over two lines }\n"
        "hand_started  dealer=0 trump=qs\n"
        "   hands=[[?? ?? ?? ??] [?? ?? ?? ??]\n"
        "          [?? ?? ?? ??] [?? ?? ?? ??]]\n"
        "3. LEAD seat=0 cards=[9h Kh] {led high}\n"
        "note target=3 {  North hesitated  }\n"
    )
    (match,) = read_text(text)
    assert match.errors == [] and match.start == {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
    deal, lead, note = match.events
    assert (deal.line, deal.data["trump"], len(deal.data["hands"])) == (5, "QS", 4)
    assert (lead.type, lead.number, lead.data) == ("lead", 3, {"seat": 0, "cards": ["9H", "KH"]})
    assert lead.columns["$.cards[1]"] == text.splitlines()[7].index("Kh") + 1
    assert note.data == {"target": 3, "text": "North hesitated"}


def test_errors_name_line_and_column_and_stop_the_prefix() -> None:
    text = '[Game "cabo"]\n[Players "A" "B"]\n2. hand_started dealer=0\n3. draw seat=1 card\n4. draw seat=0\n'
    (match,) = read_text(text)
    assert [(e.line, e.column, e.code) for e in match.errors] == [(4, 16, "notation.syntax")]
    assert "=" in match.errors[0].message and match.broken_at == 1 and len(match.events) == 1
    unclosed = read_text('[Game "cabo"]\n[Players "A" "B"]\n2. hand_started dealer=0 layouts=[[1 2]\n')
    assert [(e.line, e.column) for e in unclosed[0].errors] == [(3, 34)]
    no_tags = read_text("2. play seat=0 card=7o\n")
    assert [e.code for e in no_tags[0].errors] == ["notation.no_tags"]


def test_two_matches_in_one_file() -> None:
    text = '[Game "cabo"]\n[Players "A" "B"]\n2. hand_started dealer=0\n\n[Game "kabu"]\n[Players "C" "D"]\n'
    first, second = read_text(text)
    assert (first.line, first.last_line, second.line, second.start["game"]) == (1, 3, 5, "kabu")


def test_strict_writing_quotes_only_what_would_read_back_otherwise() -> None:
    assert (
        write_value(["7o", "??", "ah", "true", "5", "two words", ""], "french")
        == '[7o ?? "ah" "true" 5 "two words" ""]'
    )
    assert write_value({"seat": 2, "card": "QS", "b": None}, "french") == "(seat=2 b=null card=QS)"
    assert (
        normal_card("7O", "spanish") == "7o"
        and normal_card("qs", "french") == "QS"
        and normal_card("qs", "spanish") == "qs"
    )
    text = write_text({"game": "cabo", "players": ["Anna", "Ben"]}, [(2, "note", {"text": "a } brace"})], "ab" * 32)
    assert text.splitlines()[-1] == '2. note text="a } brace"'


def test_archive_lines_name_their_place() -> None:
    good = (
        '{"match":"q3Xk9aB7_-Zp","seq":1,"type":"match_started","data":{},"at":"2026-11-21T17:03:05.123Z","by":"",'
        '"key":null,"prev":"' + "0" * 64 + '","hash":"' + "a" * 64 + '","format":2}'
    )
    matches, errors = read_archive([good, "", '{"match":"q3Xk9aB7_-Zp","seq":"2"}', '{"match":"n","seq":1,', "[1]"])
    assert [(m.id, m.lines) for m in matches] == [("q3Xk9aB7_-Zp", (1,))]
    assert [(e.line, e.code, e.match) for e in errors] == [
        (3, "archive.bad_envelope", "q3Xk9aB7_-Zp"),
        (4, "archive.bad_json", "n"),
        (5, "archive.bad_envelope", None),
    ]
    assert errors[1].column == 22


@pytest.mark.parametrize("deck", ["french", "spanish", "cabo"])
def test_an_unseen_card_where_a_card_is_needed_is_refused_without_contradicting_itself(deck: str) -> None:
    """'?? is not a card: write … or ?? for an unseen card' told the reader to write what it refused."""
    from replays.notation import card_problem

    said = card_problem("??", deck)
    assert said is not None and "unseen card (??) cannot stand here" in said and "or ??" not in said
    assert "or ?? for an unseen card" in (card_problem("1x", deck) or "")
