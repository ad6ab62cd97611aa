"""The whole application in virtual time, on one thread, for replays and soak campaigns.

    rig = VirtualRig(config, dice, cable_end)      # cable_end: where the host's port comes from
    rig.step()                                     # one scan period of virtual time

Everything from the sensor link up is the real code: the `BoardSensor` (its `LinkSession`,
channel map and `Stabiliser`), the `EventLoop`, the `Controller`, the journal and the LED renderer.
Only the two lowest layers differ from the service: the link is turned by `VirtualLink` one
step at a time instead of by a thread with blocking reads, and the port is a `Cable` in memory
rather than a device. Each `step` advances a `ManualClock` by one MCU scan period, lets the
other end of the cable (the simulated MCU, or a recorded trace) run, turns the link, then turns the
loop; nothing waits on a real clock, so a minute of play takes milliseconds and is reproducible.

Why a second rig beside `rig.Rig`: a replay feeds a trace's recorded bytes at their recorded times
with no simulated MCU, which needs the cable in memory and the link turned by hand; `Rig` keeps the
real reader thread and a real pseudo-terminal (the path a Pi's serial port takes, and `--realtime`),
which scenarios exist to test. The soak runs here, about twice as fast as it would on `Rig` (235 s
of play a second against 130 on this machine), and its traces replay on the same path.
"""
from __future__ import annotations

import logging
import queue
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import serial
from gpiozero.pins.mock import MockFactory

from firmware_host.config import Config
from firmware_host.controller import Timings
from firmware_host.hw.dice import DiceSource
from firmware_host.journal import Journal
from firmware_host.leds.layout import LedConfig
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import SensingConfig
from firmware_host.sensing.link import Backoff, LinkHandler
from firmware_host.sensing.sensor import BoardSensor
from firmware_host.service.assembly import assemble
from firmware_host.service.hardware import Devices, Hardware



class Cable:
    """A USB cable in memory: the simulated MCU's `Transport` at one end, a pyserial-like port
    (`open_host`) at the host's. Unplugging fails the host's open port (its next read raises,
    as pyserial's does when the device goes) and loses the bytes on the way."""

    port = "virtual://sensor-mcu"

    def __init__(self) -> None:
        self.to_host = bytearray()
        self.to_mcu = bytearray()
        self.plugged = True
        self._plugging = 0      # counts plug-ins: a port opened before an unplug stays dead

    # -- the MCU's end (sim.transport.Transport) ------------------------------------------------

    def read(self) -> bytes:
        data = bytes(self.to_mcu)
        self.to_mcu.clear()
        return data

    def write(self, data: bytes) -> None:
        if self.plugged:
            self.to_host += data

    def unplug(self) -> None:
        self.plugged = False
        self._plugging += 1
        self.to_host.clear()
        self.to_mcu.clear()

    def replug(self) -> None:
        self.plugged = True

    def close(self) -> None:
        self.unplug()

    # -- the host's end ------------------------------------------------------------------------

    def open_host(self) -> HostPort:
        if not self.plugged:
            raise serial.SerialException(f"could not open port {self.port}: no such device")
        return HostPort(self, self._plugging)

    def alive(self, plugging: int) -> bool:
        return self.plugged and plugging == self._plugging


class HostPort:
    """The host's open port on a `Cable` (the part of `serial.Serial` the link uses)."""

    def __init__(self, cable: Cable, plugging: int) -> None:
        self._cable = cable
        self._plugging = plugging

    @property
    def in_waiting(self) -> int:
        self._check()
        return len(self._cable.to_host)

    def read(self, size: int = 1) -> bytes:
        self._check()
        data = bytes(self._cable.to_host)
        self._cable.to_host.clear()
        return data

    def write(self, data: bytes) -> int:
        self._check()
        self._cable.to_mcu += data
        return len(data)

    def close(self) -> None:
        pass

    def _check(self) -> None:
        if not self._cable.alive(self._plugging):
            raise serial.SerialException("device reports readiness to read but returned no data "
                                         "(device disconnected or multiple access on port?)")


class VirtualLink:
    """What `sensing.link.SerialLink`'s thread does, one step at a time on the caller's thread:
    open the port (with the same backoff after a failure), read what came, hand it to the
    handler, run submitted work, tick the handler."""

    def __init__(self, handler: LinkHandler, open_port: Callable[[], object], backoff: Backoff) -> None:
        self.handler = handler
        self.reopen_attempts = 0
        self._open_port = open_port
        self._backoff = backoff
        self._port = None
        self._reopen_at = float("-inf")
        self._work: list[Callable[[float], None]] = []
        self._now = 0.0

    # -- what BoardSensor uses ------------------------------------------------------------------

    def start(self) -> None:
        pass

    def stop(self, timeout_s: float = 0.0) -> None:
        self._port = None

    def submit(self, work: Callable[[float], None]) -> None:
        self._work.append(work)

    def write(self, data: bytes) -> None:
        if self._port is not None:
            self._port.write(data)

    # -- the rig ---------------------------------------------------------------------------------

    def step(self, now: float) -> None:
        self._now = now
        if self._port is None:
            if now < self._reopen_at:
                return
            try:
                self._port = self._open_port()
            except (serial.SerialException, OSError) as error:
                self._fail(str(error), now)
                return
            self.handler.opened(now)
        try:
            data = self._port.read(self._port.in_waiting or 1)
            if data:
                self._backoff.reset()
                self.handler.received(data, now)
            self._run_submitted(now)
            self.handler.tick(now)
        except (serial.SerialException, OSError) as error:
            self._port = None
            self._fail(str(error), now)

    def _run_submitted(self, now: float) -> None:
        work, self._work = self._work, []
        for item in work:
            item(now)

    def _fail(self, reason: str, now: float) -> None:
        self.handler.lost(reason)
        self._run_submitted(now)
        self.reopen_attempts += 1
        self._reopen_at = now + self._backoff.next_delay()


class LoggedErrors(logging.Handler):
    """Hands `on_error` every message the application logs as an error while the rig runs (the
    loop logs a failed handler and goes on: for a rig that is a crash to report)."""

    def __init__(self, on_error: Callable[[str], None]) -> None:
        super().__init__(logging.ERROR)
        self._on_error = on_error

    def emit(self, record: logging.LogRecord) -> None:
        self._on_error(record.getMessage())

    def __enter__(self) -> LoggedErrors:
        logging.getLogger("firmware_host").addHandler(self)
        return self

    def __exit__(self, *exc_info) -> None:
        logging.getLogger("firmware_host").removeHandler(self)


@dataclass
class CableEnd:
    """The far end of the cable, run once per step before the link: the simulated MCU scanning
    its board, or a trace feeding recorded bytes. `open_port()` gives the host a port;
    `after_link(now)`, if any, runs after the link's step (where the button is polled)."""

    step: Callable[[float], None]
    open_port: Callable[[], object]
    after_link: Callable[[float], None] | None = None


class CableDevices(Devices):
    """The devices in virtual time: the sensor driver on the cable's link, mock `pins` for the button
    (None: no button, events are posted directly), no LEDs (the loop's scene is what they would show)
    and no raw-frame log."""

    def __init__(self, clock: ManualClock, make_link: Callable[[LinkHandler], VirtualLink],
                 pins: MockFactory | None) -> None:
        self.clock, self.make_link, self.pins = clock, make_link, pins

    def pin_factory(self) -> MockFactory | None:
        return self.pins

    def strip(self, leds: LedConfig) -> None:
        return None

    def recorder(self, config: Config) -> None:
        return None

    def sensor(self, sensing: SensingConfig, post: Callable[[object], None],
               wrap: Callable[[Callable], Callable]) -> BoardSensor:
        return BoardSensor(sensing, post, self.clock, link=self.make_link)


class VirtualRig:
    def __init__(self, config: Config, dice: DiceSource, far_end: CableEnd, folder: Path, *,
                 timings: Timings = Timings(), clock: ManualClock | None = None, pins: MockFactory | None = None,
                 observers: tuple = (), frame_interval_s: float | None = None,
                 post_filter: Callable[[Callable[[object], None]], Callable[[object], None]] | None = None,
                 reopen: Backoff | None = None, resume: bool = False) -> None:
        """`folder`: for the journal (`resume`: its unfinished match is continued); `pins`: the button's mock pins (None: no button, events are
        posted directly); `post_filter(post)`: wraps what the drivers post (a trace recorder);
        `reopen`: the waits before reopening a failed port (default: the configured backoff)."""
        self.config = config
        self.clock = clock or ManualClock()
        self.far_end = far_end
        self.journal = Journal.open(folder / "journal.sqlite3")
        self.events: queue.Queue = queue.Queue()
        post = self.events.put if post_filter is None else post_filter(self.events.put)
        serial_settings = config.sensing.serial
        self.link: VirtualLink | None = None

        def make_link(handler: LinkHandler) -> VirtualLink:
            self.link = VirtualLink(handler, far_end.open_port, reopen or Backoff(
                serial_settings.reconnect_min_s, serial_settings.reconnect_max_s))
            return self.link
        self.pins = pins
        self.hardware = Hardware.open(config, post, clock=self.clock.monotonic,
                                      devices=CableDevices(self.clock, make_link, pins))
        self.sensor = self.hardware.sensor
        self.loop = assemble(config, self.hardware, self.journal, self.events, dice=dice, clock=self.clock,
                             timings=timings, judge_in_background=False, observers=observers,
                             resumed=self.journal.resume() if resume else None).loop
        if frame_interval_s is not None:
            self.loop.frame_interval_s = frame_interval_s
        self.step_s = 1 / config.sensing.sensors.scan_hz

    @property
    def controller(self):
        return self.loop.controller

    @property
    def now(self) -> float:
        return self.clock.monotonic()

    def step(self) -> None:
        """One scan period: the far end, the link, the loop."""
        now = self.clock.advance(self.step_s)
        self.far_end.step(now)
        self.link.step(now)
        if self.far_end.after_link is not None:
            self.far_end.after_link(now)
        self.loop.turn()

    def advance(self, seconds: float) -> None:
        until = self.now + seconds
        while self.now < until - 1e-9:
            self.step()

    def press_pin(self, down: bool) -> None:
        pin = self.pins.pin(self.config.pins.button.pin)
        if down:
            pin.drive_low()
        else:
            pin.drive_high()

    def close(self) -> None:
        if self.hardware.button is not None:
            self.hardware.button.close()
        if self.hardware.buzzer is not None:
            self.hardware.buzzer.close()
        self.journal.close()
