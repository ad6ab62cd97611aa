"""Issue 6: the journal holds every fault and every reconnect. Driven on the whole application in
virtual time (the real link session and stabiliser, the simulated MCU behind a virtual cable), so
the events are the ones a pulled cable and a flickering sensor really produce."""
import pytest

from firmware_host.controller import machine as m
from firmware_host.hil.soak import Figures, SoakMatch, soak_config
from firmware_host.journal import Kind
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.events import LinkLost, LinkUp

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
    assert faults(rig) == [("fault", "link_lost"), ("fault_cleared", "link_lost"), ("fault", "mcu_reset")]
    cleared = [e.data for e in rig.rig.journal.tail(1_000_000) if e.kind is Kind.FAULT_CLEARED][0]
    assert cleared["down_s"] >= 3.0


def test_a_flickering_sensor_is_journaled_as_a_fault_and_as_cleared_once_repaired(rig):
    rig.mcu.flicker("point:7", (1, 0), period_s=0.2)
    rig.advance(5.0)
    assert rig.rig.controller.state == m.SENSOR_FAULT
    rig.mcu.unstick("point:7")
    rig.table.wait(lambda s: s.state == m.OPENING_ROLL, "the fault to clear")
    assert faults(rig) == [("fault", "sensor_fault"), ("fault_cleared", "sensor_fault")]


def test_only_a_link_that_was_lost_is_journaled_as_back(tmp_path):
    rig = Rig(tmp_path)
    rig.send(LinkUp(hello=None))   # the link's first hello at start: no reconnect
    rig.send(LinkLost("unplugged"))
    rig.send(LinkLost("cannot open the port"))   # still down: one fault
    rig.wait(2.0)
    rig.send(LinkUp(hello=None))
    assert [r["fault"] for r in rig.records(Kind.FAULT)] == ["link_lost"]
    assert [(r["fault"], r["down_s"]) for r in rig.records(Kind.FAULT_CLEARED)] == [("link_lost", 2.2)]
    assert rig.state == m.SETUP
