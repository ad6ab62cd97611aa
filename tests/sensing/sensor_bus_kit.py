"""The firmware's sensor bus over the register-level fake chips (tests/sensing/micropython/i2c_chips.py)
under CPython, on a virtual clock: for tests/sensing/test_firmware_sensors.py and bench/bench_scan.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from firmware_host.sensing.config import load_sensing_config
from firmware_host.sim.firmware import firmware_module

_spec = importlib.util.spec_from_file_location("i2c_chips", Path(__file__).parent / "micropython" / "i2c_chips.py")
i2c_chips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(i2c_chips)

# The field under a bottom checker of each colour as the colour decision (tavli_mcu/counting.py) reads
# it: the one place the tests and bench/bench_scan.py take it from.
CHECKER_FIELD_MT = {"white": (0.0, 0.0, 12.0), "black": (6.0, 0.0, 0.0)}

bus_module = firmware_module("bus")
loadcells = firmware_module("loadcells")
hall = firmware_module("hall")


class VirtualTime:
    """Milliseconds (`ms`) that pass only when the firmware sleeps or a transaction takes time."""

    def __init__(self) -> None:
        self.ms = 0.0

    def __call__(self) -> int:
        """Whole milliseconds, as the Pico's ticks_ms."""
        return int(self.ms)

    def sleep_ms(self, ms: float) -> None:
        self.ms += ms

    def sleep_us(self, us: float) -> None:
        self.ms += us / 1000


class BusPin:
    """SCL or SDA as the open-drain pin a bus clear drives."""

    def __init__(self, chips, scl: bool) -> None:
        self.chips, self.scl = chips, scl

    def value(self, level=None):
        if level is None:
            return self.chips.sda_level() if not self.scl else 1
        if self.scl:
            self.chips.set_scl(level)


class FakeSensorBoard:
    """`channels` locations, each a NAU7802 and a TMAG5273 behind the reference board's multiplexers."""

    def __init__(self, channels: int = 28, raw=None, field_mt=None) -> None:
        self.time = VirtualTime()
        hall_address = load_sensing_config().sensors.mcu.hall_address
        self.chips = i2c_chips.SensorBus(channels, self.time, self.time.sleep_us, hall_address, raw, field_mt)
        self.bus = bus_module.Bus(self._open_i2c, lambda: (BusPin(self.chips, True), BusPin(self.chips, False)),
                                  i2c_chips.MUX_ADDRESSES, self.time.sleep_us)
        self.bank = loadcells.Nau7802Bank(self.bus, channels, self.time, self.time.sleep_ms)
        self.hall = hall.HallBank(self.bus, channels, hall_address, self.time)

    def _open_i2c(self):
        self.chips.timeout_us = bus_module.TRANSACTION_TIMEOUT_US   # as main.py's machine.I2C(timeout=...)
        return self.chips

    def start(self) -> set[int]:
        """As main.py: the bus cleared and the multiplexers off, every ADC and Hall sensor started;
        returns the ADCs that did not start."""
        self.bus.start()
        failed = self.bank.start_all()
        self.hall.start_all()
        return failed
