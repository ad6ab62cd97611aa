"""Calibrating the load cells from the Pico's REPL (hardware/README.md, "Calibration").

    >>> import calibrate
    >>> calibrate.tare()                 # with the board empty
    >>> calibrate.span("point:7", 100)   # with a 100 g reference mass on point 7; repeat per location
    >>> calibrate.save()

Stop main.py first (Ctrl-C in the REPL before it starts, or rename it while calibrating).
"""
import time

import machine

import board_config as cfg
from tavli_mcu.loadcells import Nau7802Bank
from tavli_mcu.weighing import Calibration

_i2c = machine.I2C(cfg.I2C_ID, sda=machine.Pin(cfg.I2C_SDA_PIN), scl=machine.Pin(cfg.I2C_SCL_PIN), freq=cfg.I2C_HZ)
_bank = Nau7802Bank(_i2c, cfg.MUX_ADDRESSES, cfg.CHANNELS, time.sleep_ms)
_bank.start_all()
calibration = Calibration.uncalibrated(cfg.CHANNELS)


def _average(channel, samples=40):
    total = 0
    taken = 0
    while taken < samples:
        raw = _bank.read_raw(channel)
        if raw is None:
            time.sleep_ms(5)
            continue
        total += raw
        taken += 1
    return total / samples


def tare():
    for channel in range(cfg.CHANNELS):
        calibration.tare(channel, _average(channel))


def span(location, grams):
    channel = cfg.LOCATIONS.index(location)
    calibration.span(channel, _average(channel), grams)


def save():
    with open("calibration.json", "w") as handle:
        handle.write(calibration.dumps())
