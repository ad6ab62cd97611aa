"""The host's protocol state machine against the real firmware node, in virtual time."""
import dataclasses
import sys

import pytest

from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import CommandFailed, FramesDropped, LinkLost, LinkSilent, LinkUp, McuReset
from firmware_host.sensing.session import LinkSession, LinkState
from firmware_host.sim.firmware import firmware_module

CONFIG = load_sensing_config()
Node = firmware_module("node").Node


class Rig:
    """A session wired to a firmware node; `run` advances both in 25 ms scans."""

    def __init__(self, sensors=CONFIG.sensors, channels=28):
        self.clock = ManualClock()
        self.events = []
        self.counts = [(0, 0)] * channels
        self.mcu_hears = True      # False: commands are lost on the way to the MCU
        self.mcu_runs = True       # False: the MCU hangs
        self.lose_next_frame = False
        self.port_open = False     # bytes sent while the host's port is closed are lost
        self.in_flight = bytearray()
        self.channels = channels
        self.nonce = 100
        self.session = LinkSession(CONFIG.serial, sensors, write=self._to_mcu, emit=self.events.append)
        self.boot()

    def boot(self):
        self.nonce += 1
        self.node = Node(self.channels, b"ABCDEFGH", self.nonce, self._to_host)
        self.node.boot(self.ms())

    def ms(self):
        return int(self.clock.now * 1000)

    def _to_mcu(self, data):
        if self.mcu_hears and self.mcu_runs:
            self.node.receive(data, self.ms())

    def open(self):
        self.port_open = True
        self.session.opened(self.clock.now)

    def close(self, reason):
        self.port_open = False
        self.session.lost(reason)

    def _to_host(self, data):
        if not self.port_open:
            return
        if self.lose_next_frame and len(data) > 1:
            self.lose_next_frame = False
            return
        self.in_flight += data

    def run(self, seconds):
        for _ in range(round(seconds / 0.025)):
            self.clock.advance(0.025)
            if self.mcu_runs:
                self.node.scan(self.counts, self.ms())
            data, self.in_flight = bytes(self.in_flight), bytearray()
            if data:
                self.session.received(data, self.clock.now)
            self.session.tick(self.clock.now)

    def take(self, kind=object):
        taken = [event for event in self.events if isinstance(event, kind)]
        self.events[:] = [event for event in self.events if not isinstance(event, kind)]
        return taken


def opened_rig(**kwargs):
    rig = Rig(**kwargs)
    rig.open()
    rig.run(0.1)
    return rig


def test_opening_asks_for_the_hello_and_then_a_snapshot():
    rig = opened_rig()
    [up] = rig.take(LinkUp)
    assert up.hello.reason is p.HelloReason.REQUESTED and up.hello.boot_nonce == rig.nonce
    assert rig.take(p.Snapshot)
    assert rig.session.state is LinkState.UP
    assert rig.events == []


def test_the_boards_settings_are_sent_when_the_mcu_runs_others():
    sensors = dataclasses.replace(CONFIG.sensors, scan_hz=50, debounce_scans=2, heartbeat_ms=500)
    rig = opened_rig(sensors=sensors)
    assert (rig.node.scan_hz, rig.node.debouncer.scans, rig.node.heartbeat_ms) == (50, 2, 500)
    assert not rig.take(CommandFailed)


def test_an_mcu_reset_is_reported_and_its_settings_are_sent_again():
    sensors = dataclasses.replace(CONFIG.sensors, scan_hz=50)
    rig = opened_rig(sensors=sensors)
    rig.events.clear()
    rig.boot()
    rig.run(0.1)
    [reset] = rig.take(McuReset)
    assert reset.hello.reason is p.HelloReason.BOOT and reset.hello.boot_nonce == rig.nonce
    assert rig.node.scan_hz == 50
    assert rig.take(p.Snapshot) and not rig.take(LinkUp)


def test_a_silent_mcu_is_reported_after_the_missed_heartbeats_and_welcomed_back():
    rig = opened_rig()
    rig.events.clear()
    rig.mcu_runs = False
    rig.run(CONFIG.sensors.silence_timeout_s - 0.3)
    assert rig.take(LinkSilent) == []
    rig.run(0.5)
    [silent] = rig.take(LinkSilent)
    assert silent.silent_for_s >= CONFIG.sensors.silence_timeout_s
    rig.run(2.0)
    assert rig.take(LinkSilent) == [] and rig.take(LinkUp) == []
    rig.mcu_runs = True
    rig.run(0.5)   # the next retry of the hello request gets through
    [up] = rig.take(LinkUp)
    assert up.hello.boot_nonce == rig.nonce and not rig.take(McuReset)


def test_an_mcu_hung_before_the_port_opens_is_reported_silent_then_welcomed_when_it_answers():
    rig = Rig()
    rig.mcu_runs = False
    rig.open()
    rig.run(CONFIG.sensors.silence_timeout_s + 0.2)
    [silent] = rig.take(LinkSilent)
    assert silent.silent_for_s >= CONFIG.sensors.silence_timeout_s and not rig.take(LinkUp)
    rig.mcu_runs = True
    rig.run(1.0)   # a retried hello request gets through
    assert len(rig.take(LinkUp)) == 1


def test_a_reconnect_to_a_rebooted_mcu_gives_link_up_then_reset():
    rig = opened_rig()
    rig.close("unplugged")
    rig.boot()
    rig.events.clear()
    rig.open()
    rig.run(0.1)
    assert [type(event) for event in rig.events if not isinstance(event, p.Snapshot)] == [LinkUp, McuReset]


def test_a_reset_whose_boot_hello_was_lost_is_found_from_the_sequence_gap():
    rig = opened_rig()
    rig.events.clear()
    rig.lose_next_frame = True
    rig.boot()
    rig.run(0.2)
    [reset] = rig.take(McuReset)
    assert reset.hello.reason is p.HelloReason.REQUESTED and reset.hello.boot_nonce == rig.nonce


def test_a_lost_frame_is_counted_and_answered_with_a_snapshot_request():
    rig = opened_rig()
    rig.take(p.Snapshot)
    rig.lose_next_frame = True
    rig.counts = [(1, 0)] + [(0, 0)] * 27
    rig.run(0.1)     # the change's snapshot is lost ...
    assert rig.session.frames_lost == 0
    rig.run(0.3)     # ... the next frame (a heartbeat) shows the gap, and the snapshot is asked for again
    assert rig.session.frames_lost == 1
    assert rig.take(p.Snapshot)[-1].counts[0] == (1, 0)


def test_a_corrupt_frame_is_dropped_counted_and_answered_with_a_snapshot_request():
    rig = opened_rig()
    rig.take(p.Snapshot)
    rig.session.received(b"\x07\x01\x02\x03\x00", rig.clock.now)
    [dropped] = rig.take(FramesDropped)
    assert dropped.count == 1 and dropped.total == 1 and dropped.reason.startswith("cobs")
    rig.run(0.05)
    assert len(rig.take(p.Snapshot)) == 1


def test_garbage_storms_keep_at_most_one_snapshot_request_outstanding():
    rig = opened_rig()
    rig.mcu_hears = False
    sent = []
    rig.session._write = sent.append
    for _ in range(50):
        rig.session.received(b"\x09garbage\x00", rig.clock.now)
    assert len(sent) == 1 and rig.session.frames_dropped == 50


def test_an_unanswered_command_is_retried_then_reported():
    rig = opened_rig()
    rig.mcu_hears = False
    rig.session.self_test(rig.clock.now)
    rig.run(1.0)
    assert rig.take(CommandFailed) == [CommandFailed("SELF_TEST", "not acknowledged after 3 tries")]


def test_a_refused_command_is_reported_with_the_mcus_answer():
    bad = dataclasses.replace(CONFIG.sensors, scan_hz=0)   # a value the firmware refuses
    rig = opened_rig(sensors=bad)
    assert rig.take(CommandFailed) == [CommandFailed("CONFIGURE", "the MCU answered BAD_ARGUMENT")]


def test_a_self_test_report_is_handed_up():
    rig = opened_rig()
    rig.node._self_test = lambda: [(5, p.SelfTestFailure.NO_RESPONSE)]
    rig.session.self_test(rig.clock.now)
    rig.run(0.05)
    [report] = rig.take(p.SelfTestReport)
    assert report.failures == ((5, p.SelfTestFailure.NO_RESPONSE),)
    assert not rig.take(CommandFailed)


def test_an_mcu_with_another_channel_count_is_refused_and_its_snapshots_ignored():
    rig = opened_rig(channels=27)
    [lost] = rig.take(LinkLost)
    assert "scans 27 channels but the board file maps 28" in lost.reason
    rig.counts = [(1, 1)] * 27
    rig.run(0.5)
    assert rig.take(p.Snapshot) == [] and rig.session.state is LinkState.INCOMPATIBLE


def test_loss_is_reported_once_until_the_link_is_up_again():
    rig = Rig()
    for _ in range(3):
        rig.session.lost("cannot open /dev/ttyACM0")
    assert rig.take(LinkLost) == [LinkLost("cannot open /dev/ttyACM0")]
    rig.open()
    rig.run(0.1)
    rig.close("unplugged")
    assert rig.take(LinkLost) == [LinkLost("unplugged")]


@pytest.mark.parametrize("state_setup", ["starting", "down"])
def test_self_test_while_the_link_is_not_up_fails_at_once(state_setup):
    rig = Rig()
    if state_setup == "down":
        rig.session.lost("gone")
    rig.session.self_test(0.0)
    [failed] = rig.take(CommandFailed)
    assert failed.command == "SELF_TEST" and "the link is" in failed.reason


def hello_answer(monkeypatch, constant: str, value) -> str | None:
    """The MCU's firmware says hello with `constant` (PROTOCOL_VERSION, FIRMWARE_VERSION) set to
    `value`: None when the link comes up, else the reason the host gives for refusing it."""
    monkeypatch.setattr(sys.modules[Node.__module__], constant, value)
    rig = opened_rig()
    if rig.session.state is LinkState.UP:
        assert rig.take(LinkUp)
        return None
    assert rig.session.state is LinkState.INCOMPATIBLE
    [lost] = rig.take(LinkLost)
    return lost.reason


@pytest.mark.parametrize("version, accepted", [(1, True), (2, True), (3, False)])
def test_mcus_of_protocol_1_and_2_are_welcomed_and_a_newer_one_refused(monkeypatch, version, accepted):
    refused = hello_answer(monkeypatch, "PROTOCOL_VERSION", version)
    assert refused is None if accepted else f"protocol version {version}, this host versions 1, 2" in refused


def _dotted(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


OLDER_THAN_MIN = (p.MIN_FIRMWARE[0] - 1, 99, 99)


@pytest.mark.parametrize("version, accepted", [(OLDER_THAN_MIN, False), (p.MIN_FIRMWARE, True),
                                               (firmware_module("node").FIRMWARE_VERSION, True),
                                               ((p.MIN_FIRMWARE[0] + 1, 0, 0), True)])
def test_firmware_older_than_the_hosts_minimum_is_refused_with_what_to_do(monkeypatch, version, accepted):
    """Firmware before 1.0.1 reported a full stack of 16 as 15 (a game then waited for ever): the host
    refuses it by name and says how to update; the firmware this checkout ships is welcome."""
    refused = hello_answer(monkeypatch, "FIRMWARE_VERSION", version)
    if accepted:
        assert refused is None
    else:
        assert (f"firmware {_dotted(version)}, this host needs {_dotted(p.MIN_FIRMWARE)} or later" in refused
                and "Installing the firmware" in refused)


def test_an_unreadable_channel_reaches_the_host_as_none():
    rig = opened_rig()
    rig.counts = [(0, 0)] * 27 + [None]
    rig.run(2.5)
    assert rig.take(p.Snapshot)[-1].counts[-1] is None
