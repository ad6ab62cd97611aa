"""The club's hub takes two boards' journals through a real Mosquitto: the matches with their games,
the tables' live views, and a ladder that equals a recomputation from the records, with the broker
and the hub each killed and restarted in the middle; a forged message is refused and nothing of it
kept."""
import json
import time

import pytest
from club_kit import hub_key_text
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.envelope import Signer
from firmware_host.club.ratings import GameResult, Ladder
from firmware_host.config import ClubSettings
from firmware_host.hub.listener import HubListener
from firmware_host.hub.store import HubStore, MatchKey
from firmware_host.journal import Journal
from firmware_host.rules import Color, Rules
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import GameResult as Result
from firmware_host.service.club import ClubPublisher, board_key

WAIT_S = 30
CLUB = "kefalonia"


def play_match(journal: Journal, variants: list[str], winners: list[Color]) -> int:
    """A match whose games end by the referee's decision, one winner each (a result is all the hub rates)."""
    match = journal.start_match(MatchRules(sequence=",".join(variants), target=len(winners) * 3))
    for variant, winner in zip(variants, winners):
        journal.start_game(variant, Rules.for_variant(variant), starter=Color.WHITE)
        journal.end_game(Result(winner, 1, "bear-off"), winner, "referee")
    return match


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


class Hub:
    def __init__(self, path, port, keys):
        self.store = HubStore(path)
        self.listener = HubListener(self.store, CLUB, keys, board_key(path.parent / "hub.key"))
        self.listener.start("127.0.0.1", port)

    def close(self):
        self.listener.close()
        self.store.close()


def test_two_boards_a_hub_and_a_ladder_that_survive_kills(tmp_path, broker):
    keys = {name: Ed25519PrivateKey.generate() for name in ("table-1", "table-2")}
    journals = {name: Journal.open(tmp_path / f"{name}.sqlite3") for name in keys}
    publishers = {name: ClubPublisher(ClubSettings(broker="127.0.0.1", port=broker.port, club=CLUB, board=name,
                                                   hub_key=hub_key_text(tmp_path)),
                                      journals[name].path, key=key) for name, key in keys.items()}
    public = {name: key.public_key() for name, key in keys.items()}
    hub = Hub(tmp_path / "hub.sqlite3", broker.port, public)
    for publisher in publishers.values():
        publisher.start()
    try:
        first = play_match(journals["table-1"], ["portes", "plakoto"], [Color.WHITE, Color.BLACK])
        publishers["table-1"].show({"state": "moving", "score": {"white": 1, "black": 1}})
        wait_for(lambda: len(hub.store.matches()) == 1 and len(hub.store.matches()[0]["games"]) == 2,
                 "table-1's match at the hub")
        hub.store.seat(MatchKey("table-1", hub.store.matches()[0]["stream"], first), "anna", "babis")
        broker.kill()                                     # the broker dies mid-evening
        second = play_match(journals["table-2"], ["fevga", "portes", "fevga"], [Color.BLACK, Color.BLACK, Color.WHITE])
        for publisher in publishers.values():
            publisher.journal_changed()
        broker.start()
        wait_for(lambda: len(hub.store.matches()) == 2 and all(
            game["result"] for match in hub.store.matches() for game in match["games"]), "both matches after the restart")
        hub.close()                                       # the hub dies and comes back on its records
        third = play_match(journals["table-1"], ["fevga"], [Color.WHITE])
        publishers["table-1"].journal_changed()
        time.sleep(0.5)
        hub = Hub(tmp_path / "hub.sqlite3", broker.port, public)
        wait_for(lambda: len(hub.store.matches()) == 3, "the match played while the hub was down")
        matches = {(match["board"], match["match"]): match for match in hub.store.matches()}
        hub.store.seat(MatchKey("table-2", matches["table-2", second]["stream"], second), "chryssa", "anna")
        hub.store.seat(MatchKey("table-1", matches["table-1", third]["stream"], third), "babis", "chryssa")
        # Every record once: the hub comes to hold exactly each board's journal.
        def holds_every_journal() -> bool:
            return all([seq for (seq,) in hub.store._run("SELECT seq FROM messages WHERE board = ? ORDER BY seq", (name,))]
                       == [event.seq for event in journal.tail(10_000)] for name, journal in journals.items())
        wait_for(holds_every_journal, "every record of both boards, once")
        expected = [GameResult("anna", "babis", "portes"), GameResult("babis", "anna", "plakoto"),
                    GameResult("anna", "chryssa", "fevga"), GameResult("anna", "chryssa", "portes"),
                    GameResult("chryssa", "anna", "fevga"), GameResult("babis", "chryssa", "fevga")]
        # The two boards' games interleave as they reached the hub (the order the ratings take them in).
        results = hub.store.results()
        assert sorted(results, key=repr) == sorted(expected, key=repr)
        # The ladder is a recomputation from the records, whoever reads them.
        again = HubStore(tmp_path / "hub.sqlite3")
        assert hub.store.ladder().to_json() == Ladder.of(results).to_json() == again.ladder().to_json()
        again.close()
        assert hub.store.tables(["table-1", "table-2"])[0]["view"] == {"state": "moving", "score": {"white": 1, "black": 1}}
    finally:
        for publisher in publishers.values():
            publisher.close()
        hub.close()
        for journal in journals.values():
            journal.close()


def test_a_forged_or_misplaced_message_is_refused_and_nothing_kept(tmp_path):
    genuine = Ed25519PrivateKey.generate()
    store = HubStore(tmp_path / "hub.sqlite3")
    listener = HubListener(store, CLUB, {"table-1": genuine.public_key(), "table-2": Ed25519PrivateKey.generate().public_key()},
                           Ed25519PrivateKey.generate())
    record = {"seq": 1, "match": 1, "game": None, "kind": "match_started", "at": "2026-11-27T20:00:00.000Z"}
    forged = Signer("table-1", Ed25519PrivateKey.generate()).seal("journal/x/1", 1, record)
    listener.handle(f"tavli/{CLUB}/table-1/journal", json.dumps(forged).encode())
    misplaced = Signer("table-1", genuine).seal("journal/x/1", 1, record)      # table-1's message on table-2's topic
    listener.handle(f"tavli/{CLUB}/table-2/journal", json.dumps(misplaced).encode())
    listener.handle(f"tavli/{CLUB}/table-1/journal", b"\xff not json")
    assert listener.refused == {"table-1": 2, "table-2": 1}
    assert store.matches() == [] and store.last_accepted() == {}
    listener.handle(f"tavli/{CLUB}/table-1/journal", json.dumps(misplaced).encode())   # genuine, on its own topic
    listener.handle(f"tavli/{CLUB}/table-1/journal", json.dumps(misplaced).encode())   # and again: kept once
    assert store.last_accepted() == {("table-1", "journal/x/1"): 1} and listener.refused["table-1"] == 2
    store.close()


def test_a_seating_names_two_different_players(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    with pytest.raises(ValueError):
        store.seat(MatchKey("table-1", "journal/x/1", 1), "anna", "anna")
    store.close()
