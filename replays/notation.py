"""The portable text notation (``.tnt``): a match as a person reads and writes it, like PGN.

Grammar and examples: ``docs/NOTATION.md``. In short::

    [Game "la-cabra"]
    [Players "North" "East" "South" "West"]
    [Options ()]
    [Head "9f3c…"]

    ; hand 1
    2. hand_started dealer=3
    3. hand_result cardPoints=[72 48] tricks=[5 2] lastTrick=0
    4. note target=3 {East miscounted}

Tag pairs carry the ``match_started`` data (``Game``, ``Players`` and one tag per other
field, named with a capital first letter) and the exported match's ``Head`` hash; then one
line per event: its seq, its type and its fields as ``name=value``. A value is a card or word
(``7o``, ``QS``, ``??``, ``share``), an integer, ``true``/``false``/``null``, a quoted string,
a list ``[a b c]`` or an object ``(name=value …)``. A note's text may be written ``{…}``.

Exporting is strict: one spelling per match (keys sorted with ``seat`` first, cards as the
vocabulary prints them, strings quoted only when they must be), so exporting an imported text
gives the same bytes. Importing is lenient: any whitespace, card letters in any case,
``; comments`` to the end of a line and ``{comments}`` anywhere (on a ``note`` line the
braces hold its text), event numbers optional. What cannot be read is reported by line and
column and the match's events stop before it; the caller checks the rest with the rules.

Pure functions over text and JSON values; no Flask, no database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from schemas import SchemaError, validate_event
from schemas.strict import NUL, nul_message
from replays.lines import MAX_LINE
from engines.said import Said
from engines.written import grouped

# --------------------------------------------------------------------------- decks

_FRENCH = re.compile(r"(A|[2-9]|10|J|Q|K)[CDHS]", re.IGNORECASE)
_SPANISH = re.compile(r"([1-7]|1[0-2])[OCEB]", re.IGNORECASE)


def deck_of(start: Mapping[str, Any]) -> str:
    """Return the card notation a match uses: ``french``, ``spanish`` or ``cabo`` (VOCABULARY.md §3)."""
    game = start.get("game")
    if game == "cau-robat":
        return "spanish"
    if game == "cabo":
        return "cabo"
    if game == "kabu":
        options = start.get("options")
        if isinstance(options, Mapping) and options.get("deck") == "spanish40":
            return "spanish"
    return "french"


def normal_card(word: str, deck: str) -> str:
    """Return a card word in the vocabulary's spelling (``7O`` → ``7o``, ``qs`` → ``QS``); other words unchanged."""
    if deck == "spanish" and _SPANISH.fullmatch(word):
        return word[:-1] + word[-1].lower()
    if deck == "french" and _FRENCH.fullmatch(word):
        return word.upper()
    return word


def card_problem(value: Any, deck: str) -> str | None:
    """Say why a word written where a card goes is not one of this deck's cards (None: not card-like)."""
    if not isinstance(value, str) or not value or len(value) > 6 or " " in value:
        return None
    if value == "??":
        return Said("an unseen card (??) cannot stand here: this place needs the card itself")
    if deck == "cabo":
        return Said("%(value)s is not a Cabo card: write its value, 0 to 13 (or ?? for an unseen card)", value=value)
    if deck == "spanish":
        return Said(
            "%(value)s is not a card: write the rank (1 to 7, 10, 11 or 12) and the suit (o oros, c copas, "
            "e espadas, b bastos), like 7o or 12b, or ?? for an unseen card",
            value=value,
        )
    return Said(
        "%(value)s is not a card: write the rank (A, 2 to 10, J, Q or K) and the suit (C, D, H or S), "
        "like 10H or QS, or ?? for an unseen card",
        value=value,
    )


# --------------------------------------------------------------------------- writing

_BARE = re.compile(r"[A-Za-z0-9?][A-Za-z0-9?_+\-]*")
_INTEGER = re.compile(r"-?[0-9]+")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS = frozenset({"true", "false", "null"})
_TAG_ORDER = ("game", "players", "teams", "target", "options", "initial", "title", "date", "place", "tags")


def _string(text: str, deck: str) -> str:
    if _BARE.fullmatch(text) and text not in _WORDS and normal_card(text, deck) == text:
        return text
    return json.dumps(text, ensure_ascii=False)


def write_value(value: Any, deck: str) -> str:
    """Write one JSON value in the notation (strict: one spelling per value)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value, deck)
    if isinstance(value, list):
        return "[" + " ".join(write_value(v, deck) for v in value) + "]"
    if isinstance(value, Mapping):
        return "(" + " ".join(_field(k, v, deck) for k, v in _ordered(value)) + ")"
    return json.dumps(value)


def _ordered(data: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``seat`` first (who acts), then the other fields by name."""
    return sorted(data.items(), key=lambda kv: (kv[0] != "seat", kv[0]))


def _field(key: str, value: Any, deck: str) -> str:
    name = key if _KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)
    return f"{name}={write_value(value, deck)}"


def _tag_name(key: str) -> str:
    return key[:1].upper() + key[1:]


def write_text(start: Mapping[str, Any], events: Sequence[tuple[int, str, Mapping[str, Any]]], head: str) -> str:
    """Write a match: its tags (from ``match_started``, then ``Head``) and one line per later event.

    ``events`` are ``(seq, type, data)`` from seq 2 on, as stored (corrections included).
    """
    deck = deck_of(start)
    lines = []
    keys = [k for k in _TAG_ORDER if k in start] + sorted(k for k in start if k not in _TAG_ORDER)
    for key in keys:
        value = start[key]
        if key == "players" and isinstance(value, list):
            lines.append("[Players " + " ".join(json.dumps(p, ensure_ascii=False) for p in value) + "]")
        elif isinstance(value, str):
            lines.append(f"[{_tag_name(key)} {json.dumps(value, ensure_ascii=False)}]")
        else:
            lines.append(f"[{_tag_name(key)} {write_value(value, deck)}]")
    lines.append(f'[Head "{head}"]')
    hand = 0
    for seq, kind, data in events:
        if kind == "hand_started":
            hand += 1
            lines.extend(["", f"; hand {hand}"])
        lines.append(f"{seq}. {_event_line(kind, data, deck)}")
    return "\n".join(lines) + "\n"


IRREGULAR_FLAG = "irregular"
"""The word that opens the ``{irregular …}`` flag after a move the rules refuse, recorded as played."""


def _event_line(kind: str, data: Mapping[str, Any], deck: str) -> str:
    if kind == IRREGULAR_FLAG and isinstance(data.get("move"), Mapping):
        # The move as played, then the flag: a reader of today's files skips {…} and meets the
        # move itself, which its rules refuse by line (never scored as if it were legal). The
        # rule is left out: the service derives it again from the rules on import.
        flags = [_field(k, v, deck).replace("}", "\\u007d") for k, v in _ordered(data) if k not in ("move", "rule")]
        move = data["move"]
        return " ".join([_event_line(str(move["type"]), move["data"], deck), "{" + " ".join([kind, *flags]) + "}"])
    text = data.get("text") if kind == "note" else None
    if (
        isinstance(text, str)
        and text
        and text == text.strip()
        and "}" not in text
        and "{" not in text
        and "\n" not in text
    ):
        rest = [_field(k, v, deck) for k, v in _ordered(data) if k != "text"]
        return " ".join([kind, *rest, "{" + text + "}"])
    return " ".join([kind, *(_field(k, v, deck) for k, v in _ordered(data))])


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class NotationError:
    """A place in the text that could not be read (or that the rules refused)."""

    line: int
    column: int
    code: str
    message: str


@dataclass
class Written:
    """One event as written: where it is, its type and data, and the column of each value."""

    line: int
    column: int
    type: str
    data: dict[str, Any]
    columns: dict[str, int] = field(default_factory=dict)
    """JSON path (``$.cards[1]``) → column of the value written there."""
    bare: dict[str, str] = field(default_factory=dict)
    """JSON path → the word as written, for every unquoted word read as a number or true/false/null."""
    number: int | None = None


@dataclass
class TextMatch:
    """One match of a text file as read: its ``match_started`` data, events and reading errors."""

    line: int
    """The line of its first tag."""
    start: dict[str, Any] = field(default_factory=dict)
    start_columns: dict[str, int] = field(default_factory=dict)
    start_bare: dict[str, str] = field(default_factory=dict)
    start_lines: dict[str, int] = field(default_factory=dict)
    """JSON path into ``match_started`` → the line of the tag that wrote it."""
    events: list[Written] = field(default_factory=list)
    errors: list[NotationError] = field(default_factory=list)
    last_line: int = 0
    broken_at: int | None = None
    """The index in ``events`` where reading stopped being trustworthy (a line that could not be read)."""


class _Syntax(Exception):
    def __init__(self, line: int, column: int, message: str, code: str = "notation.syntax") -> None:
        super().__init__(message)
        self.line, self.column, self.message, self.code = line, column, message, code


NOT_NOTATION = "notation.not_notation"
"""The code of the error that ends the reading of a file with no match tags in its first
:data:`MAX_SPAN_LINES` lines: what follows is counted by an import, not read."""


class _Unclosed(_Syntax):
    """A ``{`` comment not closed by the end of the text read so far (the next line may close it)."""


MAX_TEXT_LINE = MAX_LINE // 4
"""The longest line of the text notation, in characters (a line cut at ``MAX_LINE`` bytes is longer)."""

MAX_SPAN_LINES = 1_000
"""The most lines a ``{ comment }``, a list or object, or an event continued by ``name=`` lines
may run over: past it, the text is taken as broken there (a reader keeps such a statement whole)."""

MAX_TEXT_EVENTS = 50_000
"""The most events one match of a text file may hold (a long evening is a few thousand): the
events of a match are kept until its end is read, so a file of one endless match is refused there."""


class _Token(NamedTuple):
    """One token (a named tuple: immutable like the frozen dataclass it was, and made several
    times faster, which a 20 MB import of junk lines counts in millions)."""

    kind: str  # word, string, open, close, lparen, rparen, eq, brace, newline, end
    text: str
    line: int
    column: int


_SPECIAL = set('[]()="{};')


def _tokens(text: str, line: int = 1, end: bool = True) -> Iterator[_Token]:
    column, i, n = 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            yield _Token("newline", ch, line, column)
            line, column, i = line + 1, 1, i + 1
        elif ch.isspace() or ch == "\ufeff":
            i, column = i + 1, column + 1
        elif ch == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif ch == "{":
            start_line, start_col = line, column
            j = text.find("}", i + 1)
            if j < 0:
                raise _Unclosed(line, column, Said("this { comment is never closed with }"))
            body = text[i + 1 : j]
            yield _Token("brace", body, start_line, start_col)
            newlines = body.count("\n")
            if newlines:
                line += newlines
                column = len(body) - body.rfind("\n") + 1
            else:
                column += len(body) + 2
            i = j + 1
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != '"':
                raise _Syntax(line, column, Said('this string is never closed with "'))
            try:
                value = json.loads(text[i : j + 1])
            except ValueError:
                raise _Syntax(
                    line, column, Said('this string has a bad escape (write \\" for a quote, \\\\ for a backslash)')
                ) from None
            if NUL in value:  # written as the escape \u0000: PostgreSQL cannot store it
                raise _Syntax(line, column, nul_message(Said("this string")))
            yield _Token("string", value, line, column)
            column += j + 1 - i
            i = j + 1
        elif ch in "[]()=":
            yield _Token({"[": "open", "]": "close", "(": "lparen", ")": "rparen", "=": "eq"}[ch], ch, line, column)
            i, column = i + 1, column + 1
        elif ch == "}":
            raise _Syntax(line, column, Said("a } without its {"))
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in _SPECIAL:
                j += 1
            yield _Token("word", text[i:j], line, column)
            column += j - i
            i = j
    if end:
        yield _Token("end", "", line, column)


def _streamed_tokens(lines: Iterable[str], broken: list[_Syntax]) -> Iterator[_Token]:
    """Tokenize lines as they come: each line (or the lines a ``{ comment }`` runs over) at once.

    The first line that cannot be read ends the tokens there, as if the text ended before it
    (what :func:`read_text` always did: read what comes before it, report it); its error is
    put in ``broken``.
    """
    number = 0
    held: list[str] = []  # the lines of a { comment } still open
    first = 0
    for text in lines:
        number += 1
        at = text.find(NUL)
        if at >= 0:
            broken.append(_Syntax(number, at + 1, nul_message(Said("this line"))))
            held = []
            break
        if len(text) > MAX_TEXT_LINE:
            broken.append(
                _Syntax(
                    number,
                    1,
                    Said(
                        "this line is longer than %(most)s characters, far more than any event needs: it was not read",
                        most=grouped(MAX_TEXT_LINE),
                    ),
                )
            )
            held = []
            break
        if not held:
            first = number
        held.append(text)
        try:
            tokens = list(_tokens("\n".join(held) + "\n", first, end=False))
        except _Unclosed as unclosed:
            if len(held) < MAX_SPAN_LINES:
                continue  # the next line may close it
            broken.append(unclosed)
            held = []
            break
        except _Syntax as error:
            broken.append(error)
            held = []
            break
        held = []
        yield from tokens
    if held:  # the text ended inside a { comment }
        try:
            list(_tokens("\n".join(held) + "\n", first, end=False))
        except _Syntax as error:
            broken.append(error)
    yield _Token("end", "", number + 1, 1)


def _path(base: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if _KEY.fullmatch(key) else f"{base}[{json.dumps(key, ensure_ascii=False)}]"


class _Reader:
    """Reads values from a token stream, recording each value's column by its JSON path."""

    def __init__(self, tokens: list[_Token], deck: str) -> None:
        self.tokens, self.i, self.deck = tokens, 0, deck
        self.columns: dict[str, int] = {}
        self.bare: dict[str, str] = {}

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def skip_newlines(self) -> None:
        while self.peek().kind in ("newline", "brace"):
            self.i += 1

    def value(self, path: str) -> Any:
        token = self.take()
        self.columns[path] = token.column
        if token.kind == "string":
            return token.text
        if token.kind == "word":
            word = token.text
            if word in _WORDS:
                self.bare[path] = word
                return {"true": True, "false": False, "null": None}[word]
            if _INTEGER.fullmatch(word):
                self.bare[path] = word
                return int(word)
            return normal_card(word, self.deck)
        if token.kind == "open":
            items: list[Any] = []
            while True:
                self.skip_newlines()
                if self.peek().kind == "close":
                    self.take()
                    return items
                if self.peek().kind == "end":
                    raise _Syntax(token.line, token.column, Said("this [ list is never closed with ]"))
                items.append(self.value(_path(path, len(items))))
        if token.kind == "lparen":
            obj: dict[str, Any] = {}
            while True:
                self.skip_newlines()
                if self.peek().kind == "rparen":
                    self.take()
                    return obj
                if self.peek().kind == "end":
                    raise _Syntax(token.line, token.column, Said("this ( object is never closed with )"))
                key, value = self.field(path)
                obj[key] = value
        raise _Syntax(token.line, token.column, Said("a value was expected here, not %(found)s", found=_shown(token)))

    def field(self, path: str) -> tuple[str, Any]:
        name = self.take()
        if name.kind not in ("word", "string"):
            raise _Syntax(
                name.line, name.column, Said("a field name=value was expected here, not %(found)s", found=_shown(name))
            )
        eq = self.take()
        if eq.kind != "eq":
            raise _Syntax(name.line, name.column, Said("write %(name)s=value (the = is missing)", name=name.text))
        return name.text, self.value(_path(path, name.text))


def _shown(token: _Token) -> str:
    if token.kind == "newline":
        return Said("the end of the line")
    if token.kind == "end":
        return Said("the end of the file")
    return token.text


def read_text(text: str | Iterable[str]) -> list[TextMatch]:
    """Read a text file into its matches (lenient: see the module docstring).

    Errors are kept per match with their line and column; a match whose tags cannot be read
    has no ``start``. Each event's shape is checked against its JSON Schema here (numbers
    written where a string is expected, like Cabo's ``card=5``, are read as strings).
    ``text`` is the whole text or its lines (without their line ends): see :func:`iter_text`.
    """
    return list(iter_text(text))


def iter_text(text: str | Iterable[str]) -> Iterator[TextMatch]:
    """Yield the matches of a text file one by one, reading its lines only as far as each needs.

    What a file costs to read is what its longest match holds (up to :data:`MAX_TEXT_EVENTS`
    events), never its size: the lines are tokenized as they come and each match is handed
    on once the next one starts. A line that cannot be read (an unclosed string or comment, a
    NUL character, a line or a statement too long) ends the text there: the matches before it
    are read, the last one takes the error.
    """
    if isinstance(text, str):
        text = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    broken: list[_Syntax] = []
    yield from _matches(_streamed_tokens(text, broken), broken)


def _lines(tokens: Iterable[_Token], broken: list[_Syntax]) -> Iterator[list[_Token]]:
    """Split tokens into logical lines (a list or object may run over several lines, up to
    :data:`MAX_SPAN_LINES`: past it, ``broken`` takes the error and the tokens end there)."""
    current: list[_Token] = []
    depth = 0
    for token in tokens:
        if depth and token.line - current[0].line >= MAX_SPAN_LINES:
            opened = next(t for t in current if t.kind in ("open", "lparen"))
            broken.append(
                _Syntax(
                    opened.line,
                    opened.column,
                    Said(
                        "this %(bracket)s is not closed within %(most)s lines",
                        bracket=opened.text,
                        most=grouped(MAX_SPAN_LINES),
                    ),
                )
            )
            return
        if token.kind in ("open", "lparen"):
            depth += 1
        elif token.kind in ("close", "rparen"):
            depth = max(0, depth - 1)
        if token.kind == "newline" and depth == 0:
            if current:
                yield current
            current = []
        elif token.kind == "end":
            break
        else:
            current.append(token)
    if current:
        yield current


def _statements(tokens: Iterable[_Token], broken: list[_Syntax]) -> Iterator[list[_Token]]:
    """Join logical lines into statements: a line that starts with ``name=`` continues the event
    above (up to :data:`MAX_SPAN_LINES` lines: past it, ``broken`` takes the error)."""
    pending: list[_Token] | None = None
    for line in _lines(tokens, broken):
        if all(t.kind == "brace" for t in line):
            continue  # a comment on its own
        words = [t for t in line if t.kind != "brace"]
        continues = len(words) > 1 and words[0].kind == "word" and words[1].kind == "eq"
        if continues and pending is not None:
            if line[0].line - pending[0].line >= MAX_SPAN_LINES:
                broken.append(
                    _Syntax(
                        pending[0].line,
                        pending[0].column,
                        Said("this event is continued over more than %(most)s lines", most=grouped(MAX_SPAN_LINES)),
                    )
                )
                return
            pending.extend(line)
            continue
        if pending is not None:
            yield pending
        pending = list(line)
    if pending is not None:
        yield pending


def _matches(tokens: Iterable[_Token], unread: list[_Syntax]) -> Iterator[TextMatch]:
    match: TextMatch | None = None
    in_events = False
    orphan = False  # the lines before the file's first tag: none of them can be imported
    for line in _statements(tokens, unread):
        first = next(t for t in line if t.kind != "brace")
        if orphan and first.line - match.line >= MAX_SPAN_LINES:  # type: ignore[union-attr]
            # not the notation at all (20 MB of it took 11 s to tokenize before it was refused):
            # the reading ends here, as at a line that cannot be read
            unread.append(
                _Syntax(
                    first.line,
                    first.column,
                    Said(
                        'no match tags ([Game "…"]) in the first %(most)s lines: this is not '
                        "Tanteo's text notation, and the file was not read from here on",
                        most=grouped(MAX_SPAN_LINES),
                    ),
                    NOT_NOTATION,
                )
            )
            break
        is_tag = (
            first.kind == "open"
            and line[line.index(first) + 1 :][:1] != []
            and line[line.index(first) + 1].kind == "word"
            and line[line.index(first) + 1].text[:1].isupper()
        )
        if is_tag and (match is None or in_events):
            if match is not None:
                yield match
            match, in_events, orphan = TextMatch(line=first.line), False, False
        if match is None:
            match = TextMatch(line=first.line)
            match.errors.append(
                NotationError(
                    first.line,
                    first.column,
                    "notation.no_tags",
                    Said('a match starts with its tags: [Game "…"] and [Players "…" "…"]'),
                )
            )
            match.broken_at = 0
            orphan = True
        match.last_line = max(t.line for t in line)
        if is_tag:
            _tag(match, [t for t in line if t.kind != "brace"])
            continue
        in_events = True
        if match.broken_at is not None:
            continue
        if len(match.events) >= MAX_TEXT_EVENTS:
            match.errors.append(
                NotationError(
                    first.line,
                    first.column,
                    "notation.too_many_events",
                    Said(
                        "a match of a text file holds at most %(most)s events: "
                        "this one was not read from here on (import it as an archive)",
                        most=grouped(MAX_TEXT_EVENTS),
                    ),
                )
            )
            match.broken_at = len(match.events)
            continue
        try:
            match.events.append(_event(line, deck_of(match.start)))
        except _Syntax as broken:
            match.errors.append(NotationError(broken.line, broken.column, "notation.syntax", broken.message))
            match.broken_at = len(match.events)
    for error in unread:  # the text ended at a line that could not be read: the last match takes it
        found = NotationError(error.line, error.column, error.code, error.message)
        if match is None:
            match = TextMatch(line=error.line, errors=[found], broken_at=0)
        else:
            match.errors.append(found)
            match.broken_at = len(match.events) if match.broken_at is None else match.broken_at
    if match is not None:
        yield match


def _tag(match: TextMatch, line: list[_Token]) -> None:
    name = line[1].text
    key = name[:1].lower() + name[1:]
    tokens = [t for t in line[2:] if t.kind != "brace"]
    if not tokens or tokens[-1].kind != "close":
        match.errors.append(
            NotationError(
                line[0].line,
                line[0].column,
                "notation.syntax",
                Said("the tag [%(tag)s …] is not closed with ]", tag=name),
            )
        )
        match.broken_at = 0 if match.broken_at is None else match.broken_at
        return
    body = tokens[:-1]
    if key == "head":
        return  # the exported match's head: informational, the imported match has its own
    reader = _Reader([*body, _Token("end", "", line[0].line, line[0].column)], deck_of(match.start))
    try:
        if key == "players":
            value: Any = []
            while reader.peek().kind != "end":
                value.append(reader.value(_path(f"$.{key}", len(value))))
        else:
            value = reader.value(f"$.{key}")
            if reader.peek().kind != "end":
                extra = reader.peek()
                raise _Syntax(
                    extra.line, extra.column, Said("the tag [%(tag)s …] holds one value; put a list in [ ]", tag=name)
                )
    except _Syntax as broken:
        match.errors.append(NotationError(broken.line, broken.column, "notation.syntax", broken.message))
        match.broken_at = 0
        return
    if key in match.start:
        match.errors.append(
            NotationError(
                line[0].line,
                line[0].column,
                "notation.duplicate_tag",
                Said("the tag [%(tag)s] is given twice", tag=name),
            )
        )
        match.broken_at = 0
    match.start[key] = value
    match.start_columns.update(reader.columns)
    match.start_lines.update({path: line[0].line for path in reader.columns})
    match.start_bare.update(reader.bare)


def _event(line: list[_Token], deck: str) -> Written:
    tokens = [t for t in line if t.kind != "brace"]
    braces = [t for t in line if t.kind == "brace"]
    reader = _Reader([*tokens, _Token("end", "", line[-1].line, line[-1].column + 1)], deck)
    number = None
    head = reader.peek()
    if head.kind == "word" and head.text.endswith(".") and head.text[:-1].isdigit():
        reader.take()
        number = int(head.text[:-1])
        head = reader.peek()
    if head.kind != "word" or not re.fullmatch(r"[a-z][a-z0-9_]*", head.text.lower()):
        raise _Syntax(
            head.line,
            head.column,
            Said("an event type (play, hand_started …) was expected here, not %(found)s", found=_shown(head)),
        )
    reader.take()
    kind = head.text.lower()
    data: dict[str, Any] = {}
    while reader.peek().kind != "end":
        key, value = reader.field("$")
        if key in data:
            raise _Syntax(head.line, head.column, Said("the field %(field)s is written twice", field=key))
        data[key] = value
    flag = next((b for b in braces if re.match(r"\s*irregular(\s|$)", b.text)), None)
    if flag is not None:
        return _irregular(head, kind, data, flag, reader, number, deck)
    if kind == "note" and braces and "text" not in data:
        data["text"] = braces[-1].text.strip()
        reader.columns["$.text"] = braces[-1].column
    return Written(head.line, head.column, kind, data, reader.columns, reader.bare, number)


def _irregular(
    head: _Token, kind: str, move: dict[str, Any], flag: _Token, reader: _Reader, number: int | None, deck: str
) -> Written:
    """Read a move flagged ``{irregular hand=… reason=…}``: an ``irregular`` event holding it."""
    body = flag.text.lstrip()[len(IRREGULAR_FLAG) :]
    flags = _Reader(list(_tokens(body, flag.line)), deck)
    data: dict[str, Any] = {"move": {"type": kind, "data": move}}
    while flags.peek().kind not in ("end", "newline"):
        key, value = flags.field("$")
        data[key] = value
    inner = {"$.move.data" + path[1:]: v for path, v in reader.columns.items()}
    bare = {"$.move.data" + path[1:]: v for path, v in reader.bare.items()}
    return Written(
        head.line, head.column, IRREGULAR_FLAG, data, {**inner, **flags.columns}, {**bare, **flags.bare}, number
    )


# --------------------------------------------------------------------------- shapes


def coerce(game: str | None, kind: str, data: Any, bare: Mapping[str, str]) -> Any:
    """Read words written bare as strings where the event's schema wants a string (Cabo's ``card=5``).

    Returns the data with those values replaced; the schema check itself is left to the caller.
    An irregular's move is read against its own type's schema.
    """
    if kind == IRREGULAR_FLAG and isinstance(data, dict) and isinstance(data.get("move"), dict):
        move = data["move"]
        inner = {"$" + p[len("$.move.data") :]: w for p, w in bare.items() if p.startswith("$.move.data")}
        return {**data, "move": {**move, "data": coerce(game, str(move.get("type")), move.get("data"), inner)}}
    for _ in range(8):
        try:
            validate_event(game, kind, data)
            return data
        except SchemaError as error:
            paths = [e["path"] for e in error.errors]
        changed = False
        for path in paths:
            for candidate in _prefixes_at(path, bare):
                value = _get(data, candidate)
                if value is not _MISSING and not isinstance(value, str):
                    data = _set(data, candidate, bare[candidate])
                    changed = True
        if not changed:
            return data
    return data


def _prefixes_at(path: str, bare: Mapping[str, str]) -> list[str]:
    """Bare words at ``path`` or below it (an error may be reported at a list that holds them)."""
    return [p for p in bare if p == path or p.startswith(path + ".") or p.startswith(path + "[")]


_MISSING = object()
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


def _steps(path: str) -> list[str | int]:
    out: list[str | int] = []
    for m in _STEP.finditer(path[1:]):
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(int(m.group(2)))
        else:
            out.append(json.loads(m.group(3)))
    return out


def value_at(data: Any, path: str) -> Any:
    """Return the value at a JSON path (``$.cards[1]``) in ``data``, or None when there is none."""
    found = _get(data, path)
    return None if found is _MISSING else found


def _get(data: Any, path: str) -> Any:
    for step in _steps(path):
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return data


def _set(data: Any, path: str, value: Any) -> Any:
    steps = _steps(path)
    if not steps:
        return value

    def put(node: Any, rest: list[str | int]) -> Any:
        if not rest:
            return value
        copy = list(node) if isinstance(node, list) else dict(node)
        copy[rest[0]] = put(node[rest[0]], rest[1:])  # type: ignore[index]
        return copy

    return put(data, steps)


def column_of(path: str, columns: Mapping[str, int], default: int) -> int:
    """Return the column of the value at ``path`` (or of the nearest enclosing one written)."""
    while True:
        if path in columns:
            return columns[path]
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return default
        path = path[:cut]
