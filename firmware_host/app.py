"""The one event loop: drivers post events to one queue; the loop hands them to the controller one
at a time and pushes out what the controller decided (architecture principle 2).

    events = queue.Queue()
    hardware = Hardware.open(config, post=events.put)        # drivers post from their threads
    loop = EventLoop.from_config(config, journal, hardware, events=events)
    hardware.start()
    loop.run()            # until loop.stop(), from any thread (a signal handler, a test)

Each turn of the loop: take every event queued by now (a board reading already superseded by a
newer change is dropped unjudged), hand each to the controller, poll the button and the
controller's timers, and render the controller's scene to the strip whenever the scene changes or a
blinking element is due for a new frame (an unchanged frame is not sent again). It waits on the
queue until the earliest of the next frame, the button's deadline and the controller's deadline.

Time comes from the injected clock. Tests drive the loop without threads: `post` events, then
`turn()` at the clock time they choose; `run` is only for a real clock.
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Callable, Iterable

from firmware_host.controller import Controller, Timings
from firmware_host.hw.buzzer import Beep, Buzzer
from firmware_host.hw.dice import DiceSource, SecretsDice
from firmware_host.leds.render import Frame, Renderer
from firmware_host.leds.strips import Strip
from firmware_host.sensing.clock import Clock, MonotonicClock
from firmware_host.sensing.events import BoardChanging, BoardStable

log = logging.getLogger(__name__)

FRAME_INTERVAL_S = 0.04   # 25 frames a second: smooth enough for the slowest blink, cheap on the wire


class _Stop:
    """Posted by `stop()`: the loop ends after the events queued before it."""


class EventLoop:
    def __init__(self, controller: Controller, renderer: Renderer, *, strip: Strip | None = None,
                 clock: Clock | None = None, button=None, events: queue.Queue | None = None,
                 frame_interval_s: float = FRAME_INTERVAL_S,
                 observers: Iterable[Callable[[Controller, object], None]] = ()) -> None:
        """`button`: a `DiceButton` to poll (or None); `observers(controller, event)` are called on
        the loop's thread after each event (the demo's players and tests watch the game with them)."""
        self.controller = controller
        self.renderer = renderer
        self.strip = strip
        self.clock = clock or MonotonicClock()
        self.button = button
        self.events: queue.Queue = events if events is not None else queue.Queue()
        self.frame_interval_s = frame_interval_s
        self.observers = list(observers)
        self.frame: Frame | None = None          # the last frame sent to the strip
        self.frames_shown = 0
        self._scene = None
        self._next_frame_at = float("-inf")
        self._stopped = threading.Event()

    @classmethod
    def from_config(cls, config, journal, hardware, *, events: queue.Queue, dice: DiceSource | None = None,
                    clock: Clock | None = None, timings: Timings = Timings(), buzzer: Buzzer | None = None,
                    observers: Iterable[Callable[[Controller, object], None]] = ()) -> EventLoop:
        """The loop of the service: `config` (a `Config`), an open `Journal`, `hardware` opened with
        `post=events.put` (a `service.hardware.Hardware`); fair dice unless `dice` is given."""
        beep: Callable[[Beep], None] = buzzer.beep if buzzer is not None else (lambda meaning: None)
        controller = Controller(journal, dice or SecretsDice(), config.match_rules, rules_for=config.rules_for,
                                timings=timings, beep=beep)
        return cls(controller, Renderer.from_config(config.leds), strip=hardware.strip, clock=clock,
                   button=hardware.button, events=events, observers=observers)

    # -- any thread -------------------------------------------------------------------------------

    def post(self, event: object) -> None:
        self.events.put(event)

    def stop(self) -> None:
        """End `run` after the events already queued."""
        self.events.put(_Stop())

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # -- the loop's thread ---------------------------------------------------------------------------

    def run(self) -> None:
        """Turn until stopped; the waits are real, so the clock must be a real one."""
        self._show()
        while not self.stopped:
            self.turn(timeout=self._wait_s())

    def turn(self, timeout: float = 0.0) -> None:
        """One turn: wait up to `timeout` seconds for an event (0: not at all), handle everything
        queued, run the timers, show the scene."""
        self._handle_all(self._take(timeout))
        if self.button is not None:
            self.button.poll()
            self._handle_all(self._take(0.0))   # what the poll posted: a hold, a press at its release
        self._run_timers()
        self._show()

    def _handle_all(self, batch: list[object]) -> None:
        for index, event in enumerate(batch):
            if isinstance(event, _Stop):
                self._stopped.set()
                return
            if isinstance(event, (BoardChanging, BoardStable)) and \
                    any(isinstance(later, BoardChanging) for later in batch[index + 1:]):
                continue   # the board has moved on since: judging this reading would only delay the next
            self._handle(event)

    def _take(self, timeout: float) -> list[object]:
        batch = []
        try:
            batch.append(self.events.get(timeout=timeout) if timeout else self.events.get_nowait())
            while True:
                batch.append(self.events.get_nowait())
        except queue.Empty:
            pass
        return batch

    def _handle(self, event: object) -> None:
        try:
            self.controller.handle(event, self.clock.monotonic())
        except Exception:
            # A bug or a journal that cannot be written must not end the loop: the event is lost,
            # the game is kept as it was (a failed record changes nothing), the log says why.
            log.exception("controller: handling %r failed", event)
        for observer in self.observers:
            observer(self.controller, event)

    def _run_timers(self) -> None:
        deadline = self.controller.next_deadline()
        now = self.clock.monotonic()
        if deadline is not None and now >= deadline:
            try:
                self.controller.tick(now)
            except Exception:
                log.exception("controller: a timer failed")
            for observer in self.observers:
                observer(self.controller, None)

    def _show(self) -> None:
        scene, now = self.controller.scene, self.clock.monotonic()
        if scene == self._scene and now < self._next_frame_at:
            return
        self._scene, self._next_frame_at = scene, now + self.frame_interval_s
        frame = self.renderer.render(scene, now)
        if frame != self.frame and self.strip is not None:
            self.strip.show(frame)
            self.frames_shown += 1
        self.frame = frame

    def _wait_s(self) -> float:
        now = self.clock.monotonic()
        due = [self._next_frame_at, self.controller.next_deadline()]
        if self.button is not None:
            due.append(self.button.next_deadline())
        soonest = min(t for t in due if t is not None)
        # Never a zero timeout (that would mean "do not wait"): a due time already passed turns at once.
        return max(soonest - now, 1e-4)
