"""The club hub's pages and API through Starlette's TestClient: every bad request gets a 4xx with one
line saying why (never a 500), the director's PIN is limited per client like the companion's, the
café screen's tables come from the boards' views, and tournaments are replayed from the records: a
seated board's result fills its pairing, the director pairs rounds and corrects the last one only."""
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the hub's pages need the `web` extra (starlette, uvicorn)")

from starlette.testclient import TestClient  # noqa: E402

from firmware_host.club.envelope import public_key_text  # noqa: E402
from firmware_host.club.tournament import TournamentError  # noqa: E402
from firmware_host.config import hash_pin  # noqa: E402
from firmware_host.hub import tournaments  # noqa: E402
from firmware_host.hub.config import load_hub_config  # noqa: E402
from firmware_host.hub.store import HubStore, MatchKey  # noqa: E402
from firmware_host.hub.web import create_hub_app  # noqa: E402
from firmware_host.journal import Journal, JournalReader  # noqa: E402
from firmware_host.rules import Color, Rules  # noqa: E402
from firmware_host.rules.match import MatchRules  # noqa: E402
from firmware_host.rules.plays import GameResult  # noqa: E402
from firmware_host.web.app import MAX_BODY  # noqa: E402
from firmware_host.web.guard import CLIENT_TRIES  # noqa: E402

PIN = "2468"
BASE_URL = "http://localhost"
STREAM = "journal/2026-11-27T20:00:00.000Z/1"


class Board:
    """A board's journal whose records reach the hub's store as the listener keeps them."""

    def __init__(self, path, store: HubStore, name: str):
        self.journal, self.store, self.name = Journal.open(path), store, name
        self.sent = 0

    def deliver(self) -> None:
        with JournalReader.open(self.journal.path) as reader:
            for record in reader.records_after(self.sent, 10_000):
                self.store.keep(self.name, STREAM, record.seq, record.to_json())
                self.sent = record.seq

    def start(self) -> int:
        match = self.journal.start_match(MatchRules(sequence="portes", target=1))
        self.deliver()
        return match

    def won_by(self, color: Color) -> None:
        self.journal.start_game("portes", Rules.for_variant("portes"), starter=Color.WHITE)
        self.journal.end_game(GameResult(color, 1, "bear-off"), color, "referee")
        self.deliver()


@pytest.fixture
def hub(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text(f'club = "kefalonia"\n[boards]\ntable-1 = "{public_key_text(Ed25519PrivateKey.generate())}"\n'
                    f'[web]\npin = "{hash_pin(PIN)}"\n')
    config = load_hub_config(path)
    store = HubStore(config.database)
    app = create_hub_app(config, store)
    with TestClient(app, base_url=BASE_URL) as client:
        client.get("/")    # the CSRF cookie
        client.store = store
        yield client
    store.close()


def headers(client) -> dict:
    return {"X-CSRF-Token": client.cookies.get("tavli_csrf"), "Content-Type": "application/json"}


def post(client, path: str, body, **extra):
    return client.post(path, content=json.dumps(body), headers={**headers(client), **extra})


KNOCKOUT = {"pin": PIN, "name": "Friday cup", "kind": "knockout", "players": ["anna", "babis", "chryssa", "dimitra"]}


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/tournaments", {**KNOCKOUT, "colour": 1}, 400, "unknown key 'colour'"),
    ("/api/tournaments", {**KNOCKOUT, "pin": None}, 401, "the PIN is needed"),
    ("/api/tournaments", {**KNOCKOUT, "pin": "1111"}, 403, "wrong PIN"),
    ("/api/tournaments", {**KNOCKOUT, "kind": "league"}, 400, "kind 'league' is not valid; allowed: knockout, swiss"),
    ("/api/tournaments", {**KNOCKOUT, "players": ["anna"]}, 400, "players: a list of 2 to 64 names"),
    ("/api/tournaments", {**KNOCKOUT, "players": "anna"}, 400, "players: a list of 2 to 64 names"),
    ("/api/tournaments", {**KNOCKOUT, "players": ["anna", "anna"]}, 400, "each named once"),
    ("/api/tournaments", {**KNOCKOUT, "players": ["anna", "b b"]}, 400, "player 'b b' is not valid"),
    ("/api/tournaments", {**KNOCKOUT, "players": ["anna", 7]}, 400, "player '7' is not valid"),
    ("/api/tournaments", {**KNOCKOUT, "name": ""}, 400, "a tournament's name"),
    ("/api/tournaments", {**KNOCKOUT, "name": ["x"]}, 400, "a tournament's name"),
    ("/api/tournaments", {**KNOCKOUT, "kind": "swiss"}, 400, "needs its number of rounds"),
    ("/api/tournaments", {**KNOCKOUT, "kind": "swiss", "rounds": 3}, 400, "3 rounds cannot always be paired"),
    ("/api/tournaments", {**KNOCKOUT, "kind": "swiss", "rounds": True}, 400, "needs its number of rounds"),
    ("/api/tournaments/7/next-round", {"pin": PIN}, 404, "no tournament 7"),
    ("/api/tournaments/x1/next-round", {"pin": PIN}, 404, "no tournament 'x1'"),
    ("/api/tournaments/\u0663/next-round", {"pin": PIN}, 404, "no tournament"),
    ("/api/tournaments/1/next-round", {"pin": PIN}, 409, "the round is not finished"),
    ("/api/tournaments/1/seat", {"pin": PIN, "board": "table-9", "first": "anna", "second": "dimitra"}, 404,
     "'table-9' is not one of the club's boards"),
    ("/api/tournaments/1/seat", {"pin": PIN, "board": "table-1", "first": "anna", "second": "babis"}, 409,
     "anna and babis are not paired in round 1"),
    ("/api/tournaments/1/seat", {"pin": PIN, "board": "table-1", "first": "zoe", "second": "babis"}, 409,
     "zoe plays no match in this round"),
    ("/api/tournaments/1/seat", {"pin": PIN, "board": "table-1", "first": "anna", "second": "dimitra"}, 404,
     "table-1 has no match under way"),
    ("/api/tournaments/1/seat", {"pin": PIN, "board": 5, "first": "anna", "second": "dimitra"}, 400, "board: a name is needed"),
    ("/api/tournaments/1/correct", {"pin": PIN, "round": "1", "winner": "anna", "loser": "dimitra"}, 400, "round: the round's number"),
    ("/api/tournaments/1/correct", {"pin": PIN, "round": 2, "winner": "anna", "loser": "dimitra"}, 409,
     "round 2 cannot be corrected"),
    ("/api/tournaments/1/correct", {"pin": PIN, "round": 1, "winner": "anna", "loser": "babis"}, 409,
     "anna and babis are not paired"),
])
def test_a_bad_change_is_a_4xx_with_its_reason(hub, path, body, status, words):
    assert post(hub, "/api/tournaments", KNOCKOUT).status_code == 201
    answer = post(hub, path, body)
    assert answer.status_code == status and words in answer.json()["error"], answer.text
    assert len(hub.store.tournaments()) == 1 and hub.store.tournaments()[0]["actions"] == []


def test_a_request_from_elsewhere_or_not_json_is_refused(hub):
    assert hub.post("/api/tournaments", content=json.dumps(KNOCKOUT),
                    headers={"Content-Type": "application/json"}).status_code == 403          # no CSRF token
    assert post(hub, "/api/tournaments", KNOCKOUT, Origin="http://evil.example").status_code == 403
    assert post(hub, "/api/tournaments", KNOCKOUT, **{"Content-Type": "text/plain"}).status_code == 415
    assert hub.post("/api/tournaments", content=b"{not json", headers=headers(hub)).status_code == 400
    assert post(hub, "/api/tournaments", ["a list"]).status_code == 400
    assert hub.post("/api/tournaments", content=b"x" * (MAX_BODY + 1), headers=headers(hub)).status_code == 413
    assert hub.get("/", headers={"Host": "evil.example"}).status_code == 400                  # DNS rebinding
    assert hub.get("/tables/table-1.svg").status_code == 404                                  # no view yet
    assert hub.get("/tables/nobody.svg").status_code == 404
    assert hub.get("/nothing-here").status_code == 404
    assert hub.put("/api/tournaments").status_code == 405
    hub.app.state.hub.tables.streams = 64                  # as many screens as the hub serves watch
    crowded = hub.get("/events")
    assert crowded.status_code == 429 and "64 screens watch already" in crowded.json()["error"]
    assert hub.store.tournaments() == []


def test_a_taken_port_is_one_line_and_the_hub_does_not_start(tmp_path, capsys):
    import socket

    from firmware_host.cli import main
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        path = tmp_path / "hub.toml"
        path.write_text(f'[boards]\ntable-1 = "{public_key_text(Ed25519PrivateKey.generate())}"\n'
                        f'[web]\nport = {taken.getsockname()[1]}\n')
        assert main(["club", "hub", "--config", str(path)]) == 2
    error = capsys.readouterr().err
    assert f"the hub's pages ([web] of {path}): cannot listen on 127.0.0.1:" in error and "Traceback" not in error
    assert not (tmp_path / "hub.sqlite3").exists()       # nothing started


def test_wrong_pins_lock_the_client_out_even_for_the_right_one(hub):
    for _ in range(CLIENT_TRIES):
        assert post(hub, "/api/tournaments", {**KNOCKOUT, "pin": "0000"}).status_code == 403
    locked = post(hub, "/api/tournaments", KNOCKOUT)
    assert locked.status_code == 429 and "too many wrong PINs" in locked.json()["error"]
    assert hub.store.tournaments() == []


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/tournaments", "/api/tournaments/1/seat", "/api/tournaments/1/correct",
                             "/api/tournaments/1/next-round"]),
       body=st.dictionaries(st.sampled_from(["name", "kind", "players", "rounds", "board", "first", "second",
                                             "round", "winner", "loser"]), JSON, max_size=4))
def test_any_body_with_the_pin_is_answered_never_with_a_500(hub, path, body):
    answer = post(hub, path, {**body, "pin": PIN})
    assert answer.status_code < 500 and ("error" in answer.json()) == (answer.status_code >= 400), answer.text


# == the café screen ===================================================================================

def a_view(dice, turn="white") -> dict:
    """The fields of a board's view (`GameView.to_json`) the café screen reads and draws."""
    return {"state": "moving", "overlay_return": None, "seats": {"white": "person", "black": "person"},
            "match": {"id": 3, "sequence": ["portes"], "target": 5, "score": {"white": 1, "black": 2}, "winner": None},
            "game": {"number": 4, "variant": "portes"}, "position": {"turn": turn}, "dice": dice, "reading": None,
            "scene": {"marks": {}, "dice": dice, "dice_signal": None, "turn": turn,
                      "score": {"white": 1, "black": 2, "target": 5}}}


def test_the_tables_say_each_boards_view_and_draw_it_once_per_view(hub):
    assert hub.get("/api/tables").json()["tables"] == [{"board": "table-1", "online": False, "version": None}]
    hub.store.set_view("table-1", a_view([6, 5]))
    hub.store.set_online("table-1", True)
    table = hub.get("/api/tables").json()["tables"][0]
    assert {key: table[key] for key in ("online", "state", "match", "game", "variant", "score", "target", "turn", "dice")} == \
        {"online": True, "state": "moving", "match": 3, "game": 4, "variant": "portes", "score": {"white": 1, "black": 2},
         "target": 5, "turn": "white", "dice": [6, 5]}
    drawing = hub.get(f"/tables/table-1.svg?v={table['version']}")
    assert drawing.status_code == 200 and drawing.headers["content-type"].startswith("image/svg+xml")
    hub.store.set_view("table-1", a_view([2, 1], turn="black"))
    again = hub.get("/api/tables").json()["tables"][0]
    assert again["version"] != table["version"] and again["turn"] == "black"
    hub.store.set_view("table-1", {"state": "moving", "scene": "not a scene"})     # a view it cannot draw
    broken = hub.get("/api/tables").json()["tables"][0]
    assert broken["version"] is None and broken["state"] == "moving"
    assert hub.get("/tables/table-1.svg").status_code == 404


# == tournaments, replayed from the records ============================================================

def test_a_swiss_tournament_takes_seated_results_and_corrects_only_its_last_round(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    board = Board(tmp_path / "board.sqlite3", store, "table-1")
    before = board.start()
    board.won_by(Color.WHITE)                   # played before the tournament: not the tournament's
    store.seat(MatchKey("table-1", STREAM, before), "anna", "babis")
    number = tournaments.create(store, "Winter", "swiss", ["anna", "babis", "chryssa", "dimitra"], 2)
    played = tournaments.find(store, number).to_json()
    assert [(p["first"], p["second"], p["winner"]) for p in played["rounds"][0]["pairings"]] == \
        [("anna", "babis", None), ("chryssa", "dimitra", None)]
    match = board.start()
    tournaments.seat(store, number, "table-1", "anna", "babis")
    board.won_by(Color.BLACK)                   # babis, seated black, wins
    unseated = board.start()
    board.won_by(Color.WHITE)                   # nobody named: not the tournament's
    played = tournaments.find(store, number)
    assert played.to_json()["rounds"][0]["pairings"][0]["winner"] == "babis"
    assert played.sources[(1, played.tournament.rounds[0].pairings[0])]["match"] == match
    with pytest.raises(TournamentError, match="the round is not finished"):
        tournaments.pair_next(store, number)
    tournaments.correct(store, number, 1, "dimitra", "chryssa")       # played off the boards: the director says
    assert store.matches()[0]["match"] == unseated and store.matches()[0]["white"] is None
    tournaments.pair_next(store, number)
    played = tournaments.find(store, number).to_json()
    assert [entry["player"] for entry in played["standings"][:2]] == ["babis", "dimitra"]
    assert [(p["first"], p["second"]) for p in played["rounds"][1]["pairings"]] == [("babis", "dimitra"), ("anna", "chryssa")]
    with pytest.raises(TournamentError, match="round 1 cannot be corrected"):
        tournaments.correct(store, number, 1, "anna", "babis")
    # The records are the tournament: a store opened afresh replays the same.
    again = HubStore(tmp_path / "hub.sqlite3")
    assert tournaments.find(again, number).to_json() == played
    again.close()
    board.journal.close()
    store.close()


def test_a_correction_of_a_boards_result_seats_its_match_the_other_way_round(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    board = Board(tmp_path / "board.sqlite3", store, "table-1")
    number = tournaments.create(store, "Cup", "knockout", ["anna", "babis"], None)
    match = board.start()
    tournaments.seat(store, number, "table-1", "anna", "babis")
    board.won_by(Color.WHITE)
    assert tournaments.find(store, number).champion == "anna"
    assert store.ladder().to_json()["hitting"][0]["player"] == "anna"
    tournaments.correct(store, number, 1, "babis", "anna")
    assert tournaments.find(store, number).champion == "babis"
    assert (store.matches()[0]["match"], store.matches()[0]["white"], store.matches()[0]["black"]) == (match, "babis", "anna")
    assert [entry["player"] for entry in store.ladder().to_json()["hitting"]] == ["babis", "anna"]
    board.journal.close()
    store.close()


def next_event(lines, quiet_times: int = 50) -> dict:
    """The next event's data, which must come before the stream's keep-alive comment `quiet_times` times."""
    for line in lines:
        if line.startswith("data: "):
            return json.loads(line.removeprefix("data: "))
        if line.startswith(":"):
            quiet_times -= 1
            assert quiet_times > 0, "the stream said nothing new"
    raise AssertionError("the stream ended")


def test_the_cafe_screens_stream_follows_what_the_listener_keeps(tmp_path, monkeypatch):
    import firmware_host.hub.web as hub_web
    from firmware_host.club.envelope import Signer
    from firmware_host.hub.listener import HubListener

    monkeypatch.setattr(hub_web, "STREAM_KEEPALIVE_S", 0.1)

    key = Ed25519PrivateKey.generate()
    path = tmp_path / "hub.toml"
    path.write_text(f'club = "kefalonia"\n[boards]\ntable-1 = "{public_key_text(key.public_key())}"\n')
    config = load_hub_config(path)
    store = HubStore(config.database)
    listener = HubListener(store, "kefalonia", config.boards, Ed25519PrivateKey.generate())
    signer = Signer("table-1", key)
    with TestClient(create_hub_app(config, store, listener), base_url=BASE_URL) as client:
        with client.stream("GET", "/events") as stream:
            lines = stream.iter_lines()
            assert next(lines) == "retry: 3000"
            assert next_event(lines)["tables"] == [{"board": "table-1", "online": False, "version": None}]
            # A view arrives from the broker: the stream says it at once, the one table that changed.
            listener.handle("tavli/kefalonia/table-1/view", json.dumps(signer.seal("view", 1, a_view([4, 4]))).encode())
            (table,) = next_event(lines)["tables"]
            assert (table["board"], table["dice"], table["turn"]) == ("table-1", [4, 4], "white")
            listener.handle("tavli/kefalonia/table-1/online", b"1")
            assert next_event(lines)["tables"][0]["online"] is True
        assert client.get("/api/tables").json()["tables"][0]["dice"] == [4, 4]
    store.close()


def test_without_a_directors_pin_nothing_changes(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text(f'[boards]\ntable-1 = "{public_key_text(Ed25519PrivateKey.generate())}"\n')
    config = load_hub_config(path)
    store = HubStore(config.database)
    with TestClient(create_hub_app(config, store), base_url=BASE_URL) as client:
        client.get("/")
        assert client.get("/api/tournaments").json()["director"] is False
        refused = post(client, "/api/tournaments", KNOCKOUT)
        assert refused.status_code == 403 and "changes are turned off: no PIN is set" in refused.json()["error"]
    assert store.tournaments() == []
    store.close()
