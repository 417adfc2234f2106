"""Helpers shared by the ledger tests (a module of its own: ``conftest`` is not importable
reliably when several test folders have one)."""

from __future__ import annotations

from collections.abc import Sequence

from ledger import AppendResult, Ledger, NewEvent


def start(
    book: Ledger,
    match_id: str = "m1",
    *,
    game: str = "cabo",
    players: Sequence[str] = ("Anna", "Ben", "Carl"),
    by: str = "scorer",
) -> AppendResult:
    """Create a match whose first event is a ``match_started`` like the service writes."""
    return book.create_match(
        match_id,
        game=game,
        players=players,
        token_hash="sha256:" + "ab" * 32,
        first=NewEvent("match_started", {"game": game, "players": list(players)}),
        by=by,
    )


def plays(*cards: str, seat: int = 0) -> list[NewEvent]:
    """One ``play`` event per card, seats taking turns from ``seat``."""
    return [NewEvent("play", {"seat": (seat + i) % 3, "card": card}) for i, card in enumerate(cards)]
