"""The trace ring stays bounded for weeks (issue 11): an idle board, continuous play, and a board
left at a game's end, in virtual time. The link's traffic is one record every 2 s (the MCU sends
more, in a few bigger batches a second: only the count over time matters to the ring); the
journal writes are a match's (games, rolls, plays, a match every two hours)."""
from __future__ import annotations

import json
import random
import tracemalloc

from firmware_host.journal.events import Event, Kind
from firmware_host.rules import Position, Turn
from firmware_host.service.trace import LIMIT_BYTES, TraceRecorder

HOUR = 3600.0
WEEK = 7 * 24 * HOUR
WINDOW_S = HOUR
TICK_S = 2.0
PER_HOUR = HOUR / TICK_S      # link records an hour


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeJournal:
    """What `TraceRecorder.follow` uses of a journal: its unfinished match and its write listeners."""

    def __init__(self) -> None:
        self.listeners = []
        self.seq = 0
        self.match_id = None

    def unfinished_match_events(self):
        return []

    def write(self, kind: Kind, data: dict | None = None) -> None:
        self.seq += 1
        if kind is Kind.MATCH_STARTED:
            self.match_id = self.seq
        event = Event(self.seq, self.match_id, 1, kind, "2026-11-25T00:00:00.000Z", data or {})
        for listener in self.listeners:
            listener([event])


def run(recorder: TraceRecorder, clock: Clock, seconds: float, journal: FakeJournal | None = None,
        playing: bool = False) -> list[int]:
    """The link's traffic for `seconds` (and a match's writes while `playing`); the ring's size at
    the end of every hour."""
    sizes = []
    start, tick = clock.now, 0
    while clock.now - start < seconds:
        tick += 1
        clock.now = start + tick * TICK_S
        recorder.record("rx", bytes(40))
        if playing and tick % 15 == 0:                               # a turn every 30 s
            for kind in _turn_writes(tick // 15):
                journal.write(kind)
        if tick % int(HOUR / TICK_S) == 0:
            sizes.append(len(recorder))
    return sizes


def _turn_writes(turn: int) -> list[Kind]:
    if turn % 240 == 0:                                              # a match every two hours
        return [Kind.MATCH_ENDED, Kind.MATCH_STARTED, Kind.GAME_STARTED, Kind.ROLL]
    if turn % 40 == 0:                                               # a game every 20 minutes
        return [Kind.PLAY, Kind.GAME_ENDED, Kind.GAME_STARTED, Kind.ROLL]
    return [Kind.PLAY, Kind.ROLL]


def recorder_following(journal: FakeJournal) -> tuple[TraceRecorder, Clock]:
    clock = Clock()
    recorder = TraceRecorder({}, window_s=WINDOW_S, clock=clock)
    recorder.follow(journal)
    return recorder, clock


def assert_flat_after_the_first_hours(sizes: list[int], most_windows: float) -> None:
    settled = sizes[3:]
    assert max(settled) <= most_windows * PER_HOUR * WINDOW_S / HOUR, max(settled)
    assert max(settled) - min(settled) <= 0.3 * PER_HOUR, (min(settled), max(settled))


def test_a_week_idle_keeps_the_ring_one_window_long_with_a_checkpoint_to_replay_from():
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    sizes = run(recorder, clock, WEEK, journal)
    assert len(sizes) == 7 * 24
    assert_flat_after_the_first_hours(sizes, 1.3)
    assert '"checkpoint"' in list(recorder.lines())[1]   # the trace still starts where a replay can


def test_a_week_of_continuous_play_keeps_the_ring_one_window_long():
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    sizes = run(recorder, clock, WEEK, journal, playing=True)
    assert_flat_after_the_first_hours(sizes, 1.3)
    assert '"checkpoint"' in list(recorder.lines())[1]


def test_a_board_left_at_a_games_end_for_a_week_stays_bounded_too():
    """After a game ends the journal does not resume to what the board shows (no checkpoints):
    the ring keeps its last checkpoint three windows at most."""
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    run(recorder, clock, HOUR, journal, playing=True)
    journal.write(Kind.GAME_ENDED)
    sizes = run(recorder, clock, WEEK, journal)
    assert_flat_after_the_first_hours(sizes, 3.1)


def ring_memory_after(feed) -> int:
    """The memory the ring holds (measured by tracemalloc, not counted) after `feed()`."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        feed()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_junk_read_a_byte_at_a_time_for_minutes_stays_within_the_rings_bytes():
    """Issue 29: junk at line rate over a link read one byte at a time is a record per byte; an
    hour's window of them would be gigabytes. The ring's own memory stays within LIMIT_BYTES
    (measured, not counted), and the newest bytes are the ones kept."""
    clock = Clock()
    recorder = TraceRecorder({}, window_s=WINDOW_S, clock=clock, wall_clock=clock)

    def junk() -> None:
        for byte in range(300_000):          # 26 s of bytes at 115200 baud
            clock.now += 1 / 11_520
            recorder.record("rx", bytes([byte % 256]))
    assert ring_memory_after(junk) <= 1.1 * LIMIT_BYTES
    last = json.loads(list(recorder.lines())[-1])
    assert not recorder.complete and last["rx"] == f"{299_999 % 256:02x}"


def test_an_hour_of_busy_play_keeps_the_ring_within_a_quarter_megabyte_and_replayable():
    """Issue 33: a board in play reads the MCU 10-16 times a second, a few bytes each (measured:
    bench_service_realtime.py --busy, ring_records), some 6-9 MB an hour as tuples: the ring's share of a
    service under 40 MB is a quarter of a megabyte (LIMIT_BYTES). Past it the oldest records go up
    to a checkpoint, so the trace still starts with one and reaches back minutes."""
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    journal.write(Kind.MATCH_STARTED)

    def busy_hour() -> None:
        for tick in range(1, int(HOUR * 16) + 1):
            clock.now = tick / 16
            recorder.record("rx", bytes(6))
            if tick % (30 * 16) == 0:                                # a turn every 30 s
                for kind in _turn_writes(tick // (30 * 16)):
                    journal.write(kind)
    assert ring_memory_after(busy_hour) <= 1.1 * 2**18
    first = json.loads(list(recorder.lines())[1])
    assert "checkpoint" in first and not recorder.complete
    assert clock.now - first["t"] >= 2 * 60


def test_an_idle_ring_cut_by_its_size_still_starts_with_a_checkpoint():
    """An idle board whose heartbeats fill the ring's bytes before its time window: checkpoints come
    every quarter of LIMIT_BYTES too, so the ring's first record is always one."""
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    for tick in range(1, 200_000):
        clock.now = tick / 20                                        # 20 records a second, no play
        recorder.record("rx", bytes(40))
    first = json.loads(list(recorder.lines())[1])
    assert "checkpoint" in first and not recorder.complete
    assert recorder.size_bytes <= LIMIT_BYTES


def test_the_match_kept_for_checkpoints_costs_its_text_not_its_objects():
    """Issue 33: the ring's checkpoints need the unfinished match's journal records, which the
    recorder keeps as the match goes. A play's record is some 3 KB as objects (its position's
    dicts, which nothing else holds once written); kept as its JSON text, well under 1 KB."""
    rng = random.Random(3)
    position, plays = Position.start("portes"), []
    for _ in range(60):
        play = Turn(position, (rng.randint(1, 6), rng.randint(1, 6))).pick_play(rng.choice)
        plays.append(play)
        position = play.position
    journal = FakeJournal()
    recorder, clock = recorder_following(journal)
    journal.write(Kind.MATCH_STARTED)

    def a_long_match() -> None:
        for turn in range(300):
            clock.now += 20
            journal.write(Kind.PLAY, {"side": "white", "dice": [3, 1], **plays[turn % 60].to_json()})
            journal.write(Kind.ROLL, {"side": "black", "dice": [rng.randint(1, 6), rng.randint(1, 6)]})
    assert ring_memory_after(a_long_match) <= 300 * 1000
    checkpoint = json.loads(list(recorder.lines())[-1])["checkpoint"]
    assert len(checkpoint["journal"]) == 1 + 2 * 300
    assert checkpoint["journal"][-2]["data"]["position"] == plays[299 % 60].to_json()["position"]
