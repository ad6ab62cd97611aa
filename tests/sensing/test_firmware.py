"""The MCU firmware's plain-Python half, run under CPython, against the host's codec."""

import pytest
from hypothesis import given, strategies as st

from firmware_host.sensing import config
from firmware_host.sensing import protocol as p
from firmware_host.sim.firmware import firmware_module

crc_module = firmware_module("crc16")
wire = firmware_module("wire")
node_module = firmware_module("node")
Debouncer = firmware_module("debounce").Debouncer


@given(st.binary(max_size=300))
def test_firmware_crc_is_the_hosts_crc(data):
    assert crc_module.crc16(data) == p.crc16(data)


@given(st.sampled_from(list(p.FrameType)), st.integers(0, 255), st.binary(max_size=255))
def test_firmware_frames_are_what_the_host_encodes(frame_type, seq, payload):
    head = bytes((frame_type, seq, len(payload))) + payload
    assert bytes(wire.frame(frame_type, seq, payload)) == p.cobs_encode(head + p.crc16(head).to_bytes(2, "big")) + b"\0"


@given(st.lists(st.one_of(
    st.builds(p.RequestHello, st.integers(0, 255)),
    st.builds(p.RequestSnapshot, st.integers(0, 255)),
    st.builds(p.SelfTest, st.integers(0, 255)),
    st.builds(p.Configure, st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
              st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))), max_size=6), st.binary(max_size=30))
def test_the_command_reader_recovers_every_host_command_after_garbage(commands, garbage):
    reader = wire.CommandReader()
    stream = garbage + b"\0" + b"".join(p.encode(command) for command in commands)
    got = [item for byte in stream for item in reader.feed(bytes([byte]))]
    assert got[len(got) - len(commands):] == [(c.TYPE, c.seq, c.payload()) for c in commands]


def test_the_command_reader_counts_corrupt_and_overlong_input():
    reader = wire.CommandReader()
    damaged = bytearray(p.encode(p.RequestSnapshot(1)))
    damaged[1] ^= 0x10
    assert reader.feed(bytes(damaged) + b"\x55" * 100 + b"\0" + p.encode(p.SelfTest(2))) == [(p.FrameType.SELF_TEST, 2, b"")]
    assert reader.errors == 2


def test_debounce_changes_a_count_only_after_n_equal_scans():
    debouncer = Debouncer(2, 3, 80)
    assert debouncer.update([(1, 0), (0, 0)]) is True   # the first scan is taken as it is
    assert debouncer.update([(2, 0), (0, 0)]) is False
    assert debouncer.update([(2, 0), (0, 0)]) is False
    assert debouncer.update([(1, 0), (0, 0)]) is False  # a bounce back restarts the count
    assert [debouncer.update([(2, 0), (0, 0)]) for _ in range(3)] == [False, False, True]
    assert debouncer.stable == [(2, 0), (0, 0)]


def test_debounce_ignores_channels_without_a_usable_value():
    debouncer = Debouncer(1, 2, 80)
    assert debouncer.update([None]) is False and debouncer.stable == [None] and not debouncer.ready
    debouncer.update([(1, 1)])
    assert debouncer.ready
    assert [debouncer.update([value]) for value in [(2, 0), None, (2, 0), (2, 0)]] == [False, False, False, True]


def test_a_channel_without_a_reading_for_long_enough_becomes_unreadable_and_reads_again_at_once():
    debouncer = Debouncer(2, 3, 4)
    debouncer.update([(1, 0), (0, 0)])
    assert [debouncer.update([None, (0, 0)]) for _ in range(4)] == [False, False, False, True]
    assert debouncer.stable == [None, (0, 0)]
    assert debouncer.update([(2, 0), (0, 0)]) is True and debouncer.stable == [(2, 0), (0, 0)]


def test_a_dead_channel_holds_back_snapshots_only_until_it_is_called_unreadable():
    debouncer = Debouncer(2, 3, 4)
    for scan in range(3):
        debouncer.update([None, (1, 0)])
        assert not debouncer.ready
    debouncer.update([None, (1, 0)])
    assert debouncer.ready and debouncer.stable == [None, (1, 0)]


class NodeHarness:
    def __init__(self, channels=3, self_test=None):
        self.sent = []
        self.decoder = p.FrameDecoder()
        self.node = node_module.Node(channels, b"ABCDEFGH", 0x1234, self._write, self_test=self_test)

    def _write(self, data):
        self.sent += self.decoder.feed(bytes(data))

    def take(self):
        sent, self.sent = self.sent, []
        return sent

    def command(self, command, now_ms=0):
        self.node.receive(p.encode(command), now_ms)
        return self.take()


def test_a_node_says_hello_at_boot_then_sends_its_first_scan():
    harness = NodeHarness()
    harness.node.boot(0)
    harness.node.scan([(1, 0), (0, 2), (0, 0)], 5)
    hello, snapshot = harness.take()
    assert hello == p.Hello(0, p.PROTOCOL_VERSION, node_module.FIRMWARE_VERSION, b"ABCDEFGH", 0x1234, p.HelloReason.BOOT, 3,
                            node_module.DEFAULT_SCAN_HZ, node_module.DEFAULT_DEBOUNCE_SCANS,
                            node_module.DEFAULT_SNAPSHOT_INTERVAL_MS, node_module.DEFAULT_HEARTBEAT_MS)
    assert snapshot == p.Snapshot(1, 5, ((1, 0), (0, 2), (0, 0)))
    assert harness.decoder.counters.total_errors == 0


def test_a_node_with_a_dead_channel_sends_heartbeats_from_boot_then_snapshots_naming_it_unreadable():
    harness = NodeHarness(channels=2)
    harness.node.boot(0)
    harness.take()
    frames = []
    for now in range(0, 2100, 25):
        harness.node.scan([(1, 0), None], now)
        frames += harness.take()
    heartbeats = [frame.mcu_time_ms for frame in frames if isinstance(frame, p.Heartbeat)]
    snapshots = [frame for frame in frames if isinstance(frame, p.Snapshot)]
    assert heartbeats[:2] == [250, 500]                      # never silent while the channel is out
    assert snapshots and snapshots[0].counts == ((1, 0), None)
    assert snapshots[0].mcu_time_ms <= node_module.UNREADABLE_AFTER_MS
    assert harness.command(p.RequestSnapshot(7), 2100)[1].counts == ((1, 0), None)


def test_a_channel_that_stops_reading_is_reported_unreadable_and_back_when_it_reads():
    harness = NodeHarness(channels=1)
    harness.node.boot(0)
    harness.node.scan([(2, 0)], 0)
    harness.take()
    counts = []
    for now in range(25, 4000, 25):
        harness.node.scan([None] if now < 3000 else [(2, 0)], now)
        counts += [frame.counts for frame in harness.take() if isinstance(frame, p.Snapshot)]
    assert counts[0] == ((2, 0),)                           # the periodic snapshot, keeping the count
    assert ((None,) in counts) and counts[-1] == ((2, 0),)


def test_a_node_restarts_into_maintenance_after_acknowledging_the_command():
    restarts = []
    harness = NodeHarness()
    harness.node = node_module.Node(3, b"ABCDEFGH", 1, harness._write, maintenance=lambda: restarts.append(harness.take()))
    harness.command(p.Maintenance(9))
    assert restarts == [[p.Ack(0, 9, p.FrameType.MAINTENANCE, p.AckStatus.OK)]]   # the ACK went out first
    assert NodeHarness().command(p.Maintenance(4)) == [p.Ack(0, 4, p.FrameType.MAINTENANCE, p.AckStatus.UNSUPPORTED)]


def test_a_node_sends_a_snapshot_on_change_heartbeats_when_quiet_and_a_periodic_snapshot():
    harness = NodeHarness(channels=1)
    harness.node.boot(0)
    harness.node.scan([(0, 0)], 0)
    harness.take()
    for now in range(25, 250, 25):
        harness.node.scan([(0, 0)], now)
    assert harness.take() == []
    harness.node.scan([(0, 0)], 250)
    assert harness.take() == [p.Heartbeat(2, 250, 0)]
    for now in (275, 300, 325):
        harness.node.scan([(1, 0)], now)
    assert harness.take() == [p.Snapshot(3, 325, ((1, 0),))]
    for now in range(350, 1350, 25):
        harness.node.scan([(1, 0)], now)
    snapshots = [frame for frame in harness.take() if isinstance(frame, p.Snapshot)]
    assert [frame.mcu_time_ms for frame in snapshots] == [1325]


def test_a_node_answers_every_command_with_an_ack():
    failures = [(2, p.SelfTestFailure.NOT_READY)]
    harness = NodeHarness(self_test=lambda: failures)
    harness.node.boot(0)
    harness.take()
    assert harness.command(p.RequestSnapshot(10)) == [p.Ack(1, 10, p.FrameType.REQUEST_SNAPSHOT, p.AckStatus.OK)]
    harness.node.scan([(0, 0)] * 3, 1)   # the snapshot asked for before the first scan comes with it
    assert [type(frame) for frame in harness.take()] == [p.Snapshot]
    ack, hello = harness.command(p.RequestHello(11))
    assert ack.status is p.AckStatus.OK and hello.reason is p.HelloReason.REQUESTED
    ack, report = harness.command(p.SelfTest(12))
    assert ack.command_seq == 12 and report.failures == tuple(failures)
    ack, snapshot = harness.command(p.RequestSnapshot(13))
    assert isinstance(snapshot, p.Snapshot)


def test_a_node_applies_a_valid_configuration():
    harness = NodeHarness()
    [ack] = harness.command(p.Configure(4, 50, 2, 0, 500))
    assert ack.status is p.AckStatus.OK
    assert (harness.node.scan_hz, harness.node.debouncer.scans, harness.node.snapshot_interval_ms,
            harness.node.heartbeat_ms) == (50, 2, 0, 500)
    assert harness.node.scan_period_ms == 20


@pytest.mark.parametrize("values", [(0, 3, 1000, 250), (40, 11, 1000, 250), (40, 3, 10, 250), (40, 3, 1000, 6000)])
def test_a_node_refuses_a_configuration_out_of_range_and_keeps_its_settings(values):
    harness = NodeHarness()
    [ack] = harness.command(p.Configure(4, *values))
    assert ack.status is p.AckStatus.BAD_ARGUMENT
    assert harness.node.scan_hz == node_module.DEFAULT_SCAN_HZ


def test_a_node_acks_unknown_commands_and_bad_payloads_as_such():
    harness = NodeHarness()
    harness.node.receive(wire.frame(0x7A, 3, b""), 0)
    harness.node.receive(wire.frame(p.FrameType.CONFIGURE, 4, b"\x01"), 0)
    assert [ack.status for ack in harness.take()] == [p.AckStatus.UNSUPPORTED, p.AckStatus.BAD_PAYLOAD]


def test_a_node_reports_corrupt_commands_in_its_heartbeat():
    harness = NodeHarness(channels=1)
    harness.node.receive(b"\x05\x01\x02\x03\x04\x00", 0)
    harness.node.scan([(0, 0)], 0)
    harness.node.scan([(0, 0)], 300)
    assert harness.take()[-1] == p.Heartbeat(1, 300, 1)


def test_the_board_file_and_the_firmware_accept_the_same_ranges():
    assert config.SCAN_HZ_RANGE == node_module.SCAN_HZ_RANGE
    assert config.DEBOUNCE_SCANS_RANGE == node_module.DEBOUNCE_SCANS_RANGE
    assert config.SNAPSHOT_INTERVAL_MS_RANGE == node_module.SNAPSHOT_INTERVAL_MS_RANGE
    assert config.HEARTBEAT_MS_RANGE == node_module.HEARTBEAT_MS_RANGE


def test_the_snapshot_timestamp_wraps_at_16_bits():
    harness = NodeHarness(channels=1)
    harness.node.scan([(0, 0)], 70_000)
    assert harness.take() == [p.Snapshot(0, 70_000 - 65_536, ((0, 0),))]


def test_the_firmware_names_the_same_frame_types_and_statuses_as_the_host():
    for frame_type in p.FrameType:
        assert getattr(wire, frame_type.name) == frame_type
    for status in p.AckStatus:
        assert getattr(wire, status.name) == status
