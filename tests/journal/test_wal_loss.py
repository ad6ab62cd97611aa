"""A journal whose records were all in its write-ahead log, when that log is lost or damaged from its
first frame, or when the service is killed while moving a damaged journal aside: the loss is said
(`damage`, until a person acknowledges it), never taken for a new journal."""
import random
import shutil
from pathlib import Path

import pytest

from firmware_host.journal import Journal, Kind
from firmware_host.journal import store
from firmware_host.journal.proof import MARK_SUFFIX, read_mark
from firmware_host.rules.match import MatchRules
from journal_kit import power_cut_copy, step

WAL_HEADER, FRAME_HEADER, PAGE = 32, 24, 4096


@pytest.fixture
def recorded(tmp_path) -> tuple[Path, list[dict]]:
    """A game in progress, never checkpointed (every record in the -wal), copied as a power cut leaves
    it; and its unfinished match's records."""
    journal = Journal.open(tmp_path / "played" / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("portes",), target=3))
    rng = random.Random(7)
    for _ in range(15):
        step(journal, rng)
    committed = [event.to_json() for event in journal.unfinished_match_events()]
    cut = power_cut_copy(journal.path, tmp_path / "cut")
    journal.close()
    assert Path(f"{cut}-wal").stat().st_size > WAL_HEADER and read_mark(cut) is not None
    return cut, committed


def assert_loss_said(path: Path, committed: list[dict]) -> Journal:
    journal = Journal.open(path)
    after = [event.to_json() for event in journal.unfinished_match_events()]
    assert journal.damage is not None, "a journal that lost every record started afresh without a word"
    assert after == committed[:len(after)]
    return journal


@pytest.mark.parametrize("offset", [0, 5, FRAME_HEADER + 40, FRAME_HEADER + 100, FRAME_HEADER + PAGE - 1])
def test_a_byte_flipped_in_the_first_wal_frame_is_a_loss_said(recorded, offset):
    path, committed = recorded
    wal = Path(f"{path}-wal")
    data = bytearray(wal.read_bytes())
    data[WAL_HEADER + offset] ^= 0x5A
    wal.write_bytes(bytes(data))
    journal = assert_loss_said(path, committed)
    assert "mark" in journal.damage and journal.moved_aside is not None and journal.moved_aside.exists()


def test_a_lost_wal_is_a_loss_said_and_the_mark_goes_with_the_damaged_files(recorded):
    path, committed = recorded
    Path(f"{path}-wal").unlink()
    mark_before = read_mark(path)
    journal = assert_loss_said(path, committed)
    # The damaged files keep their mark; the new journal's mark proves only the new journal.
    assert read_mark(journal.moved_aside) == mark_before
    assert read_mark(path).seq == journal.tail(1)[0].seq < mark_before.seq


def test_the_loss_is_said_at_every_start_until_a_person_acknowledges_it(recorded):
    path, committed = recorded
    Path(f"{path}{MARK_SUFFIX}").unlink()   # nothing after the first record proven: a loss to say
    first = Journal.open(path)
    assert first.damage is not None
    first.close()                           # the service stopped (or was killed) before anyone saw it
    again = Journal.open(path)
    assert again.damage is not None and again.moved_aside is not None
    again.record_fault_cleared("journal_damaged", "a press acknowledged the lost records", damage=again.damage)
    again.close()
    assert Journal.open(path).damage is None


class Killed(BaseException):
    """A kill -9 at this instant: nothing after it runs, nothing is cleaned up."""


class Killer:
    """Counts the changes opening makes to the files (renames, copies, the new journal, its mark) and
    kills the opening before change number `at`."""

    def __init__(self, monkeypatch):
        self.at: int | None = None
        self.steps: list[str] = []
        for owner, name in ((Path, "rename"), (shutil, "copyfile"), (store, "_write_new"), (store, "replace_mark")):
            if hasattr(owner, name):
                monkeypatch.setattr(owner, name, self._counted(getattr(owner, name)))

    def _counted(self, function):
        def step_then_maybe_die(*args, **kwargs):
            if self.at is not None:
                if len(self.steps) == self.at:
                    raise Killed()
                self.steps.append(function.__name__)
            return function(*args, **kwargs)
        return step_then_maybe_die

    def open(self, path: Path, at: int) -> None:
        self.at, self.steps = at, []
        try:
            Journal.open(path).close()
        finally:
            self.at = None


def test_a_kill_at_any_moment_of_the_move_aside_never_starts_afresh_without_a_word(recorded, monkeypatch, tmp_path):
    path, committed = recorded
    wal = Path(f"{path}-wal")
    data = bytearray(wal.read_bytes())
    data[WAL_HEADER + FRAME_HEADER + 40] ^= 0xFF   # the first frame lost: opening must move the journal aside
    wal.write_bytes(bytes(data))
    killer = Killer(monkeypatch)
    killer.open(power_cut_copy(path, tmp_path / "whole"), at=10 ** 6)
    changes = list(killer.steps)
    assert len(changes) >= 4, changes
    for at in range(len(changes)):
        copy = power_cut_copy(path, tmp_path / f"killed-at-{at}")
        with pytest.raises(Killed):
            killer.open(copy, at)
        journal = Journal.open(copy)
        assert journal.damage is not None, f"killed before {changes[at]} (change {at} of {changes}): started afresh"
        journal.close()


def test_a_new_empty_journal_is_not_damaged(tmp_path):
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    journal = Journal.open(path)
    assert journal.damage is None and journal.moved_aside is None
    assert [event.data["what"] for event in journal.tail(5) if event.kind is Kind.SERVICE] == ["journal_opened"] * 2
