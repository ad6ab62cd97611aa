"""`history`, `export` and `dice-stats` on journals with odd contents, damaged journals and odd paths:
a clear line and an exit code, never a traceback; a journal that lost records says so in one line."""
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.journal import Journal
from firmware_host.rules.match import MatchRules
from journal_kit import play_match, power_cut_copy, step

ODD_VALUES = [None, [], {}, "x", -1, 10 ** 30, 1.5, True, ["white"], {"winner": "purple"}]


def recorded_matches(path: Path) -> list[tuple]:
    """A finished portes match and an unfinished one, as rows."""
    with Journal.open(path) as journal:
        rng = random.Random(11)
        journal.start_match(MatchRules(sequence=("portes",), target=1))
        play_match(journal, rng)
        journal.start_match(MatchRules(sequence=("portes", "plakoto"), target=3))
        for _ in range(8):
            step(journal, rng)
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT seq, match_id, game, kind, at, data, chain FROM events ORDER BY seq").fetchall()


ODD_COLUMNS = {1: [None, 0, 99, -5, "2", 2.5], 2: [None, 0, 7, "x"], 3: ["mystery", "", "ROLL"], 4: [5, "", "yesterday"]}


def odd_copies(rows: list[tuple], rng: random.Random, count: int):
    """(what was changed, rows) with one field of one record's data replaced by an odd value, or
    removed, or one of its columns (match, game, kind, time) given an odd value."""
    for _ in range(count):
        index = rng.randrange(len(rows))
        seq, match_id, game, kind, at, data, chain = rows[index]
        if rng.random() < 0.3:
            column = rng.choice(sorted(ODD_COLUMNS))
            row = list(rows[index])
            row[column] = rng.choice(ODD_COLUMNS[column])
            yield f"record {seq} with column {column} = {row[column]!r}", rows[:index] + [tuple(row)] + rows[index + 1:]
            continue
        record = json.loads(data)
        key = rng.choice(sorted(record))
        if rng.random() < 0.2:
            del record[key]
            what = f"record {seq} ({kind}) without {key}"
        else:
            record[key] = rng.choice(ODD_VALUES)
            what = f"record {seq} ({kind}) with {key} = {record[key]!r}"
        yield what, rows[:index] + [(seq, match_id, game, kind, at, json.dumps(record), chain)] + rows[index + 1:]


def write_rows(path: Path, rows: list[tuple]) -> None:
    Journal.open(path).close()   # the schema; its one record replaced below
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER events_are_never_deleted")
        connection.execute("DELETE FROM events")
        connection.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    Path(f"{path}-mark").unlink()


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_odd_records_are_one_line_never_a_traceback(tmp_path, capsys):
    rows = recorded_matches(tmp_path / "recorded.sqlite3")
    unreadable = 0
    for number, (what, odd) in enumerate(odd_copies(rows, random.Random(3), 60)):
        path = tmp_path / f"odd-{number}.sqlite3"
        write_rows(path, odd)
        for argv in (["history"], ["export", "1"], ["export", "2"], ["export", "1", "--format", "mat"],
                     ["dice-stats"], ["dice-stats", "--match", "2"]):
            code, out, err = run(capsys, *argv, "--journal", str(path))   # an exception fails the test
            assert code in (0, 1, 2), (what, argv, code)
            assert "Traceback" not in err, (what, argv, err)
            if code != 0:
                assert len(err.strip().splitlines()) == 1, (what, argv, err)
            unreadable += code == 2
    assert unreadable > 10, "too few odd records reached a reader to tell anything"


def test_a_record_that_is_not_a_json_object_and_an_unknown_kind_are_one_line(tmp_path, capsys):
    rows = recorded_matches(tmp_path / "recorded.sqlite3")
    for change in ({5: "[1, 2]"}, {5: "not json"}, {"kind": "mystery"}):
        odd = list(rows)
        seq, match_id, game, kind, at, data, chain = odd[4]
        if "kind" in change:
            kind = change["kind"]
        else:
            data = change[5]
        odd[4] = (seq, match_id, game, kind, at, data, chain)
        path = tmp_path / f"odd-{len(list(tmp_path.iterdir()))}.sqlite3"
        write_rows(path, odd)
        for argv in (["history"], ["export", "1"], ["dice-stats"]):
            code, out, err = run(capsys, *argv, "--journal", str(path))
            assert code in (1, 2) and len(err.strip().splitlines()) == 1 and "record 5" in err, (change, argv, err)


def test_a_journal_that_lost_records_says_so_in_one_line_and_what_it_still_holds(tmp_path, capsys):
    journal = Journal.open(tmp_path / "played" / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("portes",), target=1))
    play_match(journal, random.Random(4))
    journal.start_match(MatchRules(sequence=("portes",), target=3))
    for _ in range(10):
        step(journal, random.Random(5))
    cut = power_cut_copy(journal.path, tmp_path / "cut")
    journal.close()
    Path(f"{cut}-wal").unlink()   # every record was in the write-ahead log: the database alone holds none
    for argv in (["history"], ["dice-stats"]):
        code, out, err = run(capsys, *argv, "--journal", str(cut))
        assert code != 0 and "lost committed records" in err and len(err.strip().splitlines()) == 1, (argv, err)
    intact = tmp_path / "intact"
    journal = Journal.open(intact / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("portes",), target=1))
    play_match(journal, random.Random(4))
    cut = power_cut_copy(journal.path, tmp_path / "cut-intact")
    journal.close()
    wal = Path(f"{cut}-wal")
    data = bytearray(wal.read_bytes())
    data[-100] ^= 0xFF                # the last frame torn: SQLite silently reads an older journal
    wal.write_bytes(bytes(data))
    code, out, err = run(capsys, "dice-stats", "--journal", str(cut))
    assert code == 1 and "rolls of two dice" in out and "lost committed records" in err and \
        len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "export", "1", "--journal", str(cut))
    assert code == 1 and json.loads(out)["match"] == 1 and "lost committed records" in err


@pytest.mark.parametrize("place", ["folder", "device", "long"])
def test_a_journal_path_that_can_be_no_journal_is_one_line(tmp_path, capsys, place):
    path = {"folder": tmp_path, "device": Path("/dev/null"), "long": tmp_path / ("a" * 5000)}[place]
    config = tmp_path / "config.toml"
    config.write_text(f'hardware = "simulated"\n[journal]\npath = "{path}"\n')
    for argv in (["history", "--journal", str(path)], ["export", "1", "--journal", str(path)],
                 ["dice-stats", "--journal", str(path)], ["config", "check", "--config", str(config)]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)
    assert list(tmp_path.glob("*.corrupt-*")) == []


def test_run_refuses_a_folder_as_its_journal_and_moves_nothing(tmp_path):
    folder = tmp_path / "journal.sqlite3"
    folder.mkdir()
    (folder / "keep").write_text("a person's files")
    config = tmp_path / "config.toml"
    config.write_text(f'hardware = "simulated"\n[journal]\npath = "{folder}"\n'
                      f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n')
    try:   # in a child: a service that started anyway would run until stopped
        child = subprocess.run([sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
                               capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the service started with a folder as its journal")
    assert child.returncode == 2 and "is a folder" in child.stderr and (folder / "keep").exists()
    assert [child.name for child in tmp_path.iterdir() if "corrupt" in child.name] == []

