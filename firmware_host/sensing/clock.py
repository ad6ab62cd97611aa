"""Injected time: logic reads `clock.monotonic()` and tests advance a `ManualClock` by hand."""
from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; never goes backwards."""


class MonotonicClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()


class ManualClock:
    """Virtual time for tests and benchmarks: it moves only when told to."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError(f"time cannot go backwards (advance by {seconds})")
        self.now += seconds
        return self.now
