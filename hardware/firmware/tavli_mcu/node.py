"""The MCU's side of the protocol: what to send after each scan and how to answer commands.

The main loop (../main.py on the Pico, firmware_host.sim on a PC) calls `boot(now_ms)` once, then
`scan(raw_counts, now_ms)` every `scan_period_ms` and `receive(data, now_ms)` with whatever bytes
the host sent. `now_ms` is a millisecond count that never wraps (the caller accumulates
`time.ticks_diff`). Every outgoing frame goes through the injected `write(bytes)`.
"""
import struct

from tavli_mcu import FIRMWARE_VERSION, PROTOCOL_VERSION
from tavli_mcu import wire
from tavli_mcu.debounce import Debouncer

BOOT = 0
REQUESTED = 1

DEFAULT_SCAN_HZ = 40
DEFAULT_DEBOUNCE_SCANS = 3
DEFAULT_SNAPSHOT_INTERVAL_MS = 1000
DEFAULT_HEARTBEAT_MS = 250
UNREADABLE_AFTER_MS = 2000   # a channel without a reading this long is reported unreadable
UNREADABLE = 0xFF            # its snapshot byte: 15 white and 15 black on one location never happens

# Accepted CONFIGURE values; firmware_host.sensing.config checks the board file against the same ranges.
SCAN_HZ_RANGE = (1, 100)
DEBOUNCE_SCANS_RANGE = (1, 10)
SNAPSHOT_INTERVAL_MS_RANGE = (20, 60000)   # or 0: snapshots only on change
HEARTBEAT_MS_RANGE = (50, 5000)


def _within(value, limits):
    return limits[0] <= value <= limits[1]


class Node:
    def __init__(self, channels, board_id, boot_nonce, write, self_test=None, maintenance=None):
        """`board_id`: 8 bytes (the RP2040's unique id); `boot_nonce`: 0..65535, new at every boot;
        `self_test()`: a list of (channel, failure code) (codes in docs/protocol.md); `maintenance()`:
        restart into maintenance (main.py); without it MAINTENANCE is unsupported."""
        self._maintenance = maintenance
        self.channels = channels
        self.board_id = bytes(board_id)
        self.boot_nonce = boot_nonce
        self._write = write
        self._self_test = self_test or (lambda: [])
        self.scan_hz = DEFAULT_SCAN_HZ
        self.snapshot_interval_ms = DEFAULT_SNAPSHOT_INTERVAL_MS
        self.heartbeat_ms = DEFAULT_HEARTBEAT_MS
        self.debouncer = Debouncer(channels, DEFAULT_DEBOUNCE_SCANS, self._unreadable_scans())
        self.reader = wire.CommandReader()
        self._seq = 0
        self._last_sent_ms = 0
        self._last_snapshot_ms = 0
        self._snapshot_wanted = False

    @property
    def scan_period_ms(self):
        return 1000 // self.scan_hz

    def _unreadable_scans(self):
        return max(1, UNREADABLE_AFTER_MS // self.scan_period_ms)

    @property
    def rx_errors(self):
        return self.reader.errors

    def boot(self, now_ms):
        # A lone delimiter ends whatever the line carried before (the boot banner) ahead of the hello.
        self._write(b"\x00")
        self._send_hello(BOOT, now_ms)

    def scan(self, raw_counts, now_ms):
        """Snapshots once every channel has read (or been unreadable for long enough), heartbeats from boot
        whatever the channels do."""
        changed = self.debouncer.update(raw_counts)
        interval = self.snapshot_interval_ms
        if not self.debouncer.ready:
            if now_ms - self._last_sent_ms >= self.heartbeat_ms:
                self._send_heartbeat(now_ms)
        elif changed or self._snapshot_wanted or (interval and now_ms - self._last_snapshot_ms >= interval):
            self._send_snapshot(now_ms)
        elif now_ms - self._last_sent_ms >= self.heartbeat_ms:
            self._send_heartbeat(now_ms)

    def receive(self, data, now_ms):
        for command in self.reader.feed(data):
            self._handle(command[0], command[1], command[2], now_ms)

    def _handle(self, command_type, seq, payload, now_ms):
        expected = {wire.REQUEST_HELLO: 0, wire.REQUEST_SNAPSHOT: 0, wire.SELF_TEST: 0, wire.CONFIGURE: 6}
        if self._maintenance is not None:
            expected[wire.MAINTENANCE] = 0
        if command_type not in expected:
            self._ack(seq, command_type, wire.UNSUPPORTED, now_ms)
        elif len(payload) != expected[command_type]:
            self._ack(seq, command_type, wire.BAD_PAYLOAD, now_ms)
        elif command_type == wire.CONFIGURE:
            self._ack(seq, command_type, self._configure(payload), now_ms)
        elif command_type == wire.MAINTENANCE:
            self._ack(seq, command_type, wire.OK, now_ms)
            self._maintenance()
        else:
            self._ack(seq, command_type, wire.OK, now_ms)
            if command_type == wire.REQUEST_HELLO:
                self._send_hello(REQUESTED, now_ms)
            elif command_type == wire.REQUEST_SNAPSHOT:
                if not self.debouncer.ready:
                    self._snapshot_wanted = True   # answered once every channel has read
                else:
                    self._send_snapshot(now_ms)
            else:
                report = bytearray()
                for channel, failure in self._self_test():
                    report.append(channel)
                    report.append(failure)
                self._send(wire.SELF_TEST_REPORT, report, now_ms)

    def _configure(self, payload):
        scan_hz, debounce_scans, snapshot_interval_ms, heartbeat_ms = struct.unpack(">BBHH", payload)
        if not (_within(scan_hz, SCAN_HZ_RANGE) and _within(debounce_scans, DEBOUNCE_SCANS_RANGE)
                and (snapshot_interval_ms == 0 or _within(snapshot_interval_ms, SNAPSHOT_INTERVAL_MS_RANGE))
                and _within(heartbeat_ms, HEARTBEAT_MS_RANGE)):
            return wire.BAD_ARGUMENT
        self.scan_hz = scan_hz
        self.debouncer.scans = debounce_scans
        self.debouncer.unreadable_scans = self._unreadable_scans()
        self.snapshot_interval_ms = snapshot_interval_ms
        self.heartbeat_ms = heartbeat_ms
        return wire.OK

    def _ack(self, seq, command_type, status, now_ms):
        self._send(wire.ACK, bytes((seq, command_type, status)), now_ms)

    def _send_hello(self, reason, now_ms):
        payload = struct.pack(">BBBB8sHBBBBHH", PROTOCOL_VERSION, FIRMWARE_VERSION[0], FIRMWARE_VERSION[1],
                              FIRMWARE_VERSION[2], self.board_id, self.boot_nonce, reason, self.channels,
                              self.scan_hz, self.debouncer.scans, self.snapshot_interval_ms, self.heartbeat_ms)
        self._send(wire.HELLO, payload, now_ms)

    def _send_snapshot(self, now_ms):
        counts = bytearray(struct.pack(">H", now_ms & 0xFFFF))
        for value in self.debouncer.stable:
            if value is None:
                counts.append(UNREADABLE)
            else:   # a channel reports at most 15 of a colour: four bits each
                counts.append(min(value[0], 15) << 4 | min(value[1], 15))
        self._snapshot_wanted = False
        self._last_snapshot_ms = now_ms
        self._send(wire.SNAPSHOT, counts, now_ms)

    def _send_heartbeat(self, now_ms):
        self._send(wire.HEARTBEAT, struct.pack(">HB", now_ms & 0xFFFF, min(self.rx_errors, 255)), now_ms)

    def _send(self, frame_type, payload, now_ms):
        self._write(wire.frame(frame_type, self._seq, payload))
        self._seq = (self._seq + 1) & 0xFF
        self._last_sent_ms = now_ms
