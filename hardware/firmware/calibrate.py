"""Calibrating the load cells from the Pico's REPL (hardware/README.md, "Calibration").

    >>> import calibrate
    >>> calibrate.tare()                 # with the board empty
    >>> calibrate.span("point:7", 100)   # with a 100 g reference mass on point 7; repeat per location
    >>> calibrate.save()

Stop main.py first (Ctrl-C in the REPL before it starts, or rename it while calibrating). A location
whose ADC gives no reading for READING_MS is named and left as it was, never waited on for ever.
"""
import time

import machine

import board_config as cfg
from tavli_mcu.bus import open_bus
from tavli_mcu.loadcells import CONVERSION_MS, Nau7802Bank
from tavli_mcu.scanloop import Clock
from tavli_mcu.weighing import Calibration

READING_MS = 2000   # a channel without a fresh conversion this long is given up

_clock = Clock(time.ticks_ms, time.ticks_diff)
_bus = open_bus(machine, cfg.I2C_ID, cfg.I2C_SDA_PIN, cfg.I2C_SCL_PIN, cfg.I2C_HZ, cfg.MUX_ADDRESSES, time.sleep_us)
_bus.start()
_bank = Nau7802Bank(_bus, cfg.CHANNELS, _clock, time.sleep_ms)
_bank.start_all()
calibration = Calibration.uncalibrated(cfg.CHANNELS)


def _average(channel, samples=40):
    """The mean of `samples` conversions, or None (said in a line) if the ADC gives none for READING_MS."""
    total = 0
    taken = 0
    waiting_since = _clock()
    while taken < samples:
        raw = _bank.read_raw(channel)
        if raw is not None:
            total += raw
            taken += 1
            waiting_since = _clock()
        elif _clock() - waiting_since > READING_MS:
            print("calibrate: %s (channel %d) gave no reading for %d ms: its ADC does not answer or convert; "
                  "left as it was" % (cfg.LOCATIONS[channel], channel, READING_MS))
            return None
        time.sleep_ms(int(CONVERSION_MS + 1))   # the next conversion
    return total / samples


def tare():
    for channel in range(cfg.CHANNELS):
        raw = _average(channel)
        if raw is not None:
            calibration.tare(channel, raw)


def span(location, grams):
    channel = cfg.LOCATIONS.index(location)
    raw = _average(channel)
    if raw is not None:
        calibration.span(channel, raw, grams)


def save():
    with open("calibration.json", "w") as handle:
        handle.write(calibration.dumps())
