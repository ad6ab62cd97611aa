"""`tavli-board selftest`: checks a board end to end with a person watching, and says pass or fail.

Steps, in order:
1. leds: every LED lights in turn; the person says whether each one did.
2. link: the sensor MCU answers (its hello).
3. sensors: the MCU's own self-test of every channel (ADC answers, converts, reads within range).
4. counts: each location shows its checker count live on its LEDs (white checkers amber, black
   blue, one LED per checker); the person moves checkers and says whether the lights follow.
5. press, 6. hold: the dice button gives a short press, then a hold.
7. link errors: the link's error counters (frames dropped or lost, the MCU's receive errors,
   reconnects), reported for the engineer.

Whatever needs a person goes through an `Operator`: `ConsoleOperator` asks on the terminal;
`SimulatedOperator` does the person's part on the simulated board (presses the mock button, moves
a checker) and checks the captured LED frames instead of eyes, so the same steps run end to end in
tests and with `hardware = "simulated"`. Every driver event is handled on the calling thread;
a question is asked on a helper thread meanwhile, so the lights stay live while the person answers.
"""
from __future__ import annotations

import enum
import queue
import threading
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from firmware_host.hw.events import DiceHeld, DicePressed
from firmware_host.leds.layout import LedLayout
from firmware_host.leds.render import OFF, RGB, Frame, frame_current_ma, idle_current_ma
from firmware_host.leds.strips import CapturingStrip
from firmware_host.sensing.events import (BoardChanging, BoardStable, CommandFailed, LinkLost, LinkUp,
                                          SelfTestResult)
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.hardware import Hardware

WALK_COLOUR: RGB = (255, 255, 255)
WHITE_CHECKER: RGB = (255, 160, 40)   # amber
BLACK_CHECKER: RGB = (0, 90, 255)     # blue


class Outcome(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INFO = "info"     # reported, not judged
    SKIP = "skip"     # could not run because an earlier step failed


@dataclass(frozen=True)
class StepResult:
    step: str
    outcome: Outcome
    detail: str


@dataclass(frozen=True)
class Timings:
    led_dwell_s: float = 0.05        # each LED's turn in the walk
    link_timeout_s: float = 10.0     # for the MCU's hello and its self-test report
    person_timeout_s: float = 120.0  # for a press, a hold, an answer


class Operator(Protocol):
    def tell(self, step: str, message: str) -> None:
        """Ask the person to do something (press the button ...)."""

    def confirm(self, step: str, question: str) -> bool | None:
        """Ask a yes/no question about what the person saw; None: no answer."""


class ConsoleOperator:
    """A person at the terminal."""

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        self._read = read
        self._write = write

    def tell(self, step: str, message: str) -> None:
        self._write(f"[{step}] {message}")

    def confirm(self, step: str, question: str) -> bool | None:
        while True:
            try:
                answer = self._read(f"[{step}] {question} [y/n] ").strip().lower()
            except EOFError:
                return None
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            self._write("please answer y or n")


def location_counts(reading: BoardReading) -> dict[str, tuple[int, int]]:
    """(white, black) per LED location name: points "1".."24"; each colour's bar and tray half shows that colour."""
    counts = {str(point): reading.point(point) for point in range(1, 25)}
    for place in ("bar", "off"):
        counts[f"{place}:white"] = (getattr(reading.white, place), 0)
        counts[f"{place}:black"] = (0, getattr(reading.black, place))
    return counts


def _scaled(colour: RGB, factor: float) -> RGB:
    return tuple(int(channel * factor + 0.5) for channel in colour)


def capped_frame(pixels: list[RGB], brightness: float, max_current_ma: float) -> Frame:
    """Pixels at the configured brightness, dimmed further if the frame would draw too much current."""
    frame = [_scaled(pixel, brightness) for pixel in pixels]
    current, idle = frame_current_ma(frame), idle_current_ma(len(frame))
    if current > max_current_ma:
        # int() rounds the scaled channels down, so the capped frame stays under the budget.
        frame = [tuple(int(channel * (max_current_ma - idle) / (current - idle)) for channel in pixel)
                 for pixel in frame]
    return tuple(frame)


def counts_frame(layout: LedLayout, reading: BoardReading, brightness: float, max_current_ma: float) -> Frame:
    """Each location lit with one amber LED per white checker, then one blue per black, as far as it has LEDs."""
    pixels = [OFF] * layout.count
    for location, (white, black) in location_counts(reading).items():
        for index, colour in zip(layout.locations[location], [WHITE_CHECKER] * white + [BLACK_CHECKER] * black):
            pixels[index] = colour
    return capped_frame(pixels, brightness, max_current_ma)


def shown_counts(layout: LedLayout, frame: Frame) -> dict[str, tuple[int, int]]:
    """What `counts_frame` shows, read back: (amber LEDs, blue LEDs) per location."""
    def hue(pixel: RGB) -> str | None:
        if pixel == OFF:
            return None
        return "white" if pixel[0] > pixel[2] else "black"

    shown = {}
    for location, indices in layout.locations.items():
        hues = [hue(frame[index]) for index in indices]
        shown[location] = (hues.count("white"), hues.count("black"))
    return shown


class SelfTest:
    """One run of the self-test over opened hardware whose drivers post to `events`."""

    def __init__(self, hardware: Hardware, events: queue.SimpleQueue, operator: Operator,
                 timings: Timings = Timings()):
        self.hardware = hardware
        self.events = events
        self.operator = operator
        self.timings = timings
        self.results: list[StepResult] = []
        self._seen: list[object] = []          # every event handled, in order
        self._reading: BoardReading | None = None
        self._showing_counts = False

    def run(self) -> list[StepResult]:
        self.hardware.start()
        return self.steps()

    def steps(self) -> list[StepResult]:
        """The self-test's steps on started hardware (bring-up runs them after its own)."""
        self._leds()
        link_up = self._link()
        self._sensors(link_up)
        self._counts(link_up)
        pressed = self._button("press", DicePressed, "Press the dice button briefly.")
        hold_s = self.hardware.config.pins.button.hold_s
        if pressed:
            self._button("hold", DiceHeld, f"Press and hold the dice button for {hold_s:g} s.")
        else:
            self._add("hold", Outcome.SKIP, "the button gave no press")
        self._link_errors()
        return self.results

    # -- steps ------------------------------------------------------------------------------------

    def _leds(self) -> None:
        strip, config = self.hardware.strip, self.hardware.config.leds
        if strip is None:
            self._add("leds", Outcome.FAIL, f"no LED strip: {self.hardware.errors.get('leds')}")
            return
        count = config.layout.count
        self.operator.tell("leds", f"Watch the LEDs ({strip.description}): each of the {count} lights alone, "
                                   "one after another.")
        for index in range(count):
            pixels = [OFF] * count
            pixels[index] = WALK_COLOUR
            strip.show(capped_frame(pixels, config.brightness, config.max_current_ma))
            self._pump(self.timings.led_dwell_s)
        strip.show((OFF,) * count)
        answer = self._ask("leds", f"Did all {count} LEDs light, one at a time, in order along the strip?")
        self._judge("leds", answer, f"{count} LEDs lit in turn; {strip.description}")

    def _link(self) -> bool:
        event = self._wait_for((LinkUp,), self.timings.link_timeout_s, since=0)  # it may come during the walk
        if isinstance(event, LinkUp):
            hello = event.hello
            self._add("link", Outcome.PASS, f"the MCU answered: firmware {hello.firmware}, {hello.channels} channels, "
                                            f"board {hello.board_id_hex}")
            return True
        lost = [item for item in self._seen if isinstance(item, LinkLost)]
        reason = lost[-1].reason if lost else "no answer"
        self._add("link", Outcome.FAIL, f"no hello from the sensor MCU within {self.timings.link_timeout_s:g} s "
                                        f"({reason}); check the cable and [serial] port")
        return False

    def _sensors(self, link_up: bool) -> None:
        if not link_up:
            self._add("sensors", Outcome.SKIP, "the link is down")
            return
        self.hardware.sensor.run_self_test()
        event = self._wait_for((SelfTestResult, CommandFailed), self.timings.link_timeout_s)
        if isinstance(event, SelfTestResult):
            if event.passed:
                self._add("sensors", Outcome.PASS, "every channel answered, converted and read within range")
            else:
                failures = ", ".join(f"{location} ({what})" for location, what in event.failures)
                self._add("sensors", Outcome.FAIL, f"failing channels: {failures}")
        else:
            reason = event.reason if isinstance(event, CommandFailed) else "no report"
            self._add("sensors", Outcome.FAIL, f"the MCU's self-test did not run: {reason}")

    def _counts(self, link_up: bool) -> None:
        if not link_up or self.hardware.strip is None:
            self._add("counts", Outcome.SKIP, "the link is down" if not link_up else "no LED strip")
            return
        self.operator.tell("counts", "Each location now shows its checkers: one amber LED per white checker, then "
                                     "one blue per black. Lift and place some checkers and watch.")
        if self._reading is not None:
            self._show_counts(self._reading)
        answer = self._ask("counts", "Did every location you touched show the right count?")
        self._judge("counts", answer, "the lights followed the checkers")
        self.hardware.strip.show((OFF,) * self.hardware.config.leds.layout.count)

    def _button(self, step: str, wanted: type, instruction: str) -> bool:
        if self.hardware.button is None:
            self._add(step, Outcome.FAIL, f"no dice button: {self.hardware.errors.get('button')}")
            return False
        self.operator.tell(step, instruction)
        event = self._wait_for((wanted,), self.timings.person_timeout_s)
        if event is None:
            self._add(step, Outcome.FAIL, f"no {step} of the dice button (BCM {self.hardware.config.pins.button.pin}) "
                                          f"within {self.timings.person_timeout_s:g} s")
            return False
        self._add(step, Outcome.PASS, f"the dice button gave a {step}")
        return True

    def _link_errors(self) -> None:
        session, link = self.hardware.sensor.session, self.hardware.sensor.link
        self._add("link errors", Outcome.INFO,
                  f"frames dropped (corrupt) {session.frames_dropped}, frames lost (sequence gaps) "
                  f"{session.frames_lost}, MCU receive errors {session.mcu_rx_errors}, "
                  f"reconnects {link.reopen_attempts}")

    # -- the event pump ---------------------------------------------------------------------------

    def _handle(self, event: object) -> None:
        self._seen.append(event)
        if isinstance(event, (BoardChanging, BoardStable)):
            self._reading = event.reading
            if self._showing_counts:
                self._show_counts(event.reading)

    def _show_counts(self, reading: BoardReading) -> None:
        config = self.hardware.config.leds
        self.hardware.strip.show(counts_frame(config.layout, reading, config.brightness, config.max_current_ma))

    def _pump(self, seconds: float, until: Callable[[], bool] = lambda: False) -> None:
        """Handle events (and the button's timing) for `seconds`, or until `until()` holds."""
        deadline = time.monotonic() + seconds
        while not until():
            button = self.hardware.button
            if button is not None:
                button.poll()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            try:
                event = self.events.get(timeout=min(remaining, 0.02))
            except queue.Empty:
                continue
            self._handle(event)

    def _wait_for(self, kinds: tuple[type, ...], timeout_s: float, since: int | None = None):
        """The first event of one of `kinds` handled from now on (or from event number `since`),
        or None after `timeout_s`."""
        start = len(self._seen) if since is None else since
        found = lambda: any(isinstance(event, kinds) for event in self._seen[start:])  # noqa: E731
        self._pump(timeout_s, found)
        return next((event for event in self._seen[start:] if isinstance(event, kinds)), None)

    def _ask(self, step: str, question: str) -> bool | None:
        """The operator's answer, asked on a helper thread while events keep being handled here."""
        answer: list[bool | None] = []
        asking = threading.Thread(target=lambda: answer.append(self.operator.confirm(step, question)),
                                  name=f"selftest-{step}", daemon=True)
        self._showing_counts = step == "counts"
        asking.start()
        self._pump(self.timings.person_timeout_s, lambda: not asking.is_alive())
        self._showing_counts = False
        return answer[0] if answer else None

    def _judge(self, step: str, answer: bool | None, passed: str) -> None:
        if answer is None:
            self._add(step, Outcome.FAIL, "no answer")
        else:
            self._add(step, Outcome.PASS if answer else Outcome.FAIL, passed if answer else "the person saw a fault")

    def _add(self, step: str, outcome: Outcome, detail: str) -> None:
        self.results.append(StepResult(step, outcome, detail))


def summary(results: list[StepResult]) -> tuple[str, bool]:
    """The pass/fail table and whether the board passed (no step failed)."""
    passed = not any(result.outcome is Outcome.FAIL for result in results)
    lines = [f"  {result.outcome.upper():<5} {result.step:<12} {result.detail}" for result in results]
    lines.append("SELF-TEST PASSED" if passed else "SELF-TEST FAILED")
    return "\n".join(lines), passed


class SimulatedOperator:
    """Does a person's part on the simulated board, and checks the captured frames in place of eyes."""

    def __init__(self, hardware: Hardware, timeout_s: float = 10.0, write: Callable[[str], None] = lambda line: None):
        if hardware.simulation is None or not isinstance(hardware.strip, CapturingStrip):
            raise ValueError("the simulated operator needs the simulated board (hardware = \"simulated\")")
        self.hardware = hardware
        self.simulation = hardware.simulation
        self.strip: CapturingStrip = hardware.strip
        self.layout = hardware.config.leds.layout
        self.timeout_s = timeout_s
        self._write = write   # where to say what it does, for a person following a simulated run
        self._walk_from = 0   # the first frame of the LED walk (a bring-up shows others before it)

    def tell(self, step: str, message: str) -> None:
        self._write(f"[{step}] {message} (simulated: done by the program)")
        pin = self.hardware.config.pins.button.pin
        if step == "leds":
            self._walk_from = self.strip.shown
        elif step == "press":
            self.simulation.press_button(pin)
            time.sleep(0.1)   # longer than the debounce time, shorter than a hold
            self.simulation.release_button(pin)
        elif step == "hold":
            self.simulation.press_button(pin)
            hold_s = self.hardware.config.pins.button.hold_s
            threading.Timer(hold_s + 0.3, self.simulation.release_button, (pin,)).start()

    def confirm(self, step: str, question: str) -> bool:
        if step == "leds":
            answer = self._walk_was_complete()
        elif step == "counts":
            answer = self._lights_follow_a_lifted_checker()
        else:
            raise ValueError(f"the simulated operator has no answer for step {step!r}")
        self._write(f"[{step}] {question} {'yes' if answer else 'no'} (simulated: read from the captured frames)")
        return answer

    def _walk_was_complete(self) -> bool:
        """Every LED was lit alone, once, in strip order."""
        walk = []
        for frame in self.strip.since(self._walk_from):
            lit = [index for index, pixel in enumerate(frame) if pixel != OFF]
            if len(lit) == 1:
                walk.append(lit[0])
        return walk == list(range(self.layout.count))

    def _lights_follow_a_lifted_checker(self) -> bool:
        board = self.simulation.board
        point = next(point for point in range(24, 0, -1) if board.count(point, "white"))
        before = board.count(point, "white")
        board.lift(point, "white")
        lifted = self._shows(str(point), before - 1)
        board.place(point, "white")
        return lifted and self._shows(str(point), before)

    def _shows(self, location: str, white: int) -> bool:
        """Whether the strip comes to show `white` amber LEDs at `location` (as far as it has LEDs)."""
        wanted = min(white, len(self.layout.locations[location]))
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.strip.frames and shown_counts(self.layout, self.strip.frames[-1])[location][0] == wanted:
                return True
            time.sleep(0.02)
        return False
