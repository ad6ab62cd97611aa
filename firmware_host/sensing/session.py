"""The host's half of the sensor protocol as a pure state machine; no I/O, no clock, no threads.

One `LinkSession` lives as long as the link; the shell (`link.SerialLink`) tells it when the port
was `opened(now)` or `lost(reason)`, hands it `received(data, now)` and calls `tick(now)` often.
It writes frames through the injected `write(bytes)` and hands everything it learns to the
injected `emit(item)`: the link events of `events.py`, and the `Snapshot` and `SelfTestReport`
frames themselves for the layer above to interpret.

States: STARTING (never opened) -> CONNECTING (port open, hello requested) -> UP -> SILENT (no
frame for the silence timeout; hello requested again) -> UP ...; DOWN when the port is lost;
INCOMPATIBLE when the MCU's hello does not fit this board (a protocol or channel-count mismatch).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable

from firmware_host.sensing import protocol as p
from firmware_host.sensing.config import SensorSettings, SerialSettings
from firmware_host.sensing.events import CommandFailed, FramesDropped, LinkLost, LinkSilent, LinkUp, McuReset


class LinkState(enum.Enum):
    STARTING = "starting"
    CONNECTING = "connecting"
    UP = "up"
    SILENT = "silent"
    INCOMPATIBLE = "incompatible"
    DOWN = "down"


@dataclass
class _Pending:
    command: p.Command
    sent_at: float
    tries: int


class LinkSession:
    def __init__(self, serial: SerialSettings, sensors: SensorSettings,
                 write: Callable[[bytes], None], emit: Callable[[object], None]) -> None:
        self._serial = serial
        self._sensors = sensors
        self._write = write
        self._emit = emit
        self.decoder = p.FrameDecoder()
        self.state = LinkState.STARTING
        self.hello: p.Hello | None = None
        self.frames_lost = 0           # MCU frames missing from the sequence numbers
        self.frames_dropped = 0        # corrupt frames dropped by the decoder
        self.mcu_rx_errors = 0         # corrupt commands the MCU reported in its last heartbeat
        self._next_seq = 0
        self._pending: dict[int, _Pending] = {}
        self._expected_seq: int | None = None
        self._last_frame_at = 0.0

    # -- from the shell ------------------------------------------------------------------------

    def opened(self, now: float) -> None:
        """A fresh port: bytes sent before it opened are gone, so ask for the hello (then a snapshot)."""
        self.decoder.reset()
        self._pending.clear()
        self._expected_seq = None
        self._last_frame_at = now
        self.state = LinkState.CONNECTING
        self._write(p.DELIMITER)   # ends any half frame the MCU may hold from before
        self._send(p.RequestHello, now)

    def lost(self, reason: str) -> None:
        """The port failed or could not be opened; reported once until the link is up again."""
        if self.state is not LinkState.DOWN:
            self.state = LinkState.DOWN
            self._pending.clear()
            self._emit(LinkLost(reason))

    def received(self, data: bytes, now: float) -> None:
        dropped: list[p.DecodeError] = []
        for item in self.decoder.feed(data):
            if isinstance(item, p.DecodeError):
                dropped.append(item)
            else:
                self._on_frame(item, now)
        if dropped:
            self.frames_dropped += len(dropped)
            self._emit(FramesDropped(len(dropped), f"{dropped[0].kind.value}: {dropped[0].detail}",
                                     self.frames_dropped))
            self.request_snapshot(now)

    def tick(self, now: float) -> None:
        silent_for = now - self._last_frame_at
        # Silent once up, or never answering since the port opened (a hung MCU): both are reported.
        if self.state in (LinkState.UP, LinkState.CONNECTING) \
                and silent_for >= self._sensors.silence_timeout_s:
            self.state = LinkState.SILENT
            self._emit(LinkSilent(silent_for))
            self._send(p.RequestHello, now)
        self._retry(now)

    # -- commands ------------------------------------------------------------------------------

    def request_snapshot(self, now: float) -> None:
        """Ask for a full snapshot; at most one request is outstanding, however much garbage comes."""
        if self.state is LinkState.UP and not self._is_pending(p.RequestSnapshot):
            self._send(p.RequestSnapshot, now)

    def self_test(self, now: float) -> None:
        self._command(p.SelfTest, now)

    def maintenance(self, now: float) -> None:
        """Ask the MCU to restart into maintenance (it then stops talking: the link goes silent)."""
        self._command(p.Maintenance, now)

    def _command(self, kind: type, now: float) -> None:
        """Send a command asked for by a person; it fails at once while the link is not up."""
        if self.state is not LinkState.UP:
            self._emit(CommandFailed(kind.TYPE.name, f"the link is {self.state.value}"))
        elif not self._is_pending(kind):
            self._send(kind, now)

    # -- frames from the MCU -------------------------------------------------------------------

    def _on_frame(self, frame: p.Frame, now: float) -> None:
        self._last_frame_at = now
        if isinstance(frame, p.Hello):
            self._expected_seq = (frame.seq + 1) & 0xFF
            self._on_hello(frame, now)
            return
        self._check_sequence(frame.seq, now)
        if self.state is not LinkState.UP:
            return   # before the hello the frames cannot be trusted to fit this board
        impossible = self._impossible(frame)
        if impossible:
            self._drop(f"impossible {type(frame).__name__} frame: {impossible}", now)
        elif isinstance(frame, (p.Snapshot, p.SelfTestReport)):
            self._emit(frame)
        elif isinstance(frame, p.Heartbeat):
            self.mcu_rx_errors = frame.rx_errors
        elif isinstance(frame, p.Ack):
            self._on_ack(frame)

    def _impossible(self, frame: p.Frame) -> str | None:
        """Why a frame with a good CRC cannot be true of this board (its channels, a point's 15
        checkers of a colour at most), or None. Such a frame is dropped and counted, never passed on."""
        channels = self.hello.channels
        if isinstance(frame, p.Snapshot):
            if len(frame.counts) != channels:
                return f"{len(frame.counts)} channels from an MCU of {channels}"
            crowded = [channel for channel, pair in enumerate(frame.counts)
                       if pair is not None and max(pair) > p.MAX_CHANNEL_COUNT]   # None: unreadable
            if crowded:
                return f"channel {crowded[0]} reads {frame.counts[crowded[0]]}, a colour has {p.MAX_CHANNEL_COUNT}"
        elif isinstance(frame, p.SelfTestReport):
            beyond = [channel for channel, _ in frame.failures if channel >= channels]
            if beyond:
                return f"channel {beyond[0]} named, the MCU has {channels}"
        elif isinstance(frame, p.Command):
            return "a host's command, sent by the MCU"
        return None

    def _check_sequence(self, seq: int, now: float) -> None:
        if self._expected_seq is not None and seq != self._expected_seq:
            self.frames_lost += (seq - self._expected_seq) & 0xFF
            self.request_snapshot(now)   # the lost frame may have been a change ...
            if self.state is LinkState.UP and not self._is_pending(p.RequestHello):
                self._send(p.RequestHello, now)   # ... or the hello of a reset: its nonce will tell
        self._expected_seq = (seq + 1) & 0xFF

    def _on_hello(self, hello: p.Hello, now: float) -> None:
        previous = self.hello
        self.hello = hello
        self._pending = {seq: pending for seq, pending in self._pending.items()
                         if not isinstance(pending.command, p.RequestHello)}
        problem = self._incompatibility(hello)
        if problem:
            if self.state is not LinkState.INCOMPATIBLE:
                self.state = LinkState.INCOMPATIBLE
                self._emit(LinkLost(problem))
            return
        restarted = previous is not None and previous.boot_nonce != hello.boot_nonce
        if self.state is not LinkState.UP:
            self.state = LinkState.UP
            self._emit(LinkUp(hello))
        elif not restarted:
            return   # a repeated answer to our own request
        if restarted:
            self._emit(McuReset(hello))
        if self._settings_differ(hello):
            self._send(p.Configure, now)
        self.request_snapshot(now)

    def _incompatibility(self, hello: p.Hello) -> str | None:
        if hello.protocol_version not in p.SUPPORTED_PROTOCOLS:
            return (f"the MCU speaks protocol version {hello.protocol_version}, "
                    f"this host versions {', '.join(map(str, p.SUPPORTED_PROTOCOLS))}: update its firmware")
        if hello.firmware_version < p.MIN_FIRMWARE:
            return (f"the MCU runs firmware {hello.firmware}, this host needs "
                    f"{'.'.join(map(str, p.MIN_FIRMWARE))} or later (older firmware misreads a full stack "
                    "of 16): update its firmware (hardware/README.md, Installing the firmware)")
        expected = self._sensors.channels.channel_count
        if hello.channels != expected:
            return (f"the MCU scans {hello.channels} channels but the board file maps {expected} "
                    "([sensors] channels)")
        return None

    def _settings_differ(self, hello: p.Hello) -> bool:
        wanted = self._configure_frame(0)
        return (hello.scan_hz, hello.debounce_scans, hello.snapshot_interval_ms, hello.heartbeat_ms) != (
            wanted.scan_hz, wanted.debounce_scans, wanted.snapshot_interval_ms, wanted.heartbeat_ms)

    def _on_ack(self, ack: p.Ack) -> None:
        pending = self._pending.pop(ack.command_seq, None)
        if pending is None or pending.command.TYPE != ack.command_type:
            return   # an answer to a try we already gave up on
        if ack.status is not p.AckStatus.OK:
            self._emit(CommandFailed(pending.command.TYPE.name, f"the MCU answered {ack.status.name}"))

    def _drop(self, reason: str, now: float) -> None:
        self.frames_dropped += 1
        self._emit(FramesDropped(1, reason, self.frames_dropped))
        self.request_snapshot(now)

    # -- sending and retrying ------------------------------------------------------------------

    def _configure_frame(self, seq: int) -> p.Configure:
        s = self._sensors
        return p.Configure(seq, s.scan_hz, s.debounce_scans, s.snapshot_interval_ms, s.heartbeat_ms)

    def _send(self, kind: type, now: float) -> None:
        seq = self._next_seq
        self._next_seq = (seq + 1) & 0xFF
        command = self._configure_frame(seq) if kind is p.Configure else kind(seq)
        self._pending.pop(seq, None)
        self._pending[seq] = _Pending(command, now, 1)
        self._write(p.encode(command))

    def _is_pending(self, kind: type) -> bool:
        return any(isinstance(pending.command, kind) for pending in self._pending.values())

    def _retry(self, now: float) -> None:
        timeout = self._serial.ack_timeout_ms / 1000
        for seq, pending in list(self._pending.items()):
            if now - pending.sent_at < timeout:
                continue
            # A hello is asked for until one comes: without it nothing else works.
            if pending.tries >= self._serial.command_tries and not isinstance(pending.command, p.RequestHello):
                del self._pending[seq]
                self._emit(CommandFailed(pending.command.TYPE.name,
                                         f"not acknowledged after {pending.tries} tries"))
                continue
            pending.sent_at = now
            pending.tries += 1
            self._write(p.encode(pending.command))
