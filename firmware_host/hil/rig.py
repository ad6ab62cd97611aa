"""The rig a scenario runs on: the simulated board and MCU on a pty, and the host application (the
real sensor link, dice button on a mock pin, event loop, controller, journal, LED renderer).

    with Rig(config, dice, folder, first_board, realtime=False) as rig:
        rig.board.lift(13, "white"); rig.advance(0.2); rig.board.place(9, "white")
        rig.settle()
        rig.view.state, rig.last_frame()

In virtual time (the default) nothing runs on a thread of its own but the sensor link's, and that
one in lockstep: every 10 ms tick the MCU scans when due, the link takes exactly one turn (reading
every byte the MCU has sent, ticking the session and stabiliser), then the event loop takes one
turn. With `realtime` the MCU, the link and the loop run freely on their threads, as in the service.

Why a second rig beside `trace_rig.VirtualRig`: this one keeps the link on its real reader thread and
the bytes on a real pseudo-terminal, the path a Pi's serial port takes, and can run in real time;
scenarios are the acceptance tests of that path. `VirtualRig` runs everything on one thread over an
in-memory cable, which a trace replay needs (recorded bytes fed back at their exact times, no
simulated MCU) and the soak uses. On this machine this rig plays about 130 s a second (a whole match
scenario) and `VirtualRig` about 235 (a soak): the soak gains from it, but the reason for two is the
pty and the thread, which one rig cannot both keep and do without.
"""
from __future__ import annotations

import dataclasses
import os
from collections import deque
import queue
import select
import threading
import time
from pathlib import Path
from typing import Callable

import serial
from gpiozero.pins.mock import MockFactory

from firmware_host.config import Config
from firmware_host.controller.view import GameView
from firmware_host.hil.scenario import EXPECT_KEYS
from firmware_host.hw.dice import DiceSource
from firmware_host.hw.gpio import simulated_pin_factory
from firmware_host.journal import Journal
from firmware_host.maker.mechanics import board_mechanics
from firmware_host.leds.render import Frame, Renderer
from firmware_host.leds.layout import LedConfig
from firmware_host.leds.strips import CapturingStrip, NeoPixelStrip, Strip
from firmware_host.sensing.clock import Clock, ManualClock, MonotonicClock
from firmware_host.sensing.config import SensingConfig, SerialSettings
from firmware_host.sensing.link import open_port
from firmware_host.sensing.reading import BoardReading
from firmware_host.sensing.sensor import BoardSensor
from firmware_host.sim.board import SimBoard
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.service.assembly import assemble
from firmware_host.service.hardware import Devices, Hardware
from firmware_host.sim.transport import PtyTransport

TICK_S = 0.01            # virtual time advances in steps this long
SETTLE_LIMIT_S = 10.0    # settling gives up after this long (a board that never reads as it lies)
SYNC_TIMEOUT_S = 2.0     # real seconds to wait for bytes the pty must deliver (a loaded machine)
PRESS_S = 0.08           # a finger on the button for a press
HOLD_EXTRA_S = 0.2       # a hold lasts the hold time and this much more
FRAMES_KEPT = 200        # frames the rig remembers for failure reports
VIRTUAL_EPOCH = 1.7e9    # the journal's wall clock in virtual time: a fixed date, so runs are alike


class TimedStrip(CapturingStrip):
    """Captures every frame into `log` with the clock time it was shown at (the time to decode it at);
    the log outlives the host, so a report shows the frames from before a power cut too."""

    def __init__(self, layout, clock: Clock, log: deque[tuple[float, Frame]]):
        super().__init__(layout)
        self.clock = clock
        self.log = log

    def show(self, frame: Frame) -> None:
        super().show(frame)   # checks the frame's length
        self.log.append((self.clock.monotonic(), self.frames.pop()))   # kept once, in the log


def wire_strip(leds: LedConfig, clock: Clock, log: deque[tuple[float, Frame]]) -> Strip:
    """The strip as the service drives it: `NeoPixelStrip` over Adafruit's `NeoPixel` class, on
    Blinka's OS-agnostic board, with the final write (the bytes for the data line) captured and read
    back into a frame in `log`. Where those libraries are not installed, a `TimedStrip`."""
    os.environ.setdefault("BLINKA_OS_AGNOSTIC", "1")   # the rig has no LEDs: only the bytes are wanted
    try:
        import board
        import neopixel
    except (ImportError, NotImplementedError):
        return TimedStrip(leds.layout, clock, log)
    order = leds.pixel_order

    class CapturedNeoPixel(neopixel.NeoPixel):
        def _transmit(self, buffer: bytearray) -> None:
            wire = bytes(buffer)
            log.append((clock.monotonic(), tuple(
                tuple(wire[start + order.index(channel)] for channel in "RGB")
                for start in range(0, len(wire), len(order)))))

    return NeoPixelStrip(CapturedNeoPixel(board.NEOPIXEL, leds.layout.count, pixel_order=order, auto_write=False),
                         "neopixel on the rig's captured data line")


def press(rig) -> None:
    rig.button(True)
    rig.advance(PRESS_S)
    rig.button(False)


def hold(rig, seconds: float | None = None) -> None:
    rig.button(True)
    rig.advance(rig.config.pins.button.hold_s + HOLD_EXTRA_S if seconds is None else seconds)
    rig.button(False)


# -- lockstep between the rig and the link thread (virtual time) ------------------------------------


class Wire:
    """Counts the bytes each end of the pty sent and received since the host opened it, so that
    each side can wait for exactly the bytes the other has sent (a pty delivers them a little later)."""

    def __init__(self) -> None:
        self.mcu_sent = self.host_received = self.host_sent = self.mcu_received = 0

    def opened(self) -> None:
        self.mcu_sent = self.host_received = self.host_sent = self.mcu_received = 0


class Gate:
    """The link thread takes one turn (one read of the port, or one attempt to open it) per `turn()`."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._tickets = 0
        self._taken = 0
        self._link_waiting = False
        self.closed = False

    def wait_turn(self) -> None:
        """On the link thread: the previous turn is over; wait for the next."""
        with self._condition:
            self._link_waiting = True
            self._condition.notify_all()
            self._condition.wait_for(lambda: self.closed or self._tickets > self._taken)
            self._taken = self._tickets
            self._link_waiting = False

    def turn(self) -> None:
        """On the rig's thread: let the link take one turn, and wait until it has."""
        with self._condition:
            self._tickets += 1
            self._condition.notify_all()
            if not self._condition.wait_for(lambda: self._link_waiting and self._taken == self._tickets,
                                            SYNC_TIMEOUT_S * 5):
                raise RuntimeError("the sensor link thread did not come back within its turn")

    def close(self) -> None:
        with self._condition:
            self.closed = True
            self._condition.notify_all()


class LockstepPort:
    """The host's serial port in virtual time: each read is one turn of the gate and returns every
    byte the MCU has sent so far; the rest is the real pyserial port on the pty."""

    def __init__(self, port: serial.SerialBase, wire: Wire, gate: Gate):
        self._port, self._wire, self._gate = port, wire, gate

    @property
    def in_waiting(self) -> int:
        return 0   # the link then asks for one byte, and gets all there are at its turn

    def read(self, size: int = 1) -> bytes:
        self._gate.wait_turn()
        if self._gate.closed:
            return b""
        data = bytearray()
        deadline = time.monotonic() + SYNC_TIMEOUT_S
        while True:
            data += self._port.read(max(self._port.in_waiting, 1))   # timeout 0; raises on a hung-up pty
            if self._wire.mcu_sent - self._wire.host_received - len(data) <= 0 or time.monotonic() > deadline:
                break
            select.select([self._port.fileno()], [], [], 0.05)
        self._wire.host_received += len(data)
        return bytes(data)

    def write(self, data: bytes) -> int:
        written = self._port.write(data)
        self._wire.host_sent += len(data)
        return written

    def cancel_read(self) -> None:
        self._gate.close()

    def close(self) -> None:
        self._port.close()


class LockstepTransport:
    """The MCU's end of the pty in virtual time: counts what it sends, and reads every byte the host sent."""

    def __init__(self, transport: PtyTransport, wire: Wire):
        self._transport, self._wire = transport, wire
        self.port = transport.port
        self.plugged = True

    def read(self) -> bytes:
        data = bytearray(self._transport.read())
        deadline = time.monotonic() + SYNC_TIMEOUT_S
        while self.plugged and self._wire.host_sent - self._wire.mcu_received - len(data) > 0 \
                and time.monotonic() < deadline:
            time.sleep(0.0005)
            data += self._transport.read()
        self._wire.mcu_received += len(data)
        return bytes(data)

    def write(self, data: bytes) -> None:
        self._transport.write(data)
        if self.plugged:
            self._wire.mcu_sent += len(data)

    def unplug(self) -> None:
        self.plugged = False
        self._transport.unplug()

    def replug(self) -> None:
        self._transport.replug()
        self.plugged = True

    def close(self) -> None:
        self._transport.close()


# -- the host application ---------------------------------------------------------------------------


class RigDevices(Devices):
    """The rig's devices: the sensor link on the rig's clock and pty (in lockstep with the simulated
    MCU, through `gate`, unless in real time), mock pins, and the strip as the service drives it, its
    frames captured into `frames`. No raw-frame log: the rig keeps the frames itself."""

    def __init__(self, clock: Clock, frames: deque[tuple[float, Frame]], wire: Wire | None, gate: Gate | None):
        self.clock, self.frames, self.wire, self.gate = clock, frames, wire, gate
        self.pins = simulated_pin_factory()

    def pin_factory(self) -> MockFactory:
        return self.pins

    def strip(self, leds: LedConfig) -> Strip:
        return wire_strip(leds, self.clock, self.frames)

    def recorder(self, config: Config) -> None:
        return None

    def sensor(self, sensing: SensingConfig, post: Callable[[object], None],
               wrap: Callable[[Callable], Callable]) -> BoardSensor:
        return BoardSensor(sensing, post, self.clock, opener=wrap(open_port if self.gate is None else self._lockstep))

    def _lockstep(self, url: str, settings: SerialSettings) -> LockstepPort:
        self.gate.wait_turn()   # one attempt to open per tick
        port = open_port(url, settings)
        port.timeout = 0
        self.wire.opened()
        return LockstepPort(port, self.wire, self.gate)


class Host:
    """The application on the Pi, as `tavli-board run` assembles it, on the rig's clock and pty."""

    def __init__(self, config: Config, dice: DiceSource, clock: Clock, frames: deque[tuple[float, Frame]], *,
                 realtime: bool, wire: Wire | None = None, gate: Gate | None = None):
        self.events: queue.Queue = queue.Queue()
        devices = RigDevices(clock, frames, wire, gate)
        self.pins = devices.pins
        self.hardware = Hardware.open(config, self.events.put, clock=clock.monotonic, devices=devices)
        self.button = self.hardware.button
        wall_clock = time.time if realtime else (lambda: VIRTUAL_EPOCH + clock.monotonic())
        # As the service starts: an unfinished match in the journal (a power cut) is taken up again.
        self.journal = Journal.open(config.journal_path, wall_clock=wall_clock)
        self.loop = assemble(config, self.hardware, self.journal, self.events, dice=dice, clock=clock,
                             judge_in_background=realtime, observers=[self._observe],
                             resumed=self.journal.resume()).loop
        self.view: GameView = self.loop.controller.view()
        self._thread: threading.Thread | None = None
        if realtime:
            self._thread = threading.Thread(target=self.loop.run, name="event-loop", daemon=True)

    def _observe(self, view: GameView, event: object) -> None:
        self.view = view

    def start(self) -> None:
        self.hardware.start()
        if self._thread is not None:
            self._thread.start()

    def stop(self) -> None:
        """The application goes away: a power cut writes nothing more (the journal is already durable)
        and the LEDs go dark."""
        self.loop.stop()
        if self._thread is not None:
            self._thread.join(5.0)
        self.hardware.close()
        self.journal.close()


class Rig:
    checkable = EXPECT_KEYS   # every expectation can be checked here (not so on a real Pi)

    def __init__(self, config: Config, dice: DiceSource, folder: Path, first_board: BoardReading, *,
                 realtime: bool = False, physics: bool = False):
        self.realtime = realtime
        self.clock: Clock = MonotonicClock() if realtime else ManualClock(0.0)
        self.board = SimBoard(first_board)
        transport = PtyTransport(folder / "sensors")
        self.wire = None if realtime else Wire()
        weighing = None
        if physics:
            from firmware_host.sim.weighed import WeighedBoard   # numpy: the `physics` extra
            weighing = WeighedBoard.for_config(config.sensing, board_mechanics(config), seed=0)
        self.mcu = SimulatedMcu(self.board, config.sensing.sensors.channels,
                                transport if realtime else LockstepTransport(transport, self.wire), clock=self.clock,
                                weighing=weighing, colour_by=config.sensing.sensors.mcu.colour_by)
        serial_settings = config.sensing.serial
        if not realtime:
            # One attempt to reopen per tick: the link's back-off is real time, which stands still here.
            serial_settings = dataclasses.replace(serial_settings, reconnect_min_s=1e-4, reconnect_max_s=1e-4)
        self.config = dataclasses.replace(
            config, journal_path=folder / "journal.sqlite3",
            sensing=dataclasses.replace(config.sensing, serial=dataclasses.replace(serial_settings, port=self.mcu.port)))
        self.dice = dice
        self.host: Host | None = None
        # The frames shown, with their times, of every host that ran (the last few: for reports).
        self.frames: deque[tuple[float, Frame]] = deque(maxlen=FRAMES_KEPT)
        self._gate: Gate | None = None
        self._next_scan = 0.0

    # -- the application ----------------------------------------------------------------------------

    def __enter__(self) -> Rig:
        if self.realtime:
            self.mcu.start()
        self.power_on()
        return self

    def __exit__(self, *exc_info) -> None:
        self.power_off()
        self.mcu.stop()

    def power_on(self) -> None:
        self._gate = None if self.realtime else Gate()
        self.host = Host(self.config, self.dice, self.clock, self.frames, realtime=self.realtime, wire=self.wire, gate=self._gate)
        self.host.start()

    def power_off(self) -> None:
        if self.host is None:
            return
        if self._gate is not None:
            self._gate.close()
        self.host.stop()
        self.host = None

    @property
    def view(self) -> GameView:
        return self.host.view

    def last_frame(self) -> tuple[float, Frame] | None:
        return self.frames[-1] if self.frames else None

    def shown(self, renderer: Renderer) -> dict[str, str]:
        """What the LEDs show now: the last frame sent to the strip, decoded."""
        last = self.last_frame()
        return renderer.decode(last[1], last[0]) if last else {}

    def shown_history(self, renderer: Renderer, count: int) -> list[tuple[float, dict[str, str]]]:
        """The last `count` frames, decoded, with their times."""
        return [(at, renderer.decode(frame, at)) for at, frame in list(self.frames)[-count:]] if count else []

    # -- hands ----------------------------------------------------------------------------------------

    def button(self, down: bool) -> None:
        pin = self.host.pins.pin(self.config.pins.button.pin)
        pin.drive_low() if down else pin.drive_high()

    def press(self) -> None:
        """A finger on the button long enough for a press, then off it."""
        press(self)

    def hold(self, seconds: float | None = None) -> None:
        """The button down `seconds` (default: the hold time and a little more), then up."""
        hold(self, seconds)

    # -- time -----------------------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass: in virtual time, tick by tick; in real time, wait."""
        if self.realtime:
            time.sleep(seconds)
            return
        end = self.clock.now + seconds
        while self.clock.now < end - 1e-9:
            self._tick(min(TICK_S, end - self.clock.now))

    def _tick(self, seconds: float) -> None:
        self.clock.advance(seconds)
        if self.clock.now >= self._next_scan - 1e-9:
            self.mcu.step()
            self._next_scan = max(self._next_scan + self.mcu.node.scan_period_ms / 1000, self.clock.now)
        if self.host is not None:
            self._gate.turn()
            self.host.loop.turn()

    def settle(self) -> bool:
        """Let time pass (the quiet time at least) until the controller has read the board as it lies
        (stable, settled, judged) and the button is idle; at most SETTLE_LIMIT_S. Returns whether it did."""
        waited = 0.0
        step = TICK_S if not self.realtime else 0.02
        # What the actions did reaches the controller through the sensors' quiet time at the soonest:
        # until then the board it last read may still look like the truth (a sensor stuck just now).
        at_least = self.config.sensing.sensors.quiet_ms / 1000 + 2 * self.mcu.node.scan_period_ms / 1000
        while True:
            if waited >= at_least and self.host is not None and self._settled():
                return True
            if waited >= SETTLE_LIMIT_S:
                return False
            self.advance(step)
            waited += step

    def _settled(self) -> bool:
        view, host = self.host.view, self.host
        return (view.sensed == self.mcu.sensed_reading() and not view.changing and view.settled and not view.judging
                and host.button.next_deadline() is None and host.events.empty())
