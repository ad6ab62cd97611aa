"""BoardSensor's wiring, driven by hand in virtual time: frames in, the posted events out."""
from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import (BoardChanging, BoardSettled, BoardStable, CommandFailed, LinkSilent, LinkUp,
                                          McuReset, SelfTestResult)
from firmware_host.sensing.sensor import BoardSensor

CONFIG = load_sensing_config()
CHANNELS = CONFIG.sensors.channels


def hello(seq, nonce=1):
    s = CONFIG.sensors
    return p.Hello(seq, 1, p.MIN_FIRMWARE, b"TESTTEST", nonce, p.HelloReason.REQUESTED, CHANNELS.channel_count,
                   s.scan_hz, s.debounce_scans, s.snapshot_interval_ms, s.heartbeat_ms)


def counts(**points):
    channel_counts = [(0, 0)] * CHANNELS.channel_count
    for name, value in points.items():
        channel_counts[CHANNELS.channel_of(name.replace("_", ":"))] = value
    return tuple(channel_counts)


def connected_sensor():
    """A sensor whose link never starts: the test plays the link thread."""
    events = []
    sensor = BoardSensor(CONFIG, events.append, ManualClock())
    sensor.opened(0.0)
    sensor.received(p.encode(hello(0)), 0.0)
    return sensor, events


def test_snapshots_become_readings_through_the_board_file_and_then_stable():
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.Snapshot(1, 0, counts(point_24=(2, 0), bar_black=(1, 1)))), 0.01)
    sensor.tick(0.31)
    assert [type(event) for event in events] == [LinkUp, BoardChanging, BoardStable]
    reading = events[-1].reading
    assert reading.point(24) == (2, 0) and (reading.white.bar, reading.black.bar) == (1, 1)


def test_a_silent_link_makes_no_board_stable_or_settled():
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.Snapshot(1, 0, counts(point_1=(0, 2)))), 0.0)
    sensor.tick(CONFIG.sensors.silence_timeout_s + 0.01)
    sensor.tick(10.0)
    assert [type(event) for event in events] == [LinkUp, BoardChanging, LinkSilent]


def test_a_live_link_settles_the_board_after_the_grace():
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.Snapshot(1, 0, counts(point_1=(0, 2)))), 0.0)
    for step in range(1, 13):   # heartbeats keep the link up for three seconds
        now = step * 0.25
        sensor.received(p.encode(p.Heartbeat(1 + step, int(now * 1000), 0)), now)
        sensor.tick(now)
    # Nobody acknowledges the snapshot request sent after the hello; that failure is beside the point.
    assert [type(event) for event in events if not isinstance(event, CommandFailed)] == [
        LinkUp, BoardChanging, BoardStable, BoardSettled]


def test_an_mcu_reset_reads_the_board_afresh():
    sensor, events = connected_sensor()
    sensor.received(p.encode(p.Snapshot(1, 0, counts(point_1=(0, 2)))), 0.0)
    sensor.tick(0.5)
    sensor.received(p.encode(hello(0, nonce=2)) + p.encode(p.Snapshot(1, 0, counts(point_1=(0, 2)))), 0.6)
    sensor.tick(0.95)
    assert [type(event) for event in events] == [LinkUp, BoardChanging, BoardStable, McuReset, BoardChanging,
                                                 BoardStable]


def test_self_test_failures_are_named_by_location():
    sensor, events = connected_sensor()
    report = p.SelfTestReport(1, ((CHANNELS.channel_of("off:white"), p.SelfTestFailure.NOT_READY),))
    sensor.received(p.encode(report), 0.1)
    assert events[-1] == SelfTestResult((("off:white", "not_ready"),))
