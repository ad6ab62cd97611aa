"""The frame codec: round trips, every wire fault, split and merged reads, and fuzzing."""
import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.sensing import protocol as p


HELLO = p.Hello(7, 1, (1, 2, 3), b"\x01\x02\x03\x04\x05\x06\x07\x08", 0xBEEF, p.HelloReason.BOOT, 28, 40, 3, 1000, 250)
SNAPSHOT = p.Snapshot(9, 0xFFFF, tuple((i % 16, (i * 7) % 16) for i in range(28)))

EXAMPLES = [
    HELLO,
    SNAPSHOT,
    p.Heartbeat(1, 513, 4),
    p.Ack(2, 200, p.FrameType.CONFIGURE, p.AckStatus.BAD_ARGUMENT),
    p.SelfTestReport(3, ((4, p.SelfTestFailure.NO_RESPONSE), (27, p.SelfTestFailure.OUT_OF_RANGE))),
    p.SelfTestReport(3, ()),
    p.RequestHello(250),
    p.RequestSnapshot(0),
    p.Configure(5, 40, 3, 0, 250),
    p.SelfTest(255),
    p.Maintenance(17),
]

snapshots = st.builds(
    p.Snapshot, st.integers(0, 255), st.integers(0, 0xFFFF),
    st.lists(st.one_of(st.none(), st.tuples(st.integers(0, 15), st.integers(0, 15)).filter(lambda c: c != (15, 15))),
             min_size=1, max_size=32).map(tuple))
frames = st.one_of(st.sampled_from(EXAMPLES), snapshots)


def decode_all(data: bytes) -> list:
    return p.FrameDecoder().feed(data)


def test_crc_is_crc16_ccitt_false():
    assert p.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("frame", EXAMPLES, ids=lambda frame: type(frame).__name__)
def test_every_frame_type_round_trips(frame):
    assert decode_all(p.encode(frame)) == [frame]


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_never_emits_a_delimiter(data):
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert p.cobs_decode(encoded) == data


@pytest.mark.parametrize("channels", [28, 30])
def test_a_snapshot_fits_the_40_byte_budget(channels):
    frame = p.Snapshot(255, 0xFFFF, (None,) * channels)
    assert len(p.encode(frame)) < 40


def test_an_unreadable_channel_is_the_byte_no_board_has():
    frame = p.Snapshot(3, 0x0102, ((2, 0), None, (0, 15)))
    assert p.encode_body(frame)[3:-2] == bytes((0x01, 0x02, 0x20, 0xFF, 0x0F))
    assert p.FrameDecoder().feed(p.encode(frame)) == [frame]
    with pytest.raises(ValueError, match="not both 15"):
        p.Snapshot(3, 0, ((15, 15),)).payload()


@given(st.lists(frames, min_size=1, max_size=8), st.data())
def test_any_split_of_a_stream_gives_the_same_frames(sequence, data):
    stream = b"".join(p.encode(frame) for frame in sequence)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = p.FrameDecoder()
    decoded = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)]):
        decoded += decoder.feed(stream[start:end])
    assert decoded == sequence
    assert decoder.counters.frames == len(sequence) and decoder.counters.total_errors == 0


def test_merged_reads_give_every_frame_in_order():
    assert decode_all(b"".join(p.encode(frame) for frame in EXAMPLES)) == EXAMPLES


def test_byte_at_a_time_reads_give_the_frame():
    decoder = p.FrameDecoder()
    out = [item for byte in p.encode(SNAPSHOT) for item in decoder.feed(bytes([byte]))]
    assert out == [SNAPSHOT]


def error_kinds(items):
    return [item.kind for item in items if isinstance(item, p.DecodeError)]


def test_a_lost_byte_costs_only_its_own_frame():
    damaged = bytearray(p.encode(SNAPSHOT))
    del damaged[10]
    items = decode_all(bytes(damaged) + p.encode(HELLO))
    assert items[-1] == HELLO
    assert len(error_kinds(items)) == 1


def test_a_corrupted_crc_is_dropped_and_counted():
    body = bytearray(p.encode_body(SNAPSHOT))
    body[-1] ^= 0x40
    decoder = p.FrameDecoder()
    items = decoder.feed(p.cobs_encode(bytes(body)) + p.DELIMITER + p.encode(HELLO))
    assert error_kinds(items) == [p.ErrorKind.CRC] and items[-1] == HELLO
    assert decoder.counters.errors[p.ErrorKind.CRC] == 1 and decoder.counters.frames == 1


def test_a_flipped_payload_bit_is_a_crc_error():
    body = bytearray(p.encode_body(SNAPSHOT))
    body[6] ^= 0x01
    assert error_kinds(decode_all(p.cobs_encode(bytes(body)) + p.DELIMITER)) == [p.ErrorKind.CRC]


def test_a_wrong_length_field_is_reported_as_such():
    body = bytearray(p.encode_body(p.Heartbeat(1, 2, 3)))
    body[2] += 1
    assert error_kinds(decode_all(p.cobs_encode(bytes(body)) + p.DELIMITER)) == [p.ErrorKind.LENGTH]


def test_a_short_chunk_is_reported():
    assert error_kinds(decode_all(b"\x02\x07\x00")) == [p.ErrorKind.SHORT]


def test_an_intact_frame_of_an_unknown_type_is_counted_separately():
    head = bytes((0x7E, 1, 0))
    body = head + p.crc16(head).to_bytes(2, "big")
    assert error_kinds(decode_all(p.cobs_encode(body) + p.DELIMITER)) == [p.ErrorKind.UNKNOWN_TYPE]


def test_a_payload_that_does_not_fit_its_type_is_reported():
    head = bytes((p.FrameType.HEARTBEAT, 1, 1, 0x55))
    body = head + p.crc16(head).to_bytes(2, "big")
    items = decode_all(p.cobs_encode(body) + p.DELIMITER)
    assert error_kinds(items) == [p.ErrorKind.PAYLOAD]
    assert "heartbeat payload must be 3 bytes" in items[0].detail


def test_garbage_without_delimiters_is_reported_once_and_bounded():
    decoder = p.FrameDecoder()
    items = []
    for _ in range(20):
        items += decoder.feed(b"\x55" * 100)
    items += decoder.feed(b"\x55\x00" + p.encode(HELLO))
    assert error_kinds(items) == [p.ErrorKind.OVERLONG]
    assert items[-1] == HELLO
    assert len(decoder._pending) == 0


def test_garbage_before_a_frame_is_ended_by_the_senders_leading_delimiter():
    assert decode_all(b"MPY: soft reboot\r\n" + p.DELIMITER + p.encode(HELLO))[-1] == HELLO


@settings(max_examples=300)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise_and_are_all_accounted_for(data):
    decoder = p.FrameDecoder()
    items = decoder.feed(data)
    assert all(isinstance(item, (p.DecodeError, *p.FRAME_CLASSES.values())) for item in items)
    assert decoder.counters.frames + decoder.counters.total_errors == len(items)


@settings(max_examples=300)
@given(st.binary(max_size=400), frames, st.binary(max_size=400), st.integers(1, 64))
def test_a_valid_frame_inside_garbage_is_recovered(before, frame, after, chunk):
    stream = before + p.DELIMITER + p.encode(frame) + after
    decoder = p.FrameDecoder()
    items = []
    for start in range(0, len(stream), chunk):
        items += decoder.feed(stream[start:start + chunk])
    assert frame in items


def test_snapshot_counts_above_a_nibble_are_refused_by_the_encoder():
    with pytest.raises(ValueError, match="0..15"):
        p.encode(p.Snapshot(0, 0, ((16, 0),)))


def test_the_worked_example_of_docs_protocol_md():
    frame = p.Snapshot(9, 0x1234, ((2, 0), (0, 0)))
    assert p.encode(frame) == bytes.fromhex("07 02 09 04 12 34 20 03 b9 85 00")
