"""Frames with a good CRC that cannot be true of this board: each is dropped as a counted fault with a
reason (`FramesDropped`), never an exception, never a reading that reaches a verdict."""
import dataclasses

import pytest

from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import BoardChanging, FaultKind, FramesDropped, SelfTestResult, SensorFault
from firmware_host.sensing.sensor import BoardSensor

CONFIG = load_sensing_config()
CHANNELS = CONFIG.sensors.channels


def connected_sensor(config=CONFIG):
    events = []
    sensor = BoardSensor(config, events.append, ManualClock())
    s = CONFIG.sensors
    hello = p.Hello(0, p.PROTOCOL_VERSION, p.MIN_FIRMWARE, b"TESTTEST", 1, p.HelloReason.REQUESTED,
                    CHANNELS.channel_count, s.scan_hz, s.debounce_scans, s.snapshot_interval_ms, s.heartbeat_ms)
    sensor.opened(0.0)
    sensor.received(p.encode(hello), 0.0)
    events.clear()
    return sensor, events


@pytest.mark.parametrize("channel", [CHANNELS.channel_count, 28, 200, 255])
def test_a_self_test_report_naming_a_channel_the_board_has_not_is_a_counted_fault(channel):
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.SelfTestReport(1, ((channel, p.SelfTestFailure.NO_RESPONSE),))), 0.1)
    (dropped,) = [event for event in events if isinstance(event, FramesDropped)]
    assert f"channel {channel} named, the MCU has {CHANNELS.channel_count}" in dropped.reason
    assert dropped.total == sensor.session.frames_dropped == 1
    assert not [event for event in events if isinstance(event, SelfTestResult)]


def test_a_command_frame_from_the_mcu_is_a_counted_fault():
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.Configure(1, 100, 3, 0, 500)), 0.1)
    assert [event.reason for event in events if isinstance(event, FramesDropped)] == [
        "impossible Configure frame: a host's command, sent by the MCU"]


def test_a_snapshot_with_more_than_a_colours_checkers_on_one_channel_is_a_counted_fault():
    """Today's wire format holds at most 15 a channel; the check guards the frame, whatever carries it."""
    sensor, events = connected_sensor()
    counts = [(0, 0)] * CHANNELS.channel_count
    counts[CHANNELS.channel_of("point:6")] = (200, 0)
    sensor.session._on_frame(p.Snapshot(1, 0, tuple(counts)), 0.1)
    (dropped,) = events
    assert isinstance(dropped, FramesDropped) and "reads (200, 0), a colour has 15" in dropped.reason


def colour_by(scheme: str):
    return dataclasses.replace(CONFIG, sensors=dataclasses.replace(
        CONFIG.sensors, mcu=dataclasses.replace(CONFIG.sensors.mcu, colour_by=scheme)))


@pytest.mark.parametrize("scheme, reason", [("mass", "45 white checkers"), ("magnet", "45 checkers on the board")])
def test_more_checkers_of_a_colour_than_a_side_has_is_a_sensor_fault_and_no_board_change(scheme, reason):
    sensor, events = connected_sensor(colour_by(scheme))
    counts = [(0, 0)] * CHANNELS.channel_count
    for point in (1, 2, 3):
        counts[CHANNELS.channel_of(f"point:{point}")] = (15, 0)
    sensor.received(p.encode(p.Snapshot(1, 0, tuple(counts))), 0.1)
    sensor.tick(0.9)                      # past the quiet time, the link still up
    assert [type(event) for event in events if not isinstance(event, FramesDropped)] == [SensorFault]
    assert events[0].kind is FaultKind.TOO_MANY and reason in events[0].reason
    assert not [event for event in events if isinstance(event, BoardChanging)]
