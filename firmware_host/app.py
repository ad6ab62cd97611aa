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
Once no event has come for `QUIET_S`, the loop makes its idle call (`on_idle`), once for each such
quiet stretch: the service gives the memory of a busy stretch back to the system there
(service/allocator.py), never while a game's events are being handled.

Readings the controller has not judged before are judged on a thread of the loop's own
(`JudgeWorker`), whose verdicts come back through the same queue, so a slow search (a deep gulbara
cascade) never stops the lights, the link and the button.

Time comes from the injected clock. Tests drive the loop without threads: `post` events, then
`turn()` at the clock time they choose (with `judge_in_background=False`); `run` is only for a
real clock.
"""
from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Iterable

from firmware_host.controller import Controller, Timings
from firmware_host.controller.controller import Judged
from firmware_host.controller.view import GameView
from firmware_host.hw.buzzer import Beep, Buzzer
from firmware_host.hw.dice import DiceSource, SecretsDice
from firmware_host.journal import ResumeState
from firmware_host.leds.render import Frame, Renderer
from firmware_host.leds.layout import LedConfig
from firmware_host.leds.strips import Strip
from firmware_host.referee import Reading, Referee
from firmware_host.sensing.clock import Clock, MonotonicClock
from firmware_host.sensing.events import BoardChanging, BoardStable

log = logging.getLogger(__name__)

FRAME_INTERVAL_S = 0.04   # 25 frames a second: smooth enough for the slowest blink, cheap on the wire
QUIET_S = 2.0             # no event for this long: the loop is idle (players between moves, a board at rest)


class _Stop:
    """Posted by `stop()`: the loop ends after the events queued before it."""


@dataclass(frozen=True)
class OnLoop:
    """A call to make on the loop's thread, in turn with the events (posted by `call_soon`): what
    another thread (the web companion's commands) must do to the controller, done where it is owned."""

    call: Callable[[], None]


class JudgeWorker:
    """Judges readings on a thread of its own and posts each verdict as a `Judged` event.

    Only the newest reading waiting is judged: the controller wants the verdict on the board as it
    is, and one already superseded would only delay it."""

    def __init__(self, post: Callable[[object], None]) -> None:
        self._post = post
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)
        self._thread.start()

    def submit(self, referee: Referee, reading: Reading) -> None:
        self._jobs.put((referee, reading))

    def close(self, timeout_s: float = 2.0) -> None:
        """Stop after the reading being judged (a search cannot be interrupted: it is left behind
        after `timeout_s`, on a daemon thread)."""
        self._jobs.put(None)
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            while job is not None:
                try:
                    job = self._jobs.get_nowait()   # a newer reading: the older one is of no use now
                except queue.Empty:
                    break
            if job is None:
                return
            referee, reading = job
            try:
                verdict = referee.judge(reading)
            except Exception:
                # The controller keeps calling the board "being judged" (and refusing presses) until
                # the board changes: better than a verdict nobody can trust.
                log.exception("referee: judging %s failed", reading.to_json())
                continue
            self._post(Judged(referee, reading, verdict))


class EventLoop:
    def __init__(self, controller: Controller, renderer: Renderer, *, strip: Strip | None = None,
                 clock: Clock | None = None, button=None, events: queue.Queue | None = None,
                 frame_interval_s: float = FRAME_INTERVAL_S, judge_worker: JudgeWorker | None = None,
                 observers: Iterable[Callable[[GameView, object], None]] = (),
                 on_idle: Callable[[], None] | None = None) -> None:
        """`button`: a `DiceButton` to poll (or None); `judge_worker`: the thread the controller hands
        readings to (closed when `run` ends); `observers(view, event)` are called on the loop's thread
        after each event with the controller's view (the companion, the demo's players and tests watch
        the game with them); `on_idle()` once in each stretch of `QUIET_S` without an event."""
        self.controller = controller
        self.renderer = renderer
        self.strip = strip
        self.clock = clock or MonotonicClock()
        self.button = button
        self.events: queue.Queue = events if events is not None else queue.Queue()
        self.frame_interval_s = frame_interval_s
        self.judge_worker = judge_worker
        self.observers = list(observers)
        self.frame: Frame | None = None          # the last frame sent to the strip
        self.frames_shown = 0
        self._scene = None
        self._next_frame_at = float("-inf")
        self._stopped = threading.Event()
        self.on_idle = on_idle
        self._last_event_at = self.clock.monotonic()
        self._idle_called = False          # in this quiet stretch

    @classmethod
    def from_config(cls, config, journal, hardware, *, events: queue.Queue, dice: DiceSource | None = None,
                    clock: Clock | None = None, timings: Timings = Timings(), buzzer: Buzzer | None = None,
                    judge_in_background: bool = True,
                    observers: Iterable[Callable[[GameView, object], None]] = (),
                    resume: ResumeState | None = None, on_idle: Callable[[], None] | None = None) -> EventLoop:
        """The loop of the service: `config` (a `Config`), an open `Journal`, `hardware` opened with
        `post=events.put` (a `service.hardware.Hardware`); fair dice unless `dice` is given;
        readings judged on a `JudgeWorker` unless `judge_in_background` is False; `resume`: the
        journal's unfinished match (`journal.resume()`), continued instead of a new one. The beeps go
        to `buzzer`, or else to the hardware's buzzer if it has one; `on_idle` as for the loop."""
        buzzer = buzzer if buzzer is not None else getattr(hardware, "buzzer", None)
        beep: Callable[[Beep], None] = buzzer.beep if buzzer is not None else (lambda meaning: None)
        worker = JudgeWorker(events.put) if judge_in_background else None
        controller = Controller(journal, dice or SecretsDice(), config.match_rules, rules_for=config.rules_for,
                                timings=timings, beep=beep, judge_elsewhere=worker.submit if worker else None,
                                resume=resume, sensing=config.sensing.sensors.mcu.colour_by, bots=config.bots,
                                hints=config.hints, remote_seats=config.club.remote_seats)
        return cls(controller, Renderer.from_config(config.leds), strip=hardware.strip, clock=clock,
                   button=hardware.button, events=events, judge_worker=worker, observers=observers, on_idle=on_idle)

    # -- any thread -------------------------------------------------------------------------------

    def post(self, event: object) -> None:
        self.events.put(event)

    def call_soon(self, call: Callable[[], None]) -> None:
        """Make `call()` on the loop's thread after the events already queued; the observers are told
        after it, as after an event."""
        self.events.put(OnLoop(call))

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
        try:
            while not self.stopped:
                self.turn(timeout=self._wait_s())
        finally:
            if self.judge_worker is not None:
                self.judge_worker.close()

    def turn(self, timeout: float = 0.0) -> None:
        """One turn: wait up to `timeout` seconds for an event (0: not at all), handle everything
        queued, run the timers, show the scene; the idle call once the loop has been quiet `QUIET_S`."""
        batch = self._take(timeout)
        self._handle_all(batch)
        if self.button is not None:
            self.button.poll()
            pressed = self._take(0.0)   # what the poll posted: a hold, a press at its release
            self._handle_all(pressed)
            batch += pressed
        self._run_timers()
        self._show()
        self._idle_if_quiet(bool(batch))

    def _idle_if_quiet(self, had_events: bool) -> None:
        now = self.clock.monotonic()
        if had_events:
            self._last_event_at, self._idle_called = now, False
        elif self.on_idle is not None and not self._idle_called and now - self._last_event_at >= QUIET_S:
            self._idle_called = True
            try:
                self.on_idle()
            except Exception:
                log.exception("the loop's idle call failed")

    def _handle_all(self, batch: list[object]) -> None:
        last_change = max((index for index, event in enumerate(batch) if isinstance(event, BoardChanging)), default=-1)
        for index, event in enumerate(batch):
            if isinstance(event, _Stop):
                self._stopped.set()
                return
            if isinstance(event, (BoardChanging, BoardStable)) and index < last_change:
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
            if isinstance(event, OnLoop):
                event.call()
            else:
                self.controller.handle(event, self.clock.monotonic())
        except Exception:
            # A bug must not end the loop: the event is lost, the log says why. (A journal that
            # cannot be written is the controller's storage fault: it holds the event and retries.)
            log.exception("controller: handling %r failed", event)
        self._tell(event)

    def _tell(self, event: object) -> None:
        """The observers, with the view after `event` (None: a timer), built once for all of them."""
        if self.observers:
            view = self.controller.view()
            for observer in self.observers:
                observer(view, event)

    def use_leds(self, leds: LedConfig) -> None:
        """Render with `leds` (brightness, palette changed while the service runs) from the next frame on."""
        self.renderer = Renderer.from_config(leds)
        self._scene = None

    def _run_timers(self) -> None:
        deadline = self.controller.next_deadline()
        now = self.clock.monotonic()
        if deadline is not None and now >= deadline:
            try:
                self.controller.tick(now)
            except Exception:
                log.exception("controller: a timer failed")
            self._tell(None)

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
