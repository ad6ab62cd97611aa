"""A journal write that fails (a full disk, a card turned read-only) is a storage fault, not a
half-applied event: the event is undone, the game held with "storage-fault" on the dice, tried again,
and carried on when the journal takes records again, with nothing lost.

The whole game is played once for every N: with the journal failing at its N-th write (and every
write after, until space returns)."""
import random
import sqlite3

import pytest

from firmware_host.controller.controller import STORAGE_RETRY_S
from firmware_host.hw.dice import DiceSource
from firmware_host.journal import Journal, Kind
from firmware_host.leds.scene import DiceSignal
from firmware_host.rules import Turn
from firmware_host.rules.match import MatchRules

from controller_kit import Board, Rig

SEED = 5


class FillingDisk:
    """Stands in for the journal's SQLite connection: its N-th INSERT, and every write after it,
    fails as a full disk does, until `space_returns`."""

    def __init__(self, connection: sqlite3.Connection, fail_at: int | None):
        self._connection = connection
        self.fail_at = fail_at
        self.inserts = 0
        self.full = False

    def execute(self, sql: str, *parameters):
        writes = sql.startswith(("INSERT", "COMMIT"))
        if sql.startswith("INSERT"):
            self.inserts += 1
            self.full = self.full or self.inserts == self.fail_at
        if writes and self.full:
            raise sqlite3.OperationalError("database or disk is full")
        return self._connection.execute(sql, *parameters)

    def space_returns(self) -> None:
        self.full = False

    def __getattr__(self, name):
        return getattr(self._connection, name)


class RandomDice(DiceSource):
    def __init__(self, seed: int):
        self._rng = random.Random(seed)

    def roll_die(self) -> int:
        return self._rng.randint(1, 6)


def fast_disk(monkeypatch) -> None:
    """Durability is not what these tests are about: no fsyncs, or a thousand games take minutes."""
    monkeypatch.setattr("firmware_host.journal.proof._sync_data", lambda fd: None)


def play_game(tmp_path, fail_at: int | None) -> tuple[Rig, FillingDisk, list, int]:
    """A game of portes with seeded dice and plays; returns the rig, the disk, the positions the
    players committed with a press (in order) and how many storage faults they met."""
    rig = Rig(tmp_path, match=MatchRules(sequence=("portes",), target=1), dice_source=RandomDice(SEED))
    rig.journal._db.execute("PRAGMA synchronous = OFF")
    disk = FillingDisk(rig.journal._db, fail_at)
    rig.journal._db = disk
    controller, choose = rig.controller, random.Random(SEED).choice
    committed, faults = [], 0
    for _ in range(5000):
        if controller.storage_fault is not None:
            faults += 1
            assert rig.scene.dice_signal is DiceSignal.STORAGE_FAULT
            before = (rig.state, controller.position, controller.dice, len(rig.records(Kind.PLAY)))
            rig.press()                                  # the game is held: a press does nothing
            rig.wait(STORAGE_RETRY_S)                    # still full: tried again, still held
            assert controller.storage_fault is not None
            assert (rig.state, controller.position, controller.dice, len(rig.records(Kind.PLAY))) == before
            disk.space_returns()
            rig.wait(STORAGE_RETRY_S)
            assert controller.storage_fault is None and rig.scene.dice_signal is not DiceSignal.STORAGE_FAULT
            continue
        state = rig.state
        if state == "match_over":
            return rig, disk, committed, faults
        if state == "setup":
            rig.start_game()
        elif state in ("opening_roll", "awaiting_roll"):
            rig.press()
        elif state == "moving":
            play = Turn(controller.position, controller.dice, controller.rules).pick_play(choose)
            rig.show(Board.of(play.position, controller.orientation))
            rig.press()
            committed.append(play.position.to_json())
        elif state == "game_over":
            rig.wait(controller.timings.game_over_s)
        else:
            raise AssertionError(f"the game stopped in {state}")
    raise AssertionError("the game did not end")


def test_a_game_whose_journal_fails_at_its_nth_write_loses_nothing_for_every_n(tmp_path, monkeypatch):
    fast_disk(monkeypatch)
    _, baseline, _, _ = play_game(tmp_path / "baseline", None)
    writes = baseline.inserts
    assert writes > 100
    tried = 0
    for fail_at in range(1, writes + 1):
        rig, disk, committed, faults = play_game(tmp_path / f"fails-at-{fail_at}", fail_at)
        tried += 1
        assert faults == 1, f"write {fail_at}: {faults} storage faults"
        plays = [record["position"] for record in rig.records(Kind.PLAY)]
        assert plays == committed, f"write {fail_at}: the journal does not hold the plays committed"
        (ended,) = rig.records(Kind.MATCH_ENDED)
        assert ended["winner"] == rig.controller.match.winner.value
        assert [record["fault"] for record in rig.records(Kind.FAULT)] == ["storage"]
        rig.journal.close()
        reopened = Journal.open(rig.journal_path)
        assert reopened.damage is None and reopened.resume() is None
        reopened.close()
    print(f"failing-write positions tried: {tried}")


def test_a_failed_commit_leaves_the_turn_as_it_was_and_goes_on_when_space_returns(tmp_path, monkeypatch):
    fast_disk(monkeypatch)
    rig = Rig(tmp_path, (6, 5, 6, 5, 3, 1), match=MatchRules(sequence=("portes",), target=3))
    rig.to_moving()
    rig.show(rig.board.move("24", "13", "white"))
    disk = FillingDisk(rig.journal._db, fail_at=None)
    rig.journal._db, disk.full = disk, True
    rig.press()                                    # the commit: a play and Black's roll, one transaction
    assert rig.controller.storage_fault is not None and "disk is full" in rig.controller.storage_fault.reason
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "white", (6, 5))   # not half-way
    assert rig.scene.dice_signal is DiceSignal.STORAGE_FAULT and rig.records(Kind.PLAY) == []
    assert rig.controller.next_deadline() == pytest.approx(rig.now + STORAGE_RETRY_S)
    disk.full = False
    rig.wait(STORAGE_RETRY_S)
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))
    assert [(record["fault"]) for record in rig.records(Kind.FAULT_CLEARED)] == ["storage"]
    assert len(rig.records(Kind.PLAY)) == 1 and rig.records(Kind.ROLL)[-1]["dice"] == [3, 1]


def test_a_real_full_database_is_a_storage_fault(tmp_path):
    """SQLite's own "database or disk is full", from a page limit: the same path as a full card."""
    rig = Rig(tmp_path, (6, 5, 6, 5, 3, 1), match=MatchRules(sequence=("portes",), target=3))
    rig.to_moving()
    db = rig.journal._db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    for _ in range(200):                           # refusals, journaled, until a new page is needed
        rig.press()
        rig.wait(rig.timings.refusal_s)
        if rig.controller.storage_fault is not None:
            break
    assert rig.controller.storage_fault is not None and rig.scene.dice_signal is DiceSignal.STORAGE_FAULT
    db.execute(f"PRAGMA max_page_count = {pages * 100}")
    rig.wait(STORAGE_RETRY_S)
    assert rig.controller.storage_fault is None and rig.state == "moving"
