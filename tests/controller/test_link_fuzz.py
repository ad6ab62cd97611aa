"""Frames with a good CRC and any payload, of every frame type (and unknown ones), through the whole
path: the decoder, the link session, the channel map, the stabiliser and the controller in a game.
Nothing raises; what cannot be is a counted fault; no reading that cannot be reaches the controller."""
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import BoardChanging, BoardSettled, BoardStable, FramesDropped, SelfTestResult
from firmware_host.sensing.sensor import BoardSensor

from controller_kit import Rig

CONFIG = load_sensing_config()
CHANNELS = CONFIG.sensors.channels
FRAME_TYPES = [int(kind) for kind in p.FrameType] + [0x00, 0x06, 0x45, 0xFF]


def wire(frame_type: int, seq: int, payload: bytes) -> bytes:
    """A frame as the MCU would send it: any type and payload, with a CRC that is right."""
    head = bytes((frame_type, seq, len(payload))) + payload
    return p.cobs_encode(head + p.crc16(head).to_bytes(2, "big")) + p.DELIMITER


def snapshot_payload(draw) -> bytes:
    """A snapshot of the right length (or not), any counts: the ones that pass the decoder."""
    channels = draw(st.sampled_from([CHANNELS.channel_count, CHANNELS.channel_count, 0, 1, 40]))
    return bytes(2) + draw(st.binary(min_size=channels, max_size=channels))


@st.composite
def frames(draw) -> bytes:
    frame_type = draw(st.sampled_from(FRAME_TYPES))
    if frame_type == p.FrameType.SNAPSHOT and draw(st.booleans()):
        payload = snapshot_payload(draw)
    elif frame_type == p.FrameType.SELF_TEST_REPORT and draw(st.booleans()):
        pairs = draw(st.lists(st.tuples(st.integers(0, 255), st.sampled_from(list(p.SelfTestFailure))), max_size=6))
        payload = bytes(byte for channel, failure in pairs for byte in (channel, failure))
    else:
        payload = draw(st.binary(max_size=p.MAX_PAYLOAD))
    return wire(frame_type, draw(st.integers(0, 255)), payload)


def hello() -> bytes:
    s = CONFIG.sensors
    return p.encode(p.Hello(0, p.PROTOCOL_VERSION, p.MIN_FIRMWARE, b"TESTTEST", 1, p.HelloReason.REQUESTED,
                            CHANNELS.channel_count, s.scan_hz, s.debounce_scans, s.snapshot_interval_ms,
                            s.heartbeat_ms))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=st.lists(frames(), min_size=1, max_size=12))
def test_any_frame_with_a_good_crc_through_sensing_and_the_controller(tmp_path_factory, stream):
    rig = Rig(tmp_path_factory.mktemp("fuzz"), (6, 5, 6, 5) + (3, 1) * 50)
    rig.to_moving()
    posted, reported_dropped = [], 0
    sensor = BoardSensor(CONFIG, posted.append, ManualClock())
    sensor.opened(rig.now)
    sensor.received(hello(), rig.now)
    for data in stream:
        now = rig.now + 0.05
        sensor.received(data, now)
        sensor.tick(now + 0.4)               # past the quiet time: what is stable says so
        for event in posted:
            if isinstance(event, (BoardChanging, BoardStable, BoardSettled)):
                reading = event.reading
                assert reading.white.total <= 15 and reading.black.total <= 15, reading
            if isinstance(event, FramesDropped):
                assert event.reason
                reported_dropped += event.count
            if isinstance(event, SelfTestResult):
                assert all(location in CHANNELS.locations for location, _ in event.failures)
            rig.send(event)                      # the controller takes every event the sensing posts
        posted.clear()
    assert reported_dropped == sensor.session.frames_dropped    # every frame dropped is counted and said
