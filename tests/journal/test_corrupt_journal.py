"""A journal that cannot be used is moved aside with a clear log line, and a new one started."""
import json
import logging
import random
import sqlite3

import pytest

from firmware_host.journal import Journal, JournalError, JournalReader, Kind
from firmware_host.rules.match import MatchRules
from journal_kit import step


@pytest.fixture
def path(tmp_path):
    return tmp_path / "journal.sqlite3"


def assert_moved_aside_and_fresh(path, caplog, original: bytes, reason: str):
    with caplog.at_level(logging.ERROR, logger="firmware_host.journal.store"):
        journal = Journal.open(path)
    assert journal.moved_aside is not None and journal.moved_aside.read_bytes() == original
    message = caplog.records[-1].getMessage()
    assert str(path) in message and str(journal.moved_aside) in message and reason in message
    assert journal.resume() is None
    journal.start_match(MatchRules())          # the new journal works
    note = [event for event in journal.tail(10) if event.kind is Kind.SERVICE and event.data["what"] ==
            "journal_moved_aside"]
    assert note and note[0].data["moved_to"] == str(journal.moved_aside)
    return journal


def test_a_file_that_is_not_a_database(path, caplog):
    path.write_bytes(b"this is not SQLite at all" * 100)
    assert_moved_aside_and_fresh(path, caplog, path.read_bytes(), "not a database")


def test_a_database_of_another_program(path, caplog):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    assert_moved_aside_and_fresh(path, caplog, path.read_bytes(), "another program")


def test_a_journal_of_a_newer_schema(path, caplog):
    Journal.open(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    assert_moved_aside_and_fresh(path, caplog, path.read_bytes(), "schema 99")


def test_a_record_added_behind_the_journals_back_is_not_proven_and_the_match_goes_on_before_it(path, caplog):
    journal = Journal.open(path)
    match_id = journal.start_match(MatchRules())
    journal.close()
    db = sqlite3.connect(path)  # the triggers forbid changes, not additions
    db.execute("INSERT INTO events (match_id, game, kind, at, data) VALUES (?, 1, 'game_started', 'now', ?)",
               (match_id, json.dumps({"variant": "portes", "rules": {}, "starter": None, "position": {"x": 1}})))
    db.commit()
    db.close()
    original = path.read_bytes()
    with caplog.at_level(logging.ERROR, logger="firmware_host.journal.store"):
        journal = Journal.open(path)
    assert journal.moved_aside.name.startswith("journal.sqlite3.damaged-") and journal.moved_aside.read_bytes() == original
    assert "record 3 does not follow" in caplog.records[-1].getMessage() and journal.damage
    resumed = journal.resume()
    assert resumed.match_id == match_id and resumed.game is None


def test_damaged_pages(path, caplog):
    rng = random.Random(2)
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",), target=7))
    for _ in range(300):
        step(journal, rng)
    journal.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page:len(data) - page] = bytes(rng.randrange(256) for _ in range(len(data) - 2 * page))
    path.write_bytes(bytes(data))
    assert_moved_aside_and_fresh(path, caplog, bytes(data), "malformed")


def test_a_place_where_nothing_can_be_written_is_an_error_not_a_new_journal(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the journal's folder should be")
    with pytest.raises(JournalError, match="cannot create the journal's folder"):
        Journal.open(blocker / "journal.sqlite3")


def test_the_read_only_reader_reports_a_corrupt_file_without_moving_it(path):
    path.write_bytes(b"garbage" * 1000)
    with pytest.raises(JournalError, match="cannot read the journal"):
        JournalReader.open(path)
    assert path.read_bytes() == b"garbage" * 1000
    with pytest.raises(JournalError, match="there is no journal"):
        JournalReader.open(path.with_name("absent.sqlite3"))
