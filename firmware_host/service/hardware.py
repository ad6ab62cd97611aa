"""The board's drivers, opened from the configuration: real ones on a Pi, simulated ones elsewhere.

    hardware = Hardware.open(config, post=events.put)
    hardware.start()          # the sensor link thread; drivers post their events from now on
    ...
    hardware.close()          # stops the link, releases the pin, darkens the LEDs

`Hardware` is the one bundle of devices the application runs on, and `Hardware.open` the one place
that makes it, over a `Devices` factory (gpiozero's pattern: the same devices over another pin
factory): `Devices` for a Pi's, `SimulatedDevices` for the simulated board, and the HIL rigs' own
(`hil/rig.py`, `hil/trace_rig.py`) for a port in lockstep or a cable in virtual time.

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

from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory

from firmware_host.config import Config
from firmware_host.hw.button import DiceButton
from firmware_host.hw.buzzer import Buzzer
from firmware_host.hw.gpio import NotARaspberryPi, open_pin_factory, simulated_pin_factory
from firmware_host.leds.layout import LedConfig
from firmware_host.leds.strips import CapturingStrip, LedStripError, Strip, open_strip
from firmware_host.sensing.config import SensingConfig
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


class Devices:
    """Where the devices come from: a Pi's own (its pins, its NeoPixel strip, the MCU's serial port,
    the raw frames logged for bug reports). Other boards override what differs."""

    simulation: Simulation | None = None   # the simulated board's handles, where there is one

    def pin_factory(self) -> Factory | None:
        """gpiozero's pin factory for the button and the buzzer (None: no button); `NotARaspberryPi` off a Pi."""
        return open_pin_factory()

    def strip(self, leds: LedConfig) -> Strip | None:
        """The LED strip (None: no LEDs); `LedStripError` where it cannot be opened."""
        return open_strip(leds)

    def recorder(self, config: Config) -> RawFrameRecorder | None:
        return RawFrameRecorder(config.logging.raw_frames_dir)

    def sensor(self, sensing: SensingConfig, post: Callable[[object], None],
               wrap: Callable[[Callable], Callable]) -> BoardSensor:
        """The sensor driver; `wrap(opener)` adds the raw-frame log and the trace to the port's opener."""
        return BoardSensor(sensing, post, opener=wrap(open_port))

    def close(self) -> None:
        """Release what the factory itself holds (the devices close themselves)."""


class SimulatedDevices(Devices):
    """The simulated board: the simulated MCU (the real firmware logic) on a pseudo-terminal, gpiozero's
    mock pins and a capturing strip. `board`: the board, or its first layout (default: the portes opening)."""

    def __init__(self, config: Config, board: BoardReading | SimBoard | None = None) -> None:
        folder = Path(tempfile.mkdtemp(prefix="tavli-board-sim-"))
        sim_board = board if isinstance(board, SimBoard) else SimBoard(board or BoardReading.loads(OPENING_LAYOUT))
        sensors = config.sensing.sensors
        mcu = SimulatedMcu(sim_board, sensors.channels, PtyTransport(folder / "sensors"),
                           colour_by=sensors.mcu.colour_by).start()
        self.simulation = Simulation(sim_board, mcu, simulated_pin_factory(), folder)

    def pin_factory(self) -> Factory:
        return self.simulation.pins

    def strip(self, leds: LedConfig) -> Strip:
        return CapturingStrip(leds.layout)

    def sensor(self, sensing: SensingConfig, post: Callable[[object], None],
               wrap: Callable[[Callable], Callable]) -> BoardSensor:
        serial = dataclasses.replace(sensing.serial, port=self.simulation.mcu.port)
        return BoardSensor(dataclasses.replace(sensing, serial=serial), post, opener=wrap(open_port))

    def close(self) -> None:
        self.simulation.mcu.stop()
        shutil.rmtree(self.simulation.folder, ignore_errors=True)


@dataclass
class Hardware:
    config: Config
    sensor: BoardSensor
    button: DiceButton | None
    strip: Strip | None
    recorder: RawFrameRecorder | None      # the raw frames for bug reports (None: not logged)
    devices: Devices
    errors: dict[str, str] = field(default_factory=dict)   # part ("button", "leds") -> why it is missing
    buzzer: Buzzer | None = None   # silent (no device) when the config names no pin; None without GPIO

    @classmethod
    def open(cls, config: Config, post: Callable[[object], None], *, clock: Callable[[], float] = time.monotonic,
             board: BoardReading | SimBoard | None = None, trace=None, devices: Devices | None = None) -> Hardware:
        """Open every part over `devices` (default: the config's, real or simulated; `board` is then the
        simulated board, or its first layout); `trace`: a `service.trace.TraceRecorder` that also
        records the link's bytes, opens and failures; `clock`: the button's."""
        if devices is None:
            devices = SimulatedDevices(config, board) if config.simulated else Devices()
        recorder = devices.recorder(config)
        errors: dict[str, str] = {}
        try:
            pin_factory = devices.pin_factory()
        except NotARaspberryPi as error:
            pin_factory, errors["button"] = None, str(error)
            if config.pins.buzzer.pin is not None:
                errors["buzzer"] = str(error)
        try:
            strip = devices.strip(config.leds)
        except LedStripError as error:
            strip, errors["leds"] = None, str(error)
        button = buzzer = None
        if pin_factory is not None:
            button = DiceButton(config.pins.button, post, clock, pin_factory=pin_factory)
            buzzer = Buzzer(config.pins.buzzer, pin_factory=pin_factory)

        def wrap(opener: Callable) -> Callable:
            opener = opener if recorder is None else recorder.wrap(opener)
            return opener if trace is None else trace.wrap_opener(opener)
        sensor = devices.sensor(config.sensing, post, wrap)
        return cls(config, sensor, button, strip, recorder, devices, errors, buzzer)

    @property
    def simulation(self) -> Simulation | None:
        return self.devices.simulation

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
        self.devices.close()
        if self.recorder is not None:
            self.recorder.close()
