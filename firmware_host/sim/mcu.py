"""The simulated sensor MCU: the real firmware logic (`tavli_mcu.node.Node`) scanning a `SimBoard`.

A thread scans the board every `node.scan_period_ms`, as the Pico's main loop does, and moves
bytes between the node and a `Transport`. Faults are injected at the layer where they happen:

- on the wire: `drop_bytes`, `corrupt_next_crc`, `send_garbage`;
- the MCU: `go_silent` / `resume` (hung), `reset` (restarts with a boot banner and a new nonce);
- the cable: `unplug` / `replug` (a USB-powered MCU restarts when plugged back);
- a sensor: `flicker`, `stick` / `unstick`, `break_sensor` (no reading at all), `fail_self_test`.

With `weighing` (a `firmware_host.sim.weighed.WeighedBoard`) the sensors are the physical model of
the reference design, decoded by the firmware's own scan, instead of perfect counts.
"""
from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from firmware_host.sensing.channels import ChannelMap
from firmware_host.sensing.clock import Clock, MonotonicClock
from firmware_host.sensing.reading import BoardReading
from firmware_host.sim.board import SimBoard
from firmware_host.sim.firmware import firmware_module
from firmware_host.sim.transport import Transport

if TYPE_CHECKING:   # the physical model needs numpy (the `physics` extra); only its user imports it
    from firmware_host.sim.weighed import WeighedBoard

BOOT_BANNER = b"MPY: soft reboot\r\nMicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\n"
SIM_BOARD_ID = b"SIMBOARD"


class SimulatedMcu:
    def __init__(self, board: SimBoard, channels: ChannelMap, transport: Transport, *,
                 clock: Clock | None = None, board_id: bytes = SIM_BOARD_ID,
                 weighing: WeighedBoard | None = None, colour_by: str = "mass") -> None:
        """`colour_by`: what perfect sensors report ([sensors.mcu] colour_by); a `weighing` board knows its own."""
        self.board = board
        self.weighing = weighing
        self.colour_by = colour_by
        self._last_scan_ms: int | None = None
        self.channels = channels
        self.transport = transport
        self.board_id = board_id
        self.boots = 0
        self._clock = clock or MonotonicClock()
        self._started_at = self._clock.monotonic()
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._silent = False
        self.in_maintenance = False
        self._drop_next = 0
        self._corrupt_next = False
        self._stuck: dict[int, tuple[int, int]] = {}
        self._broken: set[int] = set()
        self._flickering: dict[int, tuple[tuple[int, int], float]] = {}
        self._self_test_failures: list[tuple[int, int]] = []
        self.node = None
        self._boot(banner=b"")

    @property
    def port(self) -> str:
        return self.transport.port

    def start(self) -> SimulatedMcu:
        self._thread = threading.Thread(target=self._run, name="sim-mcu", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self.transport.close()

    def __enter__(self) -> SimulatedMcu:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def sensed_reading(self) -> BoardReading:
        """The board as perfect sensors of its scheme report it (colour by magnet: a point's count in
        its bottom checker's colour)."""
        return self.channels.reading(tuple(self.board.channel_counts(self.channels, self.colour_by)))

    # -- fault injection ---------------------------------------------------------------------

    def drop_bytes(self, count: int = 1) -> None:
        """Lose `count` bytes from the middle of the next frame."""
        with self._lock:
            self._drop_next = count

    def corrupt_next_crc(self) -> None:
        """The next frame goes out intact but for a wrong CRC."""
        with self._lock:
            self._corrupt_next = True

    def send_garbage(self, data: bytes = b"\xde\xad\xbe\xef garbage \x00\xff\x13\x37") -> None:
        with self._lock:
            self.transport.write(data)

    def go_silent(self) -> None:
        """Hang: no scans, no answers, nothing on the wire, until `resume`."""
        with self._lock:
            self._silent = True

    def resume(self) -> None:
        with self._lock:
            self._silent = False

    def reset(self) -> None:
        """Restart the MCU: the boot banner, then a boot hello with a new nonce and default settings."""
        with self._lock:
            self.in_maintenance = self._silent = False
            self._boot(banner=BOOT_BANNER)

    def unplug(self) -> None:
        with self._lock:
            self.transport.unplug()

    def replug(self, reboot: bool = True) -> None:
        """Plug the cable back; a USB-powered MCU boots again (`reboot`), one on its own supply does not."""
        with self._lock:
            self.transport.replug()
            if reboot:
                self._boot(banner=BOOT_BANNER)

    def flicker(self, location: str, counts: tuple[int, int], period_s: float = 0.1) -> None:
        """The channel alternates between its true counts and `counts` every `period_s`."""
        with self._lock:
            self._flickering[self.channels.channel_of(location)] = (counts, period_s)

    def stick(self, location: str, counts: tuple[int, int]) -> None:
        """The channel reads `counts` whatever lies on it."""
        with self._lock:
            self._stuck[self.channels.channel_of(location)] = counts

    def break_sensor(self, location: str) -> None:
        """The channel gives no reading (a dead ADC, a cut wire, an uncalibrated cell)."""
        with self._lock:
            self._broken.add(self.channels.channel_of(location))

    def unstick(self, location: str) -> None:
        """Repair a stuck, flickering or broken channel."""
        with self._lock:
            channel = self.channels.channel_of(location)
            self._stuck.pop(channel, None)
            self._flickering.pop(channel, None)
            self._broken.discard(channel)

    def fail_self_test(self, failures: list[tuple[str, int]]) -> None:
        """The next self-tests report these (location, failure code) pairs."""
        with self._lock:
            self._self_test_failures = [(self.channels.channel_of(location), code) for location, code in failures]

    # -- the MCU ---------------------------------------------------------------------------

    def _enter_maintenance(self) -> None:
        """As main.py on the Pico: restart with main.py stopped, so nothing more is sent until a reset."""
        self.in_maintenance = self._silent = True

    def _now_ms(self) -> int:
        return int((self._clock.monotonic() - self._started_at) * 1000)

    def _boot(self, banner: bytes) -> None:
        self.transport.write(banner)
        self.boots += 1
        node_module = firmware_module("node")
        self.node = node_module.Node(self.channels.channel_count, self.board_id,
                                     int.from_bytes(os.urandom(2), "big"), self._emit,
                                     self_test=lambda: list(self._self_test_failures),
                                     maintenance=self._enter_maintenance)
        self.node.boot(self._now_ms())

    def _sensed(self, now_ms: int) -> list[tuple[int, int] | None]:
        if self.weighing is not None:
            elapsed_s = 0.0 if self._last_scan_ms is None else (now_ms - self._last_scan_ms) / 1000
            self._last_scan_ms = now_ms
            counts = self.weighing.read(self.board.channel_stacks(self.channels), elapsed_s)
        else:
            counts = self.board.channel_counts(self.channels, self.colour_by)
        for channel, (other, period_s) in self._flickering.items():
            if (now_ms // int(period_s * 1000)) % 2:
                counts[channel] = other
        for channel, stuck in self._stuck.items():
            counts[channel] = stuck
        for channel in self._broken:
            counts[channel] = None
        return counts

    def step(self) -> None:
        """One turn of the main loop: take the host's bytes, scan, send."""
        with self._lock:
            if self._silent:
                return
            now_ms = self._now_ms()
            data = self.transport.read()
            if data:
                self.node.receive(data, now_ms)
            self.node.scan(self._sensed(now_ms), now_ms)

    def _run(self) -> None:
        # A fixed-rate schedule, as the Pico's loop sleeps only what is left of each scan period.
        due = self._clock.monotonic()
        while not self._stopping.is_set():
            self.step()
            due += self.node.scan_period_ms / 1000
            now = self._clock.monotonic()
            if due < now:   # fell behind (a loaded machine): carry on from now rather than burst
                due = now
            self._stopping.wait(due - now)

    def _emit(self, data: bytes) -> None:
        data = bytes(data)
        if self._corrupt_next and len(data) > 1:
            self._corrupt_next = False
            data = self._with_bad_crc(data)
        if self._drop_next and len(data) > 2:
            middle = len(data) // 2
            data = data[:middle] + data[middle + self._drop_next:]
            self._drop_next = 0
        self.transport.write(data)

    @staticmethod
    def _with_bad_crc(data: bytes) -> bytes:
        wire = firmware_module("wire")
        body = wire.cobs_decode(data[:-1])
        body[-1] ^= 0xFF
        return bytes(wire.cobs_encode(body)) + b"\x00"
