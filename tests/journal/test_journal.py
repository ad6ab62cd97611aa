"""Recording and resuming: what the controller writes is what a restart gives back."""
import ctypes
import ctypes.util
import random
import sqlite3

import pytest

from firmware_host.journal import Journal, JournalStateError, JournalWriteError, Kind
from firmware_host.journal.store import PAGE_CACHE_KIB
from firmware_host.rules import BLACK, WHITE, GameResult, Position, Rules, Turn
from firmware_host.rules.match import MatchRules, opening_roll
from journal_kit import play_match, play_turn, start_next_game, step


@pytest.fixture
def path(tmp_path):
    return tmp_path / "state" / "journal.sqlite3"


def reopened(journal: Journal) -> Journal:
    journal.close()
    return Journal.open(journal.path)


def test_a_new_journal_is_durable_and_append_only(path):
    journal = Journal.open(path)
    assert journal.moved_aside is None and journal.resume() is None
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: fsync at every commit
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")


def test_resume_after_every_step_of_a_match_equals_the_state_before(path):
    rng = random.Random(7)
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes", "plakoto", "fevga"), target=3))
    steps = 0
    while journal.resume() is not None:
        step(journal, rng)
        steps += 1
        if steps % 17 == 0:
            before = journal.resume()
            journal = reopened(journal)
            assert journal.resume() == before
    assert steps > 100


def test_a_resumed_game_gives_position_turn_rules_last_play_and_pending_roll(path):
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("plakoto",), target=3))
    rules = Rules.for_variant("plakoto", {"mother_rule": False})
    journal.start_game("plakoto", rules, starter=BLACK)
    start = Position.start("plakoto", BLACK)
    play = Turn(start, (6, 5), rules).plays()[0]
    journal.record_roll(BLACK, (6, 5))
    journal.record_play(BLACK, (6, 5), play)
    journal.record_roll(WHITE, (3, 3))
    game = reopened(journal).resume().game
    assert game.variant == "plakoto" and game.rules.mother_rule is False
    assert game.starter is BLACK and game.position == play.position and game.side_to_move is WHITE
    assert game.last_play.side is BLACK and game.last_play.dice == (6, 5) and game.last_play.moves == play.moves
    assert game.pending_roll == (3, 3)


def test_the_opening_roll_decides_the_starter_and_may_be_the_first_roll(path):
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",), opening_roll="use_opening_dice"))
    journal.start_game("portes", Rules.for_variant("portes"))
    journal.record_opening_roll(4, 4, opening_roll(4, 4, "use_opening_dice"))
    assert journal.resume().game.starter is None
    journal.record_opening_roll(2, 5, opening_roll(2, 5, "use_opening_dice"))
    game = reopened(journal).resume().game
    assert game.starter is BLACK and game.side_to_move is BLACK and game.pending_roll == (2, 5)


def test_a_referee_position_replaces_the_position_and_voids_the_roll(path):
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",)))
    journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
    journal.record_roll(WHITE, (6, 1))
    restored = Position.start("portes", BLACK)
    journal.record_referee("restore", position=restored, reason="checkers knocked over")
    game = reopened(journal).resume().game
    assert game.position == restored and game.pending_roll is None and game.side_to_move is BLACK


def test_a_winning_play_ends_the_game_and_the_match_in_one_record(path):
    rng = random.Random(3)
    journal = Journal.open(path)
    match_id = journal.start_match(MatchRules(sequence=("portes",), target=1))
    start_next_game(journal, rng)
    while journal.resume() is not None:
        play_turn(journal, rng)
    kinds = [event.kind for event in journal.match_events(match_id)]
    assert kinds[-3:] == [Kind.PLAY, Kind.GAME_ENDED, Kind.MATCH_ENDED]
    assert len({event.at for event in journal.match_events(match_id)[-3:]}) == 1  # one transaction
    assert reopened(journal).resume() is None


def test_a_game_ended_without_a_play_counts_in_the_match(path):
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes", "fevga"), target=5))
    journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
    journal.end_game(GameResult(BLACK, 2, "resign"), WHITE, "white resigned")
    state = reopened(journal).resume()
    assert state.game is None and state.match.score == {WHITE: 0, BLACK: 2}
    assert state.match.next_variant == "fevga" and state.match.next_starter is BLACK


def test_a_new_match_abandons_the_unfinished_one(path):
    journal = Journal.open(path)
    first = journal.start_match(MatchRules())
    second = journal.start_match(MatchRules(sequence=("tapa",)))
    assert journal.match_events(first)[-1].data["reason"].startswith("abandoned")
    assert reopened(journal).resume().match_id == second


def test_records_that_do_not_fit_the_state_are_refused(path):
    journal = Journal.open(path)
    with pytest.raises(JournalStateError, match="no match"):
        journal.start_game("portes", Rules.for_variant("portes"))
    journal.start_match(MatchRules())
    with pytest.raises(JournalStateError, match="no game"):
        journal.record_roll(WHITE, (1, 2))
    with pytest.raises(JournalStateError, match="rules of fevga"):
        journal.start_game("portes", Rules.for_variant("fevga"))


def test_a_failed_write_keeps_nothing_in_the_file_or_in_memory(path):
    rng = random.Random(5)
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",)))
    start_next_game(journal, rng)
    play_turn(journal, rng)
    before, records = journal.resume(), len(journal.tail(1000))
    journal._db.execute("PRAGMA query_only = ON")  # the disk refuses writes from here on
    with pytest.raises(JournalWriteError, match="cannot write to the journal"):
        play_turn(journal, rng)
    assert journal.resume() == before
    journal._db.execute("PRAGMA query_only = OFF")
    assert len(journal.tail(1000)) == records


def test_faults_refusals_and_service_events_are_recorded_in_order(path):
    journal = Journal.open(path)
    match_id = journal.start_match(MatchRules())
    journal.record_fault("link-lost", "the port is gone", port="/dev/tavli-sensors")
    journal.record_fault_cleared("link-lost", "the link is up again")
    journal.record_refusal("rolling too early", side="white")
    events = journal.match_events(match_id)
    assert [event.kind for event in events[1:]] == [Kind.FAULT, Kind.FAULT_CLEARED, Kind.REFUSAL]
    assert events[1].data == {"fault": "link-lost", "message": "the port is gone", "port": "/dev/tavli-sensors"}
    service = [event for event in journal.tail(10) if event.kind is Kind.SERVICE]
    assert service[0].match_id is None and service[0].data["what"] == "journal_opened"


def test_a_long_journal_resumes_only_its_last_match(path):
    rng = random.Random(11)
    journal = Journal.open(path)
    for _ in range(3):
        journal.start_match(MatchRules(sequence=("portes",), target=1))
        play_match(journal, rng)
    journal.start_match(MatchRules(sequence=("fevga",), target=1))
    journal = reopened(journal)
    state = journal.resume()
    assert state.match.rules.sequence == ("fevga",) and state.match.games == ()
    assert len(journal.match_ids()) == 4


def _sqlite_memory_used() -> int | None:
    """SQLite's own count of the memory it holds in this process (all connections), or None where
    the library Python's sqlite3 uses cannot be reached by ctypes."""
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return None
    library = ctypes.CDLL(name)
    library.sqlite3_memory_used.restype = ctypes.c_int64
    return library.sqlite3_memory_used()


def test_a_long_match_keeps_the_journals_page_cache_small(path):
    """Issue 33: SQLite's default page cache (up to 2 MB a connection) grew with a busy service's
    journal for half an hour; the journal's connection keeps an eighth of a megabyte."""
    journal = Journal.open(path)
    before = _sqlite_memory_used()
    if not before:
        pytest.skip("SQLite's memory count is not reachable from ctypes here")
    for number in range(400):                       # about 4 MB of records, written and read back
        journal.record_service("note", number=number, text="x" * 10_000)
    assert len(journal.records_after(0, 1_000)) >= 400
    grown = _sqlite_memory_used() - before
    assert grown <= 2 * PAGE_CACHE_KIB * 1024 <= 2**19, grown
