"""Dice sources: the electronic dice behind one small interface.

The service rolls with `SecretsDice` (the operating system's CSPRNG, so no seed or timing can be
guessed by a player); tests, scenarios and replays inject `ScriptedDice` with the exact values.
"""
from __future__ import annotations

import random
import secrets
from typing import Iterable, Protocol


class DiceSource(Protocol):
    """Where die values come from. `roll()` is two `roll_die()` calls, first die first."""

    def roll_die(self) -> int:
        """One die, 1..6."""
        ...

    def roll(self) -> tuple[int, int]:
        return self.roll_die(), self.roll_die()

    def ready(self) -> bool:
        """Whether a roll can be made now: a remote match's dice wait for the other board's secret."""
        return True


class SecretsDice(DiceSource):
    """Fair dice from `secrets`, the CSPRNG of the operating system."""

    def roll_die(self) -> int:
        return 1 + secrets.randbelow(6)


class SeededDice(DiceSource):
    """Reproducible dice for the demo, the rigs and the tests (never for play: the service rolls with
    `SecretsDice`)."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)

    def roll_die(self) -> int:
        return self._random.randint(1, 6)


class DiceExhausted(RuntimeError):
    """A scripted dice source was asked for more dice than its script holds."""


class ScriptedDice(DiceSource):
    """Dice that come out of a script in order: `ScriptedDice([6, 5, 3, 3])` rolls (6, 5), (3, 3)."""

    def __init__(self, values: Iterable[int]):
        self._values = tuple(values)
        for position, value in enumerate(self._values):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                raise ValueError(f"scripted die #{position + 1} is {value!r}; allowed: integers 1..6")
        self._next = 0

    def roll_die(self) -> int:
        if self._next >= len(self._values):
            raise DiceExhausted(
                f"the dice script ran out: all {len(self._values)} scripted dice have been rolled"
            )
        value = self._values[self._next]
        self._next += 1
        return value
