"""The board's drivers, opened from the configuration: real ones on a Pi, simulated ones elsewhere.

    hardware = Hardware.open(config, post=events.put)
    hardware.start()          # the sensor link thread; drivers post their events from now on
    ...
    hardware.close()          # stops the link, releases the pin, darkens the LEDs

`hardware = "real"`: the serial link to the MCU, gpiozero on the Pi's pins (the button and the
optional buzzer), the NeoPixel strip.
`hardware = "simulated"`: the simulated MCU (the real firmware logic) on a pseudo-terminal scanning a
`SimBoard`, gpiozero's mock pins, and a `CapturingStrip`; `simulation` then gives the board, the
MCU and the pins, to handle the board and press the button from code.

Either way the link's bytes pass through a `RawFrameRecorder` for bug reports. A part that cannot
be opened (no strip on this machine, not a Pi) is None, with the reason in `errors`: the caller
decides what a missing part means (the self-test reports it, the service shows a fault).
"""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gpiozero.pins.mock import MockFactory

from firmware_host.config import Config
from firmware_host.hw.button import DiceButton
from firmware_host.hw.buzzer import Buzzer
from firmware_host.hw.gpio import NotARaspberryPi, open_pin_factory, simulated_pin_factory
from firmware_host.leds.strips import CapturingStrip, LedStripError, Strip, open_strip
from firmware_host.sensing.link import open_port
from firmware_host.sensing.reading import BoardReading
from firmware_host.sensing.sensor import BoardSensor
from firmware_host.service.rawlog import RawFrameRecorder
from firmware_host.sim.board import OPENING_LAYOUT, SimBoard
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.sim.transport import PtyTransport


@dataclass
class Simulation:
    board: SimBoard
    mcu: SimulatedMcu
    pins: MockFactory
    folder: Path          # holds the pty's link

    def press_button(self, pin: int) -> None:
        self.pins.pin(pin).drive_low()

    def release_button(self, pin: int) -> None:
        self.pins.pin(pin).drive_high()


@dataclass
class Hardware:
    config: Config
    sensor: BoardSensor
    button: DiceButton | None
    strip: Strip | None
    recorder: RawFrameRecorder
    simulation: Simulation | None = None
    errors: dict[str, str] = field(default_factory=dict)   # part ("button", "leds") -> why it is missing
    buzzer: Buzzer | None = None   # silent (no device) when the config names no pin; None without GPIO

    @classmethod
    def open(cls, config: Config, post: Callable[[object], None], *, clock: Callable[[], float] = time.monotonic,
             board: BoardReading | SimBoard | None = None, trace=None) -> Hardware:
        """Open every part; `board` is the simulated board, or its first layout (default: the portes opening);
        `trace`: a `hil.trace.TraceRecorder` that also records the link's bytes, opens and failures."""
        recorder = RawFrameRecorder(config.logging.raw_frames_dir)
        errors: dict[str, str] = {}
        sensing, simulation = config.sensing, None
        if config.simulated:
            folder = Path(tempfile.mkdtemp(prefix="tavli-board-sim-"))
            sim_board = board if isinstance(board, SimBoard) else SimBoard(board or BoardReading.loads(OPENING_LAYOUT))
            mcu = SimulatedMcu(sim_board, sensing.sensors.channels, PtyTransport(folder / "sensors"),
                               colour_by=sensing.sensors.mcu.colour_by).start()
            simulation = Simulation(sim_board, mcu, simulated_pin_factory(), folder)
            sensing = dataclasses.replace(sensing, serial=dataclasses.replace(sensing.serial, port=mcu.port))
            pin_factory = simulation.pins
            strip: Strip | None = CapturingStrip(config.leds.layout)
        else:
            try:
                pin_factory = open_pin_factory()
            except NotARaspberryPi as error:
                pin_factory, errors["button"] = None, str(error)
                if config.pins.buzzer.pin is not None:
                    errors["buzzer"] = str(error)
            try:
                strip = open_strip(config.leds)
            except LedStripError as error:
                strip, errors["leds"] = None, str(error)
        button = buzzer = None
        if pin_factory is not None:
            button = DiceButton(config.pins.button, post, clock, pin_factory=pin_factory)
            buzzer = Buzzer(config.pins.buzzer, pin_factory=pin_factory)
        opener = recorder.wrap(open_port)
        sensor = BoardSensor(sensing, post, opener=opener if trace is None else trace.wrap_opener(opener))
        return cls(config, sensor, button, strip, recorder, simulation, errors, buzzer)

    def start(self) -> None:
        self.sensor.start()

    def close(self) -> None:
        self.sensor.stop()
        if self.button is not None:
            self.button.close()
        if self.buzzer is not None:
            self.buzzer.close()
        if self.strip is not None:
            self.strip.close()
        if self.simulation is not None:
            self.simulation.mcu.stop()
            shutil.rmtree(self.simulation.folder, ignore_errors=True)
        self.recorder.close()
