"""A journal damaged as an SD card damages it on a power cut never loses a committed play silently.

Matches are played into a journal; at random moments (some records checkpointed into the database,
the newest in the write-ahead log) its files are copied as a power cut would leave them, and the
copy is damaged at a random offset of the WAL or of the database: a sector overwritten with noise or
zeros, one byte changed, or the file cut short. Opened again, the journal must either hold the
unfinished match exactly as committed, or say that it lost records (`damage`, the files kept aside)
and go on from a proven point of a match as it was committed (the same match, or the one before if
the new one's start was lost), never from anything else; and it must
open (a damaged journal never stops the service). A silent loss is a journal that says nothing and
resumes anything other than what was committed.
"""
import random
from pathlib import Path

import pytest

from firmware_host.journal import Journal, Kind
from firmware_host.journal.proof import MARK_SUFFIX, read_mark
from firmware_host.rules.match import MatchRules
from journal_kit import power_cut_copy, step

JOURNALS = 6          # journals played
SNAPSHOTS = 4         # power cuts copied from each
DAMAGES = 6           # damaged copies of each power cut: half in the WAL, half in the database
SECTOR = 512


def damage(path: Path, rng: random.Random) -> str:
    data = bytearray(path.read_bytes())
    offset = rng.randrange(len(data))
    kind = rng.choice(["noise", "zeros", "byte", "cut"])
    sector = offset - offset % SECTOR
    if kind == "noise":
        data[sector:sector + SECTOR] = rng.randbytes(len(data[sector:sector + SECTOR]))
    elif kind == "zeros":
        data[sector:sector + SECTOR] = bytes(len(data[sector:sector + SECTOR]))
    elif kind == "byte":
        data[offset] ^= rng.randrange(1, 256)
    else:
        del data[sector:]
    path.write_bytes(bytes(data))
    return f"{kind} at {offset} of {path.name}"


def records(events) -> list[dict]:
    return [event.to_json() for event in events]


def test_no_committed_play_is_lost_silently(tmp_path):
    rng = random.Random(18)
    trials = silent = reported = 0
    problems = []
    for played in range(JOURNALS):
        journal = Journal.open(tmp_path / f"played-{played}" / "journal.sqlite3")
        journal.start_match(MatchRules(sequence=("portes", "plakoto"), target=3))
        checkpoint_at = rng.randrange(10, 60)
        for number in range(1, 60 + SNAPSHOTS * 25):
            if journal.resume() is None:
                journal.start_match(MatchRules(sequence=("portes",), target=1))
            step(journal, rng)
            if number == checkpoint_at:
                journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # older records into the database
            if number >= 60 and number % 25 == 0:
                cut = power_cut_copy(journal.path, tmp_path / f"cut-{played}-{number}")
                committed = records(journal.unfinished_match_events())
                by_match = {}
                for record in records(journal.tail(10 ** 6)):
                    by_match.setdefault(record["match"], []).append(record)
                for attempt in range(DAMAGES):
                    copy = power_cut_copy(cut, tmp_path / f"trial-{played}-{number}-{attempt}")
                    target = Path(f"{copy}-wal") if attempt % 2 == 0 else copy
                    if not target.exists() or target.stat().st_size == 0:
                        target = copy
                    what = damage(target, rng)
                    reopened = Journal.open(copy)
                    after = records(reopened.unfinished_match_events())
                    trials += 1
                    if reopened.damage is None:
                        if after != committed:
                            silent += 1
                            problems.append(f"silent loss: {what}")
                    else:
                        reported += 1
                        assert reopened.moved_aside is not None and reopened.moved_aside.exists()
                        if after and after != by_match[after[0]["match"]][:len(after)]:
                            problems.append(f"resumed from something never committed: {what}")
                    reopened.close()
        journal.close()
    print(f"damaged journals: {trials}, silent losses: {silent}, losses reported: {reported}")
    assert trials == JOURNALS * SNAPSHOTS * DAMAGES and not problems, problems
    assert reported > trials // 4, "too few damages hit a record to tell anything"


def test_a_lost_tail_is_found_and_the_match_goes_on_from_the_last_proven_play(tmp_path, caplog):
    path = tmp_path / "journal.sqlite3"
    rng = random.Random(3)
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",), target=1))
    for _ in range(12):
        step(journal, rng)
    committed = records(journal.unfinished_match_events())
    cut = power_cut_copy(path, tmp_path / "cut")
    wal = Path(f"{cut}-wal")
    frames = (wal.stat().st_size - 32) // (4096 + 24)
    # The last frames of the WAL torn: SQLite alone would open the journal a few plays back, silently.
    with wal.open("r+b") as file:
        file.seek(32 + (frames - 3) * (4096 + 24) + 24 + 100)
        file.write(b"\xff" * 64)
    reopened = Journal.open(cut)
    assert reopened.damage and "committed up to record" in reopened.damage
    after = records(reopened.unfinished_match_events())
    assert len(after) < len(committed) and after == committed[:len(after)]
    assert any(event.kind is Kind.SERVICE and event.data["what"] == "journal_damaged" for event in reopened.tail(5))
    moved = reopened.moved_aside
    assert Path(f"{moved}-wal").exists() and read_mark(moved).seq == journal.tail(1)[0].seq
    assert "lost committed records" in caplog.text


def test_a_journal_closed_and_opened_again_is_not_damaged(tmp_path):
    path = tmp_path / "journal.sqlite3"
    rng = random.Random(4)
    with Journal.open(path) as journal:
        journal.start_match(MatchRules())
        for _ in range(20):
            step(journal, rng)
        committed = records(journal.unfinished_match_events())
    reopened = Journal.open(path)
    assert reopened.damage is None and records(reopened.unfinished_match_events()) == committed


def test_a_missing_mark_cannot_prove_the_tail(tmp_path):
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.start_match(MatchRules())
    Path(f"{path}{MARK_SUFFIX}").unlink()
    reopened = Journal.open(path)
    assert "mark" in reopened.damage and reopened.resume() is not None   # the proven match goes on


@pytest.mark.parametrize("lost", ["database", "everything"])
def test_a_journal_whose_database_vanished_says_so(tmp_path, lost):
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.start_match(MatchRules())
    path.unlink()
    if lost == "everything":
        Path(f"{path}{MARK_SUFFIX}").unlink()
    reopened = Journal.open(path)
    assert (reopened.damage is not None) == (lost == "database") and reopened.resume() is None
