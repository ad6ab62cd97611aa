"""A fake `machine` module for running the firmware's main.py unmodified on MicroPython's unix port.

The board comes from fake_board.json in the working folder: "raw" is every channel's NAU7802
conversion (null: the channel does not answer on the bus), "pins_low" the GPIOs held to GND. The
NAU7802s sit behind TCA9548As at 0x70.. as on the reference board. A started watchdog and a reset
leave the files watchdog_started and reset behind; reset() then ends the program.
"""
import json

try:
    with open("fake_board.json") as _file:
        _BOARD = json.load(_file)
except OSError:
    _BOARD = {}
RAW = _BOARD.get("raw", [])
PINS_LOW = _BOARD.get("pins_low", [])

NAU7802 = 0x2A
PU_CTRL, CTRL2, ADCO_B2, REVISION = 0x00, 0x02, 0x12, 0x1F
PUD, PUR, CS, CR, CALS = 0x02, 0x08, 0x10, 0x20, 0x04


def _mark(name):
    with open(name, "w") as marker:
        marker.write("1")


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None):
        self.number = number

    def value(self):
        return 0 if self.number in PINS_LOW else 1


class I2C:
    def __init__(self, ident, sda=None, scl=None, freq=None):
        self.ports = {}
        self.registers = {}

    def writeto(self, address, data):
        self.ports[address] = data[0]

    def _channel(self):
        selected = [(address - 0x70) * 8 + port for address, bits in self.ports.items()
                    for port in range(8) if bits >> port & 1]
        if len(selected) != 1 or selected[0] >= len(RAW) or RAW[selected[0]] is None:
            raise OSError(19)
        return selected[0]

    def writeto_mem(self, address, register, data):
        channel = self._channel()
        if address != NAU7802:
            raise OSError(19)
        value = data[0]
        if register == PU_CTRL and value & PUD:
            value |= PUR
        if register == CTRL2:
            value &= ~CALS
        self.registers[(channel, register)] = value

    def readfrom_mem(self, address, register, count):
        channel = self._channel()
        if address != NAU7802:
            raise OSError(19)
        if register == ADCO_B2:
            return bytes(((RAW[channel] >> 16) & 0xFF, (RAW[channel] >> 8) & 0xFF, RAW[channel] & 0xFF))
        if register == REVISION:
            return b"\x0f"
        value = self.registers.get((channel, register), 0)
        if register == PU_CTRL and value & CS:
            value |= CR
        return bytes((value,))


class UART:
    def __init__(self, *args, **kwargs):
        raise OSError("the fake board is wired over USB")


class WDT:
    def __init__(self, timeout=0):
        _mark("watchdog_started")

    def feed(self):
        pass


def unique_id():
    return b"\x01\x02\x03\x04\x05\x06\x07\x08"


def reset():
    _mark("reset")
    raise SystemExit
