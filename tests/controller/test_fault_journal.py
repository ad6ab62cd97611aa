"""Issue 6: the journal holds every fault and every reconnect. Driven on the whole application in
virtual time (the real link session and stabiliser, the simulated MCU behind a virtual cable), so
the events are the ones a pulled cable and a flickering sensor really produce.

Issue 29: a fault that comes and goes is one episode in the journal: a `fault` record when it
begins, a `fault_cleared` record with the count once it has stayed away for the quiet time
(controller/faults.py), however often it came back in between."""
import pytest

from hypothesis import given, strategies as st

from firmware_host.controller import faults as episodes
from firmware_host.controller import machine as m
from firmware_host.hil.soak import Figures, SoakMatch, soak_config
from firmware_host.journal import Kind
from firmware_host.journal.export import match_json
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.events import FaultKind, LinkLost, LinkUp, McuReset, SensorFault, SensorFaultCleared

from controller_kit import Rig


@pytest.fixture
def rig(tmp_path):
    match = SoakMatch(soak_config(), MatchRules(sequence=("portes",), target=1), seed=3, fault_rate=0,
                      figures=Figures(), folder=tmp_path)
    # The board lies set up: the game begins at once.
    match.table.wait(lambda seen: seen.state == m.OPENING_ROLL, "the game to begin")
    yield match
    match.close()


def faults(match: SoakMatch) -> list[tuple[str, str]]:
    """(record kind, fault) of every fault and fault-cleared record, oldest first."""
    return [(event.kind.value, event.data["fault"]) for event in match.rig.journal.tail(1_000_000)
            if event.kind in (Kind.FAULT, Kind.FAULT_CLEARED)]


def test_a_pulled_cable_is_journaled_as_lost_and_its_reconnect_as_cleared(rig):
    rig.mcu.unplug()
    rig.advance(3.0)
    assert rig.rig.controller.state == m.LINK_LOST
    assert faults(rig) == [("fault", "link_lost")]
    rig.mcu.replug()
    seen = rig.table.wait(lambda s: s.sensed is not None, "the board to be read again")
    assert seen.state == m.OPENING_ROLL
    # The replugged MCU boots again (USB power): the reset is journaled too, after the reconnect.
    assert faults(rig) == [("fault", "link_lost"), ("fault", "mcu_reset")]
    rig.advance(episodes.EPISODE_QUIET_S + 1.0)
    assert faults(rig) == [("fault", "link_lost"), ("fault", "mcu_reset"),
                           ("fault_cleared", "link_lost"), ("fault_cleared", "mcu_reset")]
    cleared = [e.data for e in rig.rig.journal.tail(1_000_000) if e.kind is Kind.FAULT_CLEARED][0]
    assert cleared["down_s"] >= 3.0 and cleared["count"] == 1


def test_a_flickering_sensor_is_journaled_as_a_fault_and_as_cleared_once_repaired(rig):
    rig.mcu.flicker("point:7", (1, 0), period_s=0.2)
    rig.advance(5.0)
    assert rig.rig.controller.state == m.SENSOR_FAULT
    rig.mcu.unstick("point:7")
    rig.table.wait(lambda s: s.state == m.OPENING_ROLL, "the fault to clear")
    rig.advance(episodes.EPISODE_QUIET_S + 1.0)
    assert faults(rig) == [("fault", "sensor_fault"), ("fault_cleared", "sensor_fault")]


def test_only_a_link_that_was_lost_is_journaled_as_back(tmp_path):
    rig = Rig(tmp_path)
    rig.send(LinkUp(hello=None))   # the link's first hello at start: no reconnect
    rig.send(LinkLost("unplugged"))
    rig.send(LinkLost("cannot open the port"))   # still down: one fault
    rig.wait(2.0)
    rig.send(LinkUp(hello=None))
    assert rig.state == m.SETUP
    rig.wait(episodes.EPISODE_QUIET_S)
    assert [r["fault"] for r in rig.records(Kind.FAULT)] == ["link_lost"]
    assert [(r["fault"], r["down_s"], r["count"]) for r in rig.records(Kind.FAULT_CLEARED)] == [("link_lost", 2.2, 1)]


def flapping(rig: Rig, times: int, begins, ends) -> None:
    """`begins` then `ends` `times` times, a tenth of a second apart (each `send` is a step on)."""
    for _ in range(times):
        rig.send(begins)
        rig.wait(0.1)
        if ends is not None:
            rig.send(ends)
            rig.wait(0.1)


@pytest.mark.parametrize("fault, begins, ends", [
    ("sensor_fault", SensorFault("point:7", FaultKind.FLICKER, "6 changes within 1 s"),
     SensorFaultCleared("point:7", FaultKind.FLICKER)),
    ("link_lost", LinkLost("unplugged"), LinkUp(hello=None)),
    ("mcu_reset", McuReset(hello=None), None),
])
def test_a_fault_that_comes_and_goes_a_thousand_times_is_one_episode_with_its_count(tmp_path, fault, begins, ends):
    rig = Rig(tmp_path)
    rig.send(LinkUp(hello=None))
    flapping(rig, 1000, begins, ends)
    assert [(r["fault"], r["message"]) for r in rig.records(Kind.FAULT)] == \
        [(fault, begins.reason if fault != "mcu_reset" else "the sensor MCU restarted; the board is read afresh")]
    assert rig.records(Kind.FAULT_CLEARED) == []   # the episode goes on while the fault keeps coming back
    rig.wait(episodes.EPISODE_QUIET_S)
    cleared = rig.records(Kind.FAULT_CLEARED)
    assert [(r["fault"], r["count"]) for r in cleared] == [(fault, 1000)]
    if fault == "sensor_fault":
        assert (cleared[0]["location"], cleared[0]["fault_kind"]) == ("point:7", "flicker")


def test_a_fault_back_after_the_quiet_time_is_a_new_episode_and_another_location_its_own(tmp_path):
    rig = Rig(tmp_path)
    point7, point8 = (SensorFault(f"point:{n}", FaultKind.FLICKER, "flicker") for n in (7, 8))
    rig.send(point7)
    rig.send(point8)
    rig.send(SensorFaultCleared("point:7", FaultKind.FLICKER))
    rig.send(SensorFaultCleared("point:8", FaultKind.FLICKER))
    rig.wait(episodes.EPISODE_QUIET_S)
    rig.send(point7)
    rig.send(SensorFaultCleared("point:7", FaultKind.FLICKER))
    rig.wait(episodes.EPISODE_QUIET_S)
    assert [r["location"] for r in rig.records(Kind.FAULT)] == ["point:7", "point:8", "point:7"]
    assert [(r["location"], r["count"]) for r in rig.records(Kind.FAULT_CLEARED)] == \
        [("point:7", 1), ("point:8", 1), ("point:7", 1)]


class Records:
    """What `faults.py` uses of a journal: its two fault records."""

    def __init__(self) -> None:
        self.faults, self.cleared = [], []

    def record_fault(self, fault, message, **details):
        self.faults.append(fault)

    def record_fault_cleared(self, fault, message, **details):
        self.cleared.append((fault, details["count"]))


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.booleans(), st.floats(0, 30)), max_size=60))
def test_every_beginning_of_a_fault_is_counted_in_exactly_one_episode(steps):
    """Begins and ends of two faults at any pace: one `fault` record per episode, at most one
    `fault_cleared` each, and the counts (closed, and still open) add up to the beginnings."""
    journal, open_episodes, now = Records(), {}, 0.0
    for key, begins, wait_s in steps:
        now += wait_s
        episodes.close_quiet(open_episodes, journal, now)
        if begins:
            episodes.begin(open_episodes, journal, key, now, key, "began")
        else:
            episodes.end(open_episodes, key, now, "ended")
    assert len(journal.faults) == len(journal.cleared) + len(open_episodes)
    assert sum(count for _, count in journal.cleared) + sum(e.count for e in open_episodes.values()) == \
        sum(begins for _, begins, _ in steps)


def test_the_readers_see_an_episode_as_one_fault_with_its_count_and_resuming_is_untouched(tmp_path):
    """The export lists the episode's two records in the game under way, each still of its own kind
    (a sensor fault's kind of fault once took the name of the record's kind), the count on the
    second; a restart resumes the game where it stood, its dice still to play."""
    rig = Rig(tmp_path, (6, 5, 6, 5))
    rig.to_moving()
    dice = rig.controller.dice
    flapping(rig, 100, SensorFault("point:7", FaultKind.FLICKER, "6 changes within 1 s"),
             SensorFaultCleared("point:7", FaultKind.FLICKER))
    rig.wait(episodes.EPISODE_QUIET_S)
    game_events = match_json(rig.journal.match_events(rig.journal.match_ids()[-1]))["games"][0]["events"]
    assert [(e["kind"], e["fault_kind"], e.get("count")) for e in game_events if "fault" in e] == \
        [("fault", "flicker", None), ("fault_cleared", "flicker", 100)]
    rig.restart()
    assert rig.state == "resuming"
    rig.lay_out(rig.controller.position)
    assert (rig.state, rig.controller.dice) == ("moving", dice)
