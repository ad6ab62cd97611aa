"""Events the hardware drivers post to the controller's queue.

Drivers never own game state: they only post these. Each carries `at`, the time on the injected
clock at which the thing happened (after debouncing), so a recorded trace replays the same.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DicePressed:
    """A short press of the dice button, posted at its release (`at` is the release time)."""

    at: float


@dataclass(frozen=True)
class DiceHeld:
    """The dice button has been held for the hold time (`at`); no press follows on release."""

    at: float


@dataclass(frozen=True)
class DiceButtonStuck:
    """The dice button has been down for the stuck time: a fault, reported once."""

    at: float


@dataclass(frozen=True)
class DiceButtonFreed:
    """A stuck dice button has been released (`at`): the fault is over."""

    at: float


ButtonEvent = DicePressed | DiceHeld | DiceButtonStuck | DiceButtonFreed
