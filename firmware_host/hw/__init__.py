"""Hardware drivers on the Pi's GPIO: the dice button, the dice source, the buzzer, the pin map.

Drivers only post events (see `events`); they never own game state. Time and dice are injected,
so tests and replays run them in virtual time with gpiozero's mock pins and scripted dice.
"""
from firmware_host.hw.boardfile import BoardFileError
from firmware_host.hw.button import DiceButton
from firmware_host.hw.buzzer import Beep, Buzzer
from firmware_host.hw.dice import DiceExhausted, DiceSource, ScriptedDice, SecretsDice
from firmware_host.hw.events import ButtonEvent, DiceButtonFreed, DiceButtonStuck, DiceHeld, DicePressed
from firmware_host.hw.gpio import NotARaspberryPi, open_pin_factory
from firmware_host.hw.pinmap import ButtonConfig, BuzzerConfig, LedDataLine, PinMap, load_pin_map

__all__ = [
    "Beep",
    "BoardFileError",
    "ButtonConfig",
    "ButtonEvent",
    "Buzzer",
    "BuzzerConfig",
    "DiceButton",
    "DiceButtonFreed",
    "DiceButtonStuck",
    "DiceExhausted",
    "DiceHeld",
    "DicePressed",
    "DiceSource",
    "LedDataLine",
    "NotARaspberryPi",
    "PinMap",
    "ScriptedDice",
    "SecretsDice",
    "load_pin_map",
    "open_pin_factory",
]
