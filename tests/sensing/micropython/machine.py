"""A fake `machine` module for running the firmware's main.py and calibrate.py unmodified on MicroPython's
unix port, over the register-level fakes of the sensor bus in i2c_chips.py.

The board comes from fake_board.json in the working folder: "raw" is every channel's NAU7802 conversion
(null: the chip does not answer), "field_mt" every channel's TMAG5273 field, "pins_low" the GPIOs held
to GND, "ports" each multiplexer's control register as a previous run left it, "sda_held" the SCL
clocks until a device lets SDA go (-1: never). While main.py runs a test changes the board by writing
inject.json ("raw" and "field_mt" as {channel: value}, "dead", "alive", "brown_out" and
"hall_brown_out" as lists of channels, "conversion_ms" as {channel: ms}, "sda_held"): it is taken at the next watchdog
feed, which then writes the file `injected`. The watchdog resets (leaves watchdog_fired, ends the
program) when it is fed later than its timeout; reset() leaves reset behind and ends the program;
a started watchdog leaves watchdog_started, two devices answering at once leave collisions.
"""
import json
import os
import time

import board_config
from i2c_chips import SensorBus

try:
    with open("fake_board.json") as _file:
        _BOARD = json.load(_file)
except OSError:
    _BOARD = {}
PINS_LOW = _BOARD.get("pins_low", [])
_RAW = _BOARD.get("raw", [0] * board_config.CHANNELS)
BUS = SensorBus(len(_RAW), time.ticks_ms, time.sleep_us, board_config.HALL_ADDRESS, [value or 0 for value in _RAW],
                _BOARD.get("field_mt"))
for _channel, _value in enumerate(_RAW):
    BUS.adcs[_channel].dead = _value is None
BUS.ports = _BOARD.get("ports", BUS.ports)
BUS.hold_sda(_BOARD.get("sda_held", 0))


def _mark(name, text="1"):
    with open(name, "w") as marker:
        marker.write(text)


def _inject():
    try:
        with open("inject.json") as file:
            change = json.load(file)
    except OSError:
        return
    os.remove("inject.json")
    for channel, value in change.get("raw", {}).items():
        BUS.adcs[int(channel)].raw = value
    for channel, value in change.get("field_mt", {}).items():
        BUS.halls[int(channel)].field_mt = value
    for channel in change.get("dead", []):
        BUS.adcs[channel].dead = True
    for channel in change.get("alive", []):   # powered again: its registers as after a reset
        BUS.adcs[channel].dead = False
        BUS.adcs[channel].brown_out()
    for channel in change.get("brown_out", []):
        BUS.adcs[channel].brown_out()
    for channel in change.get("hall_brown_out", []):
        BUS.halls[channel].brown_out()
    for channel, value in change.get("conversion_ms", {}).items():
        BUS.adcs[int(channel)].slow(value)
    if "sda_held" in change:
        BUS.hold_sda(change["sda_held"])
    _mark("injected")


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number

    def value(self, level=None):
        if level is None:
            if self.number == board_config.I2C_SDA_PIN:
                return BUS.sda_level()
            return 0 if self.number in PINS_LOW else 1
        if self.number == board_config.I2C_SCL_PIN:
            BUS.set_scl(level)


class I2C:
    def __init__(self, ident, sda=None, scl=None, freq=None, timeout=50000):
        BUS.timeout_us = timeout

    def writeto(self, address, data):
        return BUS.writeto(address, data)

    def readfrom_mem(self, address, register, count):
        return BUS.readfrom_mem(address, register, count)

    def writeto_mem(self, address, register, data):
        return BUS.writeto_mem(address, register, data)


class UART:
    def __init__(self, *args, **kwargs):
        raise OSError("the fake board is wired over USB")


class WDT:
    def __init__(self, timeout=0):
        self.timeout = timeout
        self.fed = time.ticks_ms()
        _mark("watchdog_started")

    def feed(self):
        now = time.ticks_ms()
        if time.ticks_diff(now, self.fed) > self.timeout:
            _mark("watchdog_fired", str(time.ticks_diff(now, self.fed)))
            raise SystemExit
        self.fed = now
        if BUS.collisions:
            _mark("collisions", str(BUS.collisions))
        _inject()


def unique_id():
    return b"\x01\x02\x03\x04\x05\x06\x07\x08"


def reset():
    _mark("reset")
    raise SystemExit
