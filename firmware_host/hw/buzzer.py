"""The optional buzzer: a short sound so a player who is not looking at the lights still notices.

An active buzzer on a GPIO pin, driven by gpiozero's `Buzzer`, which plays a beep pattern on its own
background thread so `beep()` returns at once. With no pin configured every beep is a no-op.
"""
from __future__ import annotations

import enum

from gpiozero import Buzzer as GpioBuzzer

from firmware_host.hw.pinmap import BuzzerConfig


class Beep(enum.Enum):
    """What the sound means; the value is how many short beeps it is."""

    ROLL_REFUSED = 1
    ILLEGAL_BOARD = 2


class Buzzer:
    """Beeps on the configured pin; `pin_factory` None uses gpiozero's `Device.pin_factory`."""

    def __init__(self, config: BuzzerConfig, *, pin_factory=None):
        self._beep_s = config.beep_s
        self._device = (
            None
            if config.pin is None
            else GpioBuzzer(config.pin, active_high=config.active_high, pin_factory=pin_factory)
        )

    def beep(self, meaning: Beep) -> None:
        """Start the beeps for `meaning` (interrupting any still playing) and return at once."""
        if self._device is not None:
            self._device.beep(on_time=self._beep_s, off_time=self._beep_s, n=meaning.value, background=True)

    def close(self) -> None:
        """Silence the buzzer and release its pin."""
        if self._device is not None:
            self._device.close()
