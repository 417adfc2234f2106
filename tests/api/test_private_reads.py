"""Hidden cards stay hidden from open reads of a match in play, in all five games.

Every open read (the list of matches, the summary, the event listing, the state and the replay for every seat
parameter and step, the legal moves, the audit) is fetched without the write token and its
whole body searched for each private value (as written, and as the words print it). With
the token the values are shown; once the match is over they are shown to everyone. Cabo's
values are digits, which a byte search cannot tell from anything else, so the Cabo test
records the §7 example twice, with different private values, and requires every open read
to be byte for byte the same apart from ids, times, hashes and commitments.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from ledger import verify_listing
from ledger.records import chain_hash_v2
from tests.api.cabo_logs import vocabulary_log
from tests.conftest import Scorer
from tests.api.open_reads import (
    KABU_OPEN_DEAL,
    KABU_OPEN_SIX,
    assert_hidden_then_shown,
    cabo_to_the_call,
    ev,
    normalised,
    open_reads,
)

U = "??"


# --------------------------------------------------------------------------- one match per game


def test_cau_robat_hands_stay_hidden(scorer: Scorer) -> None:
    scorer.start({"game": "cau-robat", "players": ["A", "B", "C", "D"], "options": {}})
    hands = [
        ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
        ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
        ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
        ["11o", "10c", "4b", "3b", "4e", "5b", "6b", "11e", "12b"],
    ]
    scorer.record(
        ev("hand_started", dealer=3, table=["1o", "3c", "5e", "11b"], hands=hands),
        ev("play", seat=0, card="5o"),
        ev("play", seat=1, card="6c"),
    )
    private = [c for hand in hands for c in hand if c not in ("5o", "6c")]
    assert_hidden_then_shown(scorer, 4, private)


def test_kabu_kept_and_dealt_cards_stay_hidden(scorer: Scorer) -> None:
    scorer.start(KABU_OPEN_SIX)
    scorer.record(
        KABU_OPEN_DEAL,
        ev("keep", seat=1, card=U),
        ev("keep", seat=2, card=U),
        ev("keep", seat=0, card="7C"),
        ev("stand", seat=1),
        ev("take", seat=2),
    )
    assert_hidden_then_shown(scorer, 3, ["7C", "8C", "9D"])


def test_el_roby_hands_and_stock_draws_stay_hidden(scorer: Scorer) -> None:
    from tests.api.el_roby_deals import DEAL, START

    scorer.start(START)
    scorer.record(
        ev("hand_started", dealer=0, hands=DEAL, discard="10H"),
        ev("draw", seat=1, **{"from": "stock", "card": "9C"}),
        ev("discard", seat=1, card="KC"),
        ev("draw", seat=2, **{"from": "stock", "card": "5S"}),
        ev("discard", seat=2, card="AS"),
    )
    shown = {"10H", "KC", "AS"}
    private = sorted({c for hand in DEAL for c in hand} - shown) + ["9C", "5S"]
    assert "9C" not in {c for hand in DEAL for c in hand}
    assert_hidden_then_shown(scorer, 4, private)


def test_la_cabra_hands_and_face_down_discards_stay_hidden(scorer: Scorer) -> None:
    scorer.start(
        {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}}
    )
    scorer.record(
        ev(
            "hand_started",
            dealer=3,
            trump="QS",
            hands=[["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U, U, U, U]],
        ),
        ev("lead", seat=0, cards=["6C"]),
        ev("beat", seat=1, cards=["6S"]),
        ev("tira", seat=2, cards=["7D", "8D", "KD", "AD"]),
        ev("discard", seat=3, cards=[U, U, U, U]),
        ev("discard", seat=0, cards=["6C", "8H", "9H", "6D"]),
    )  # face down, named by the recorder
    assert_hidden_then_shown(scorer, 4, ["8H", "9H", "6D", "8S", "9S", "JH"])


# --------------------------------------------------------------------------- cabo


def test_cabo_open_reads_do_not_depend_on_peeks_spies_or_looks(client: FlaskClient) -> None:
    """§7 to the CABO call: seq 7 Carl's look, seq 9 Dora's peek, seq 19 Anna's spy, all changed."""
    real = cabo_to_the_call(client, {})
    other = cabo_to_the_call(client, {7: {"cards": ["6", "5"]}, 9: {"value": "3"}, 19: {"value": "6"}})
    a, b = open_reads(real, 4), open_reads(other, 4)
    for path in a:
        if path.startswith("/matches"):  # the list holds both matches, newest first
            assert normalised(normalised(a[path], real.id), other.id) == normalised(
                normalised(b[path], real.id), other.id
            )
            continue
        assert normalised(a[path], real.id) == normalised(b[path], other.id), path
    listing = {e["seq"]: e["data"] for e in real.get("/events")["events"]}
    for seq, field in [(6, "cards"), (7, "cards"), (9, "value"), (19, "value")]:
        assert listing[seq][field]["private"] is True and len(listing[seq][field]["commitment"]) == 64
    assert listing[5]["layouts"][0] == {"private": True, "commitment": listing[5]["layouts"][0]["commitment"]}
    shown = {e["seq"]: e["data"] for e in real.read("/events")["events"]}
    assert (shown[6]["cards"], shown[7]["cards"], shown[9]["value"], shown[19]["value"]) == (
        ["9", "9"],
        ["11", "1"],
        "1",
        "7",
    )
    # with the token, each seat's view has its own look; without it, only what is public
    assert real.read("/state", at=9, seat=3)["state"]["rows"][3]["cards"] == [U, U, "1", U]
    assert real.get("/state", at=9, seat=3)["state"]["rows"][3]["cards"] == [U, U, U, U]
    assert real.read("/replay", seat=0)["frames"][18]["data"]["value"] == "7"
    assert "value" not in json.dumps(real.get("/legal-moves")["moves"])
    for query in ({"seat": "all"},):
        for path in ("/state", "/replay"):
            assert client.get(f"/matches/{real.id}{path}", query_string=query).status_code == 401
            assert (
                client.get(
                    f"/matches/{real.id}{path}", query_string=query, headers={"Authorization": "Bearer wrong"}
                ).status_code
                == 403
            )
            assert real.read(path, **query)["seat"] == "all"


def finished_cabo(client: FlaskClient) -> Scorer:
    """The §7 Cabo log with Anna starting on 80: her 9 in round 2 takes her over 100."""
    log = vocabulary_log()
    scorer = Scorer(client)
    scorer.start({**log[0]["data"], "initial": {"totals": [80, 93, 85, 40]}})
    scorer.record(*[e for e in log[1:] if e["type"] != "score_claimed"])
    assert scorer.get()["status"] == "over"
    return scorer


def test_after_a_cabo_match_everything_is_shown_and_the_omniscient_replay_knows_the_showdown(
    client: FlaskClient,
) -> None:
    scorer = finished_cabo(client)
    listing = scorer.get("/events")["events"]
    peek = next(e for e in listing if e["type"] == "peek")
    assert peek["data"]["value"] == "1" and peek["private"][0]["path"] == ["value"]
    summary = scorer.get()
    assert verify_listing(scorer.id, listing, summary["version"], summary["head"]).valid
    frames = scorer.get("/replay", seat="all")["frames"]
    deal = next(f for f in frames if f["type"] == "hand_started" and f["seq"] > 3)
    assert [r["cards"] for r in deal["state"]["rows"]] == [
        ["2", "3", "4", "12"],
        ["9", "3", "9", "0"],
        ["11", "1", "2", "1"],
        ["4", "7", "1", "2"],
    ]
    assert deal["data"]["layouts"][0] == [U] * 4  # the step's data is what was recorded
    before_showdown = frames[-2]
    assert [r["cards"] for r in before_showdown["state"]["rows"]] == [
        ["2", "3", "4", "0"],
        ["2", "3", "0"],
        ["1", "1", "2", "1"],
        ["4", "7", "1", "2"],
    ]
    assert scorer.get("/state", seat=3, at=9)["state"]["rows"][3]["cards"] == [U, U, "1", U]


def test_a_seat_view_at_a_step_comes_with_a_proof_to_the_head(client: FlaskClient) -> None:
    scorer = finished_cabo(client)
    head = scorer.get()["head"]
    out = scorer.get("/state", at=9, seat=3)
    proof = out["proof"]
    assert out["hash"] == proof["hash"] and proof["head"] == head and proof["from"] == 9
    prev = proof["hash"]
    for envelope in proof["events"]:
        data = envelope["data"]
        for item in envelope.get("private", []):
            node = data
            *parents, last = item["path"]
            data = json.loads(json.dumps(data))
            node = data
            for step in parents:
                node = node[step]
            node[last] = {"private": True, "commitment": item["commitment"]}
        assert envelope["prev"] == prev
        prev = chain_hash_v2(
            prev, scorer.id, envelope["seq"], envelope["type"], data, envelope["at"], envelope["by"], envelope["key"]
        )
        assert prev == envelope["hash"]
    assert prev == head
    # during play the same proof is open: commitments only
    playing = cabo_to_the_call(client, {})
    proof = playing.get("/state", at=5, seat=1)["proof"]
    assert proof["head"] == playing.get()["head"] and all("private" not in e for e in proof["events"])
    assert '"9"' not in json.dumps(proof["events"][1]["data"])  # seq 6: Ben's look is a commitment


@pytest.mark.parametrize("field", ["value", "salt"])
def test_a_changed_byte_in_a_served_value_or_salt_is_caught(client: FlaskClient, field: str) -> None:
    scorer = finished_cabo(client)
    listing = scorer.get("/events")["events"]
    peek = next(e for e in listing if e["type"] == "peek")
    if field == "value":
        peek["data"]["value"] = "2"
    else:
        peek["private"][0]["salt"] = ("0" if peek["private"][0]["salt"][0] != "0" else "1") + peek["private"][0][
            "salt"
        ][1:]
    report = verify_listing(scorer.id, listing)
    assert not report.valid and report.first_bad == peek["seq"]


def test_a_match_stored_with_chain_format_1_is_still_hidden_and_still_verifies(tmp_path: Any) -> None:
    """A file written before commitments: its peek is hidden by the declarations, and it verifies offline."""
    import sqlite3

    from api.app import create_app
    from api.service import hash_token
    from ledger import GENESIS, SqliteLedger, chain_hash, verify_file
    from ledger.records import canonical_json

    path = tmp_path / "old.db"
    with SqliteLedger(path):
        pass
    rows = [
        ("match_started", {"game": "cabo", "players": ["Anna", "Ben"]}),
        ("hand_started", {"dealer": 0, "layouts": [[U] * 4, [U] * 4], "discard": "5"}),
        ("draw", {"seat": 0}),
        ("peek", {"seat": 0, "card": "8", "slot": 2, "value": "13"}),
    ]
    at, prev = "2026-01-01T00:00:00.000Z", GENESIS
    conn = sqlite3.connect(path, isolation_level=None)
    for seq, (etype, data) in enumerate(rows, start=1):
        digest = chain_hash(prev, "old", seq, etype, data, at, "", None)
        conn.execute(
            'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
            "VALUES ('old', ?, ?, ?, ?, '', NULL, ?, ?, 1)",
            (seq, etype, canonical_json(data).decode(), at, prev, digest),
        )
        prev = digest
    conn.execute(
        "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head) "
        "VALUES ('old', 'cabo', ?, ?, '[\"Anna\",\"Ben\"]', 'playing', 4, ?)",
        (hash_token("secret"), at, prev),
    )
    conn.close()
    client = create_app({"TANTEO_DB": str(path), "TESTING": True}).test_client()
    listing = client.get("/matches/old/events").get_json()["events"]
    assert listing[3]["data"]["value"] == {"private": True} and listing[3]["format"] == 1
    assert listing[1]["data"]["layouts"][0] == {"private": True}
    shown = client.get("/matches/old/events", headers={"Authorization": "Bearer secret"}).get_json()["events"]
    assert shown[3]["data"]["value"] == "13"
    assert verify_listing("old", shown).valid  # shown values: a format-1 listing recomputes
    assert not verify_listing("old", listing).valid  # hidden values without commitments cannot
    (report,) = verify_file(path)
    assert report.valid and report.length == 4
    assert client.get("/matches/old/state", query_string={"seat": 0}).get_json()["state"]["rows"][0]["cards"] == [U] * 4


def test_an_amend_of_a_private_value_is_hidden_like_its_target(client: FlaskClient) -> None:
    scorer = cabo_to_the_call(client, {})
    scorer.record(ev("amend", target=9, data={"seat": 3, "card": "8", "slot": 3, "value": "3"}, reason="it was a 3"))
    listing = {e["seq"]: e for e in scorer.get("/events")["events"]}
    amend = listing[21]["data"]
    assert amend["data"]["value"]["private"] is True and amend["data"]["slot"] == 3 and amend["target"] == 9
    frames = scorer.get("/replay")["frames"]
    assert frames[8]["status"] == "amended" and frames[8]["data"]["value"]["private"] is True
    shown = scorer.read("/replay")["frames"]
    assert shown[8]["data"]["value"] == "3"
    summary = scorer.get()
    assert verify_listing(scorer.id, list(listing.values()), summary["version"], summary["head"]).valid


def _reveal_in_play(scorer: Scorer, game: str) -> tuple[int, list[str]]:
    """A match of ``game`` in play where the scorer reveals cards a hand still hides; its seats
    and the private cards (the dealt hands the scorer knows, and the revealed ones)."""
    if game == "la-cabra":
        scorer.start(
            {
                "game": "la-cabra",
                "players": ["North", "East", "South", "West"],
                "teams": [[0, 2], [1, 3]],
                "options": {},
            }
        )
        hands = [["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U, U, U, U]]
        scorer.record(
            ev("hand_started", dealer=3, trump="QS", hands=hands),
            ev("reveal", cards=[{"seat": 3, "card": c} for c in ["8C", "9C", "10C"]]),
            ev("lead", seat=0, cards=["6C"]),
            ev("beat", seat=1, cards=["6S"]),
            ev("discard", seat=2, cards=["7D"]),
            ev("discard", seat=3, cards=[U]),
            ev("reveal", cards=[{"seq": 7, "index": 0, "card": "7C"}]),
        )  # West's face-down discard
        return 4, ["8D", "KD", "AD", "8H", "9H", "6D", "8S", "9S", "JH", "8C", "9C", "10C", "7C"]
    if game == "cau-robat":
        scorer.start({"game": "cau-robat", "players": ["A", "B", "C", "D"], "options": {}})
        hands = [
            ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
            ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
            ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
            [U] * 9,
        ]
        scorer.record(
            ev("hand_started", dealer=3, table=["1o", "3c", "5e", "11b"], hands=hands),
            ev("play", seat=0, card="5o"),
            ev("reveal", cards=[{"seat": 3, "card": "11o"}, {"seat": 3, "card": "12b"}]),
        )
        return 4, ["12o", "7o", "7b", "2o", "4o", "6o", "10o", "11o", "12b"]
    if game == "el-roby":
        from tests.api.el_roby_deals import DEAL, START

        scorer.start(START)
        scorer.record(
            ev("hand_started", dealer=0, hands=[*DEAL[:3], [U] * 10], discard="10H"),
            ev("draw", seat=1, **{"from": "stock"}),
            ev("reveal", cards=[{"seq": 3, "card": "9C"}, {"seat": 3, "card": "5C"}]),
        )
        return 4, ["9C", "5C", "QD", "JC", "KC", "QH"]
    scorer.start(KABU_OPEN_SIX)
    scorer.record(
        KABU_OPEN_DEAL,
        ev("keep", seat=1, card=U),
        ev("reveal", cards=[{"seq": 3, "card": "10S"}, {"seat": 2, "card": "7D"}]),
    )
    return 3, ["7C", "8C", "9D", "10S", "7D"]


@pytest.mark.parametrize("game", ["la-cabra", "cau-robat", "el-roby", "kabu"])
def test_a_reveal_in_play_stays_hidden_until_the_match_ends(scorer: Scorer, game: str) -> None:
    """A ``reveal`` tells the record cards a hand, a face-down discard, an unseen draw or a kept
    card still hides: it is private like the deal (Cabo's already was). Open reads showed those
    cards — the listing, the replay's words, the state — while the match was in play; now an
    open read folds the reveal as binding nothing, the listing carries a commitment, and the
    scorer (with the token) sees everything."""
    seats, private = _reveal_in_play(scorer, game)
    assert_hidden_then_shown(scorer, seats, private)
    revealed = next(e for e in scorer.get("/events")["events"] if e["type"] == "reveal")
    assert not any(
        isinstance(binding.get("card"), str) and binding["card"] != "??" for binding in revealed["data"]["cards"]
    ), revealed  # each card a placeholder in the open listing
    said = [f["text"] for f in scorer.get("/replay")["frames"] if f["type"] == "reveal"]
    assert said and all(t.startswith("Revealed to the scorer: ") and "??" not in t for t in said), said
