"""Running scenarios on the rig: the actions, the expectations, the failure report and JUnit XML."""
from __future__ import annotations

import logging
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, TextIO

from firmware_host.hw.dice import SeededDice
from firmware_host.controller.orientation import laid_out
from firmware_host.hil.player import PlayerStuck, SeededPlayer
from firmware_host.hil.remote import AdapterTransport, RemoteRig, RemoteUnsupported
from firmware_host.controller.view import GameView
from firmware_host.hil.rig import Rig
from firmware_host.hil.scenario import COLOURS, DARK, Action, Scenario, ScenarioError, Step, load_scenario
from firmware_host.hw.dice import DiceExhausted, DiceSource, ScriptedDice
from firmware_host.journal.store import JournalReader
from firmware_host.leds.render import OFF, Renderer
from firmware_host.leds.terminal import render_board
from firmware_host.rules import Position, dice_text
from firmware_host.sim.board import BoardError

PAUSE_S = 0.1          # between the actions of a step, and a checker's stop on each touch-down of a slide
AIR_S = 0.2            # a lifted checker's time in the air in `move`
BUMP_S = 0.06          # a bumped checker off its sensor


class ActionFailed(RuntimeError):
    """An action the board or the rig could not carry out (no checker there, dice run out)."""


@dataclass
class Outcome:
    scenario: str                   # the file
    title: str
    passed: bool
    seconds: float                  # real time the run took
    virtual_seconds: float = 0.0    # time on the rig's clock
    steps_run: int = 0
    failure: str | None = None      # one line
    report: str = ""                # the whole readable failure report


@dataclass
class Mismatch:
    what: str
    expected: Any
    got: Any

    def __str__(self) -> str:
        return f"{self.what}: expected {_plain(self.expected)}, got {_plain(self.got)}"


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return "none" if value is None else str(value)


# -- one scenario ------------------------------------------------------------------------------------


class ScenarioRun:
    def __init__(self, scenario: Scenario, rig: Rig, frames_shown: int, log: LogCapture):
        self.scenario = scenario
        self.log = log
        self.rig = rig
        self.renderer = Renderer.from_config(rig.config.leds)
        self.frames_shown = frames_shown
        self.player = SeededPlayer(rig, scenario.seed or 0)

    def run(self) -> tuple[int, str | None, str]:
        """(steps run, the failure in one line or None, the report)."""
        rig = self.rig
        rig.settle()   # the board as laid out is read before the first step
        for step in self.scenario.steps:
            seq_before = self._last_seq() if "journal" in step.expect and "journal" in rig.checkable else 0
            try:
                for index, action in enumerate(step.actions):
                    if index:
                        rig.advance(PAUSE_S)
                    self.perform(action)
                if step.settle:
                    rig.settle()
                if rig.dice.ran_out:
                    raise ActionFailed(f"{rig.dice.ran_out}; add dice to [dice] values, or a seed")
            except (ActionFailed, BoardError, PlayerStuck, RemoteUnsupported) as error:
                line = f"step {step.number} ({step.text}): the action failed: {error}"
                return step.number, line, self.report(step, [line])
            if self.log.errors:
                line = f"step {step.number} ({step.text}): the application logged an error: {self.log.errors[0]}"
                return step.number, line, self.report(step, [line])
            mismatches = self.check(step, seq_before)
            if mismatches:
                line = f"step {step.number} ({step.text}): " + "; ".join(map(str, mismatches))
                return step.number, line, self.report(step, [str(mismatch) for mismatch in mismatches])
        return len(self.scenario.steps), None, ""

    # -- actions ------------------------------------------------------------------------------------

    def perform(self, action: Action) -> None:
        rig, mcu, args = self.rig, self.rig.mcu, action.args
        name = action.name
        if name in ("lift", "place", "move", "slide", "hit", "bear-off", "bump"):
            self._hands(name, args)
        elif name == "press":
            rig.press()
        elif name == "hold":
            rig.hold(int(args[0]) / 1000 if args else None)
        elif name == "wait":
            rig.advance(int(args[0]) / 1000)
        elif name == "play-on":
            if not isinstance(rig.view, GameView):
                raise ActionFailed("play-on follows the controller's guidance, which only the local rig sees")
            self.player.play_on(args[0])
        elif name == "drop-bytes":
            mcu.drop_bytes(int(args[0]) if args else 1)
        elif name == "corrupt-frame":
            mcu.corrupt_next_crc()
        elif name == "garbage":
            mcu.send_garbage()
        elif name == "unplug":
            mcu.unplug()
            if args:
                rig.advance(int(args[0]) / 1000)
                mcu.replug()
        elif name == "replug":
            mcu.replug()
        elif name == "reset-mcu":
            mcu.reset()
        elif name == "hang":
            mcu.go_silent()
            rig.advance(int(args[0]) / 1000)
            mcu.resume()
        elif name == "flicker":
            period_s = int(args[3]) / 1000 if len(args) > 3 else 0.1
            mcu.flicker(_sensor_location(args[0]), (int(args[1]), int(args[2])), period_s)
        elif name == "stick":
            mcu.stick(_sensor_location(args[0]), (int(args[1]), int(args[2])))
        elif name == "unstick":
            mcu.unstick(_sensor_location(args[0]))
        elif name == "power-cut":
            rig.power_off()
            rig.advance(int(args[0]) / 1000 if args else 0.0)
            rig.power_on()
        else:   # the loader accepts only the actions above
            raise AssertionError(f"no handler for action {name!r}")

    def _hands(self, name: str, args: tuple[str, ...]) -> None:
        rig, board = self.rig, self.rig.board
        words = list(args)
        mover = rig.view.turn
        if mover is None and words[-1] not in COLOURS:
            raise ActionFailed("say whose checker it is (white or black): the side to move is not known here")
        colour = words.pop() if words[-1] in COLOURS else (
            ("black" if mover == "white" else "white") if name == "hit" else mover)
        places = [_board_location(word) for word in words]
        if name == "lift":
            board.lift(places[0], colour)
        elif name == "place":
            board.place(places[0], colour)
        elif name == "move":
            board.lift(places[0], colour)
            rig.advance(AIR_S)
            board.place(places[1], colour)
        elif name == "slide":
            for index, (here, there) in enumerate(zip(places, places[1:])):
                if index:
                    rig.advance(PAUSE_S)
                board.slide(here, there, colour)
        elif name == "hit":
            board.hit(places[0], colour)
        elif name == "bear-off":
            board.bear_off(places[0], colour)
        elif len(places) == 2:   # bump onto another location
            board.slide(places[0], places[1], colour)
        else:                    # bump: off the sensor and back
            board.lift(places[0], colour)
            rig.advance(BUMP_S)
            board.place(places[0], colour)

    # -- expectations -------------------------------------------------------------------------------

    def check(self, step: Step, seq_before: int) -> list[Mismatch]:
        view, expect = self.rig.view, step.expect
        found: list[Mismatch] = []
        for key, read in _VIEW_KEYS.items():
            if key in expect and key in self.rig.checkable and expect[key] != read(view):
                found.append(Mismatch(key, expect[key], read(view)))
        if "leds" in expect:
            shown = self.shown()
            for group, element in expect["leds"].items():
                if shown.get(group, DARK) != element:
                    found.append(Mismatch(f"LED {group}", element, shown.get(group, DARK)))
        if "journal" in expect and "journal" in self.rig.checkable:
            found.extend(self._check_journal(expect["journal"], seq_before))
        return found

    def shown(self) -> dict[str, str]:
        return self.rig.shown(self.renderer)

    def _records(self, after_seq: int) -> list:
        with JournalReader.open(self.rig.config.journal_path) as reader:
            return [event for event in reader.tail(10_000) if event.seq > after_seq]

    def _last_seq(self) -> int:
        with JournalReader.open(self.rig.config.journal_path) as reader:
            last = reader.tail(1)
        return last[0].seq if last else 0

    def _check_journal(self, wanted: list, seq_before: int) -> list[Mismatch]:
        records = self._records(seq_before)
        remaining = iter(records)
        for entry in wanted:
            fields = entry if isinstance(entry, dict) else {"kind": entry}
            if not any(_record_matches(record, fields) for record in remaining):
                written = ", ".join(_record_text(record) for record in records) or "nothing"
                return [Mismatch("journal", _entry_text(fields) + " (in this order)", written)]
        return []

    # -- the report ---------------------------------------------------------------------------------

    def report(self, step: Step, problems: list[str]) -> str:
        rig, view = self.rig, self.rig.view
        lines = [f"{self.scenario.source}: {self.scenario.title}",
                 f"  failed at step {step.number} of {len(self.scenario.steps)}: {step.text}"]
        lines += [f"    {problem}" for problem in problems]
        if isinstance(view, GameView):
            dice = dice_text(view.dice) if view.dice else "none"
            lines.append(f"  the controller: {view.state}; game {view.game_number} ({view.variant}); {view.turn} to move, "
                         f"dice {dice}; verdict {view.verdict_kind or 'none'}; score white {view.score[0]} - black "
                         f"{view.score[1]}; at {rig.clock.monotonic():.3f} s")
        else:
            lines.append(f"  the Pi reports: {view.state or 'nothing yet'}; verdict {view.verdict_kind or 'none'}")
        layout = rig.config.leds.layout
        lines.append("  the board as it lies:")
        dark = (OFF,) * layout.count   # the checkers only: the LEDs are listed by name below
        lines += ["    " + line for line in render_board(layout, dark, rig.board.reading()).splitlines()
                  if line.strip() and "turn" not in line and "dice" not in line]
        shown = self.shown()
        if self.log.lines:
            lines.append("  the application logged:")
            lines += ["    " + line for line in self.log.lines[-10:]]
        lines.append("  the LEDs show: " + (" ".join(f"{group}={name}" for group, name in shown.items()) or "nothing"))
        frames = rig.shown_history(self.renderer, self.frames_shown)
        if frames:
            lines.append(f"  the last {len(frames)} frames, decoded:")
            for at, names in frames:
                lines.append(f"    {at:9.3f} s  " + (" ".join(f"{group}={name}" for group, name in names.items())
                                                      or "dark"))
        return "\n".join(lines)


# The expectations read from the controller's view, as the scenario writes them.
_VIEW_KEYS = {
    "state": lambda view: view.state,
    "verdict": lambda view: view.verdict_kind or "none",
    "turn": lambda view: view.turn,
    "game": lambda view: view.game_number,
    "variant": lambda view: view.variant,
    "dice": lambda view: list(view.dice) if view.dice else "none",
    "score": lambda view: list(view.score),
}


def _board_location(word: str) -> str | int:
    return int(word) if word.isdigit() else word


def _sensor_location(word: str) -> str:
    return f"point:{word}" if word.isdigit() else word


def _record_matches(record, fields: dict) -> bool:
    data = record.data
    return all(record.kind.value == value if key == "kind" else key in data and _same(data[key], value)
               for key, value in fields.items())


def _same(have: Any, want: Any) -> bool:
    if isinstance(have, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(have) == len(want) and all(_same(a, b) for a, b in zip(have, want))
    return have == want


def _entry_text(fields: dict) -> str:
    extra = ", ".join(f"{key}={value}" for key, value in fields.items() if key != "kind")
    return fields["kind"] + (f" ({extra})" if extra else "")


def _record_text(record) -> str:
    reason = record.data.get("reason") or record.data.get("action") or record.data.get("fault")
    return record.kind.value + (f" ({reason})" if isinstance(reason, str) else "")


class LogCapture(logging.Handler):
    """The application's warnings and errors during a run: shown in the report, not on stderr; an
    error (a handler that raised, a failed journal write) fails the step it happened in."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f": {record.exc_info[0].__name__}: {record.exc_info[1]}"
        self.lines.append(f"{record.levelname.lower()} {record.name}: {text}")
        if record.levelno >= logging.ERROR:
            self.errors.append(text)

    def __enter__(self) -> LogCapture:
        root = logging.getLogger()
        self._level = root.level
        root.addHandler(self)
        root.setLevel(min(root.level, logging.WARNING) if root.level else logging.WARNING)
        return self

    def __exit__(self, *exc_info) -> None:
        root = logging.getLogger()
        root.removeHandler(self)
        root.setLevel(self._level)


class ScenarioDice(DiceSource):
    """The scenario's exact dice in order, then (with a seed) seeded dice; without one, running out
    of the exact dice is an error (`DiceExhausted`)."""

    def __init__(self, values: tuple[int, ...], seed: int | None):
        self._scripted = ScriptedDice(values)
        self._left = len(values)
        self._seeded = SeededDice(seed) if seed is not None else None
        # The controller's loop logs and drops an event whose handling raised: the run checks this.
        self.ran_out: str | None = None

    def roll_die(self) -> int:
        if self._left or self._seeded is None:
            self._left = max(self._left - 1, 0)
            try:
                return self._scripted.roll_die()
            except DiceExhausted as error:
                self.ran_out = str(error)
                raise
        return self._seeded.roll_die()


def run_scenario(scenario: Scenario, *, realtime: bool = False, frames_shown: int = 5,
                 physics: bool = False) -> Outcome:
    """Run `scenario` on the simulated board and MCU against the application on this machine; with
    `physics` the MCU's sensors are the physical model of the reference design (sim.weighed)."""
    folder = Path(tempfile.mkdtemp(prefix="tavli-hil-"))
    first = laid_out(Position.start(scenario.config.match_rules.sequence[0]), scenario.orientation)
    try:
        return run_with_rig(scenario, lambda dice: Rig(scenario.config, dice, folder, first, realtime=realtime,
                                                        physics=physics),
                            frames_shown=frames_shown)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_with_rig(scenario: Scenario, make_rig, *, frames_shown: int = 5) -> Outcome:
    """Run `scenario` on the rig `make_rig(dice)` builds (a `Rig`, or a `remote.RemoteRig`)."""
    started = time.monotonic()
    dice = ScenarioDice(scenario.dice or (), scenario.seed)
    with LogCapture() as log, make_rig(dice) as rig:
        steps, failure, report = ScenarioRun(scenario, rig, frames_shown, log).run()
        virtual = time.monotonic() - started if rig.realtime else rig.clock.monotonic()
    return Outcome(scenario.source, scenario.title, failure is None, time.monotonic() - started, virtual, steps,
                   failure, report)


def run_on_pi(scenario: Scenario, port: str, *, frames_shown: int = 5, baudrate: int = 115200) -> Outcome:
    """Run `scenario` against the Pi at the other end of the serial device `port`."""
    first = laid_out(Position.start(scenario.config.match_rules.sequence[0]), scenario.orientation)
    return run_with_rig(scenario, lambda dice: RemoteRig(scenario.config, dice, AdapterTransport(port, baudrate),
                                                         first), frames_shown=frames_shown)


# -- many scenarios, and the reports ----------------------------------------------------------------


def junit_xml(outcomes: Iterable[Outcome], name: str = "hil") -> ET.ElementTree:
    """One testsuite, one testcase per scenario (classname "hil", name the file), failures with the report."""
    outcomes = list(outcomes)
    suite = ET.Element("testsuite", name=name, tests=str(len(outcomes)),
                       failures=str(sum(not outcome.passed and outcome.steps_run > 0 for outcome in outcomes)),
                       errors=str(sum(not outcome.passed and outcome.steps_run == 0 for outcome in outcomes)),
                       time=f"{sum(outcome.seconds for outcome in outcomes):.3f}")
    for outcome in outcomes:
        case = ET.SubElement(suite, "testcase", classname="hil", name=outcome.scenario, time=f"{outcome.seconds:.3f}")
        if not outcome.passed:
            tag = "failure" if outcome.steps_run > 0 else "error"
            ET.SubElement(case, tag, message=outcome.failure or "failed").text = outcome.report
        ET.SubElement(case, "system-out").text = f"{outcome.title}: {outcome.steps_run} steps, " \
                                                 f"{outcome.virtual_seconds:.1f} s on the rig's clock"
    tree = ET.ElementTree(suite)
    ET.indent(tree)
    return tree


def run_files(paths: Iterable[Path], *, junit: Path | None = None, realtime: bool = False, port: str | None = None,
              frames: int = 5, out: TextIO | None = None, physics: bool = False) -> int:
    """Run every scenario file; print a line each (and the report of a failure); 0 all passed, 1 one
    failed, 2 one could not be read (the others still run)."""
    out = out or sys.stdout
    outcomes, unreadable = [], False
    for path in paths:
        try:
            scenario = load_scenario(path)
        except ScenarioError as error:
            unreadable = True
            print(f"ERROR {error}", file=out)
            outcomes.append(Outcome(str(path), Path(path).stem, False, 0.0, failure=str(error).splitlines()[0],
                                    report=str(error)))
            continue
        if port is not None:
            outcome = run_on_pi(scenario, port, frames_shown=frames)
        else:
            outcome = run_scenario(scenario, realtime=realtime, frames_shown=frames, physics=physics)
        outcomes.append(outcome)
        if outcome.passed:
            print(f"PASS {outcome.scenario}: {outcome.title} ({outcome.steps_run} steps, "
                  f"{outcome.virtual_seconds:.1f} s of play in {outcome.seconds:.1f} s)", file=out)
        else:
            print(f"FAIL {outcome.report}", file=out)
    if junit is not None:
        junit_xml(outcomes).write(junit, encoding="unicode", xml_declaration=True)
    passed = sum(outcome.passed for outcome in outcomes)
    print(f"{passed} of {len(outcomes)} scenarios passed", file=out)
    if unreadable:
        return 2
    return 0 if passed == len(outcomes) else 1
