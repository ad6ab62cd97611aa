"""The dice button: a gpiozero `Button`, debounced here against an injected clock.

gpiozero reports raw edges (from its edge thread on a Pi, synchronously on mock pins); this module
time-stamps them with the injected clock and turns them into events:

- a press shorter than the hold time posts `DicePressed` at its release;
- a press reaching the hold time posts `DiceHeld` at once, and nothing at its release;
- a press reaching the stuck time posts `DiceButtonStuck` once, and `DiceButtonFreed` at its release.

A level counts only once it has lasted `debounce_s` without an edge, so a chattering contact
gives one press and a glitch shorter than that gives none. Holds and stuck buttons are found by
`poll()`, which the event loop calls regularly and at the latest at `next_deadline()`. Event times
come from the edges, not from when `poll()` ran, so they do not depend on the polling rate.

gpiozero's own `bounce_time` and `hold_time` are not used: its mock pins ignore the first and the
second runs on a real-time thread, and both must follow the injected clock for replays.
"""
from __future__ import annotations

import enum
import threading
import time
from typing import Callable

from gpiozero import Button

from firmware_host.hw.events import ButtonEvent, DiceButtonFreed, DiceButtonStuck, DiceHeld, DicePressed
from firmware_host.hw.pinmap import ButtonConfig


class _Phase(enum.Enum):
    UP = "up"
    DOWN = "down"  # pressed, shorter than the hold time so far
    HELD = "held"
    STUCK = "stuck"


class DiceButton:
    """Posts `DicePressed`, `DiceHeld`, `DiceButtonStuck` and `DiceButtonFreed` through `post`.

    `post` is called with the button's lock held, from gpiozero's edge thread or from `poll()`;
    it must only hand the event on (e.g. `queue.Queue.put`), never call back into the button.
    `pin_factory` is a gpiozero pin factory; None uses gpiozero's `Device.pin_factory`.
    A button already down when this is built counts as held: releasing it does not roll.
    """

    def __init__(
        self,
        config: ButtonConfig,
        post: Callable[[ButtonEvent], None],
        clock: Callable[[], float] = time.monotonic,
        *,
        pin_factory=None,
    ):
        self._config = config
        self._post = post
        self._clock = clock
        self._lock = threading.Lock()
        self._device = Button(config.pin, pull_up=config.pull_up, pin_factory=pin_factory)
        now = clock()
        down = self._device.is_pressed
        self._raw = self._stable = down
        self._raw_since = self._pressed_at = now
        self._phase = _Phase.HELD if down else _Phase.UP
        self._device.when_pressed = self._on_pressed
        self._device.when_released = self._on_released

    def poll(self) -> None:
        """Settle pending edges and report holds and stuck presses due by now."""
        with self._lock:
            self._advance(self._clock())

    def next_deadline(self) -> float | None:
        """The clock time at which `poll()` may next have something to do; None when idle."""
        with self._lock:
            if self._raw != self._stable:
                return self._raw_since + self._config.debounce_s
            if self._phase is _Phase.DOWN:
                return self._pressed_at + self._config.hold_s
            if self._phase is _Phase.HELD:
                return self._pressed_at + self._config.stuck_s
            return None

    def close(self) -> None:
        """Release the GPIO pin."""
        self._device.close()

    def _on_pressed(self) -> None:
        self._on_edge(True)

    def _on_released(self) -> None:
        self._on_edge(False)

    def _on_edge(self, down: bool) -> None:
        with self._lock:
            now = self._clock()
            self._advance(now)
            if down != self._raw:
                self._raw = down
                self._raw_since = now

    def _advance(self, now: float) -> None:
        pending = self._raw != self._stable
        settled = pending and now - self._raw_since >= self._config.debounce_s
        if self._stable:
            # While a change is pending the press may have ended at its edge: look no further.
            self._fire_timeouts(self._raw_since if pending else now)
        if settled:
            self._stable = self._raw
            if self._stable:
                self._pressed_at = self._raw_since
                self._phase = _Phase.DOWN
            else:
                self._released(self._raw_since)

    def _fire_timeouts(self, horizon: float) -> None:
        held_at = self._pressed_at + self._config.hold_s
        stuck_at = self._pressed_at + self._config.stuck_s
        if self._phase is _Phase.DOWN and horizon >= held_at:
            self._phase = _Phase.HELD
            self._post(DiceHeld(held_at))
        if self._phase is _Phase.HELD and horizon >= stuck_at:
            self._phase = _Phase.STUCK
            self._post(DiceButtonStuck(stuck_at))

    def _released(self, at: float) -> None:
        if self._phase is _Phase.DOWN:
            self._post(DicePressed(at))
        elif self._phase is _Phase.STUCK:
            self._post(DiceButtonFreed(at))
        self._phase = _Phase.UP
