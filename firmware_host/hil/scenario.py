"""Scenario files: a game set up by the service's own config tables, the dice, and a list of steps
of physical and fault actions, each optionally followed by expectations (docs/hil.md).

    scenario = load_scenario("tests/hil/portes_game.toml")   # ScenarioError names the step at fault
    scenario.config        # a checked service `Config` (match, house rules, timings)
    scenario.steps         # Step(number, actions, expect, settle)

Everything is checked when the file is read, so a bad scenario fails before anything runs, with
every problem at once, each with its step number.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


from firmware_host.config import Config, ConfigError, parse_config
from firmware_host.controller import machine as m
from firmware_host.controller.orientation import Orientation
from firmware_host.files import InputError, parse_toml, read_text
from firmware_host.journal.events import Kind
from firmware_host.leds.scene import LOCATIONS, Mark
from firmware_host.referee import VerdictKind
from firmware_host.sensing.channels import KNOWN_LOCATIONS
from firmware_host.service.led_report import LED_GROUPS

# The service config tables a scenario may carry (same keys and checks as /etc/tavli-board/config.toml).
CONFIG_TABLES = ("match", "house_rules", "sensors", "button")
TOP_LEVEL = ("title", "description", *CONFIG_TABLES, "dice", "board", "step")
STEP_KEYS = ("do", "expect", "settle")
EXPECT_KEYS = ("state", "verdict", "leds", "dice", "turn", "score", "game", "variant", "journal")
VERDICTS = (*(kind.value for kind in VerdictKind), "none")   # an expectation's: "none" outside a turn
COLOURS = ("white", "black")
DARK = "dark"
LOCATION_ELEMENTS = tuple(mark.value for mark in Mark) + ("unknown", DARK)
PLAY_ON_UNTIL = ("turn", "game", "match")

# Each action: (words after the name it takes, as (least, most), and a one-line usage for errors).
ACTIONS: Mapping[str, tuple[tuple[int, int], str]] = {
    # -- hands on the board
    "lift": ((1, 2), "lift LOCATION [COLOUR]"),
    "place": ((1, 2), "place LOCATION [COLOUR]"),
    "move": ((2, 3), "move FROM TO [COLOUR]"),
    "slide": ((2, 27), "slide FROM [TOUCH-DOWN ...] TO [COLOUR]"),
    "hit": ((1, 2), "hit POINT [COLOUR]"),
    "bear-off": ((1, 2), "bear-off POINT [COLOUR]"),
    "bump": ((1, 3), "bump POINT [TO] [COLOUR]"),
    # -- the button and time
    "press": ((0, 0), "press"),
    "hold": ((0, 1), "hold [MS]"),
    "wait": ((1, 1), "wait MS"),
    "play-on": ((1, 1), "play-on turn|game|match"),
    # -- faults
    "drop-bytes": ((0, 1), "drop-bytes [N]"),
    "corrupt-frame": ((0, 0), "corrupt-frame"),
    "garbage": ((0, 0), "garbage"),
    "unplug": ((0, 1), "unplug [MS]"),
    "replug": ((0, 0), "replug"),
    "reset-mcu": ((0, 0), "reset-mcu"),
    "hang": ((1, 1), "hang MS"),
    "flicker": ((3, 4), "flicker LOCATION WHITE BLACK [PERIOD_MS]"),
    "stick": ((3, 3), "stick LOCATION WHITE BLACK"),
    "unstick": ((1, 1), "unstick LOCATION"),
    "power-cut": ((0, 1), "power-cut [MS]"),
}
FAULT_ACTIONS = ("drop-bytes", "corrupt-frame", "garbage", "unplug", "replug", "reset-mcu", "hang", "flicker",
                 "stick", "unstick", "power-cut")


class ScenarioError(ValueError):
    """A scenario file that cannot be run: every problem, each naming the step and key at fault."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems) if len(problems) == 1 else
                         f"{source}:\n" + "\n".join(f"  {problem}" for problem in problems))


@dataclass(frozen=True)
class Action:
    name: str                    # a key of ACTIONS
    args: tuple[str, ...]
    text: str                    # as written, for reports

    @property
    def fault(self) -> bool:
        return self.name in FAULT_ACTIONS


@dataclass(frozen=True)
class Step:
    number: int                                  # from 1, as in error messages and reports
    actions: tuple[Action, ...]
    expect: Mapping[str, Any] = field(default_factory=dict)
    settle: bool = True                          # let the board be read and judged before checking

    @property
    def text(self) -> str:
        return "; ".join(action.text for action in self.actions) or "(no action)"


@dataclass(frozen=True)
class Scenario:
    source: str
    title: str
    config: Config
    dice: tuple[int, ...] | None                 # exact dice, in the order rolled
    seed: int | None                             # seeded dice (after `dice`, if both); the player's choices
    orientation: Orientation
    steps: tuple[Step, ...]


def load_scenario(path: Path | str) -> Scenario:
    path = Path(path)
    try:
        text = read_text(path)
    except InputError as error:
        raise ScenarioError(str(path), [error.problem]) from None
    return parse_scenario(text, str(path))


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    try:
        document = parse_toml(text, source)
    except InputError as error:
        raise ScenarioError(source, [error.problem]) from None
    problems: list[str] = []
    for key in document:
        if key not in TOP_LEVEL:
            problems.append(f"unknown key {key!r}; allowed: {', '.join(TOP_LEVEL)}")
    config = _config(document, problems)
    dice, seed = _dice(document.get("dice", {}), problems)
    orientation = _orientation(document.get("board", {}), problems)
    raw_steps = document.get("step", [])
    if not isinstance(raw_steps, list) or not all(isinstance(step, dict) for step in raw_steps):
        problems.append("steps are written [[step]] tables")
        raw_steps = []
    if not raw_steps:
        problems.append("no [[step]]: a scenario needs at least one step")
    steps = tuple(_step(number, raw, problems) for number, raw in enumerate(raw_steps, 1))
    title = document.get("title", Path(source).stem)
    if not isinstance(title, str):
        problems.append("title must be a string")
    if problems:
        raise ScenarioError(source, problems)
    return Scenario(source, title, config, dice, seed, orientation, steps)


# -- the game ------------------------------------------------------------------------------------


def _config(document: dict[str, Any], problems: list[str]) -> Config | None:
    """The config tables, checked by the service's own config checker."""
    tables = {name: document[name] for name in CONFIG_TABLES if name in document}
    try:
        return parse_config(tables, "scenario")
    except ConfigError as error:
        problems.extend(str(problem) for problem in error.problems)
        return None


def _dice(table: Any, problems: list[str]) -> tuple[tuple[int, ...] | None, int | None]:
    if not isinstance(table, dict):
        problems.append("[dice] must be a table: values = [6, 5, ...] and/or seed = N")
        return None, None
    for key in table:
        if key not in ("values", "seed"):
            problems.append(f"[dice]: unknown key {key!r}; allowed: values, seed")
    seed = table.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        problems.append(f"[dice] seed: {seed!r} is not an integer")
        seed = None
    values = table.get("values")
    if values is None:
        return None, seed
    if not isinstance(values, list) or not all(
            isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6 for value in values):
        problems.append(f"[dice] values: {values!r}; allowed: a list of integers 1..6, in the order rolled")
        return None, seed
    return tuple(values), seed


def _orientation(table: Any, problems: list[str]) -> Orientation:
    allowed = ", ".join(orientation.value for orientation in Orientation)
    if not isinstance(table, dict) or set(table) - {"orientation"}:
        problems.append(f"[board] takes only orientation = one of {allowed}")
        return Orientation.AS_WIRED
    try:
        return Orientation(table.get("orientation", Orientation.AS_WIRED.value))
    except ValueError:
        problems.append(f"[board] orientation: {table['orientation']!r}; allowed: {allowed}")
        return Orientation.AS_WIRED


# -- steps ---------------------------------------------------------------------------------------


def _step(number: int, raw: dict[str, Any], problems: list[str]) -> Step:
    def problem(text: str) -> None:
        problems.append(f"step {number}: {text}")

    for key in raw:
        if key not in STEP_KEYS:
            problem(f"unknown key {key!r}; allowed: {', '.join(STEP_KEYS)}")
    do = raw.get("do", [])
    lines = [do] if isinstance(do, str) else do
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        problem("do must be an action or a list of actions, as strings")
        lines = []
    actions = tuple(action for action in (_action(line, problem) for line in lines) if action is not None)
    expect = raw.get("expect", {})
    if not isinstance(expect, dict):
        problem("expect must be a table")
        expect = {}
    _check_expect(expect, problem)
    settle = raw.get("settle", True)
    if not isinstance(settle, bool):
        problem(f"settle must be true or false, not {settle!r}")
        settle = True
    if "do" not in raw and not expect:
        problem("neither an action (do) nor an expectation (expect)")
    return Step(number, actions, expect, settle)


def _action(line: str, problem) -> Action | None:
    words = line.split()
    if not words:
        problem("an empty action")
        return None
    name, args = words[0], tuple(words[1:])
    if name not in ACTIONS:
        problem(f"unknown action {name!r}; allowed: {', '.join(ACTIONS)}")
        return None
    (least, most), usage = ACTIONS[name]
    if not least <= len(args) <= most:
        problem(f"{line!r}: usage: {usage}")
        return None
    error = _check_args(name, args)
    if error:
        problem(f"{line!r}: {error} (usage: {usage})")
        return None
    return Action(name, args, " ".join(words))


def is_location(word: str) -> bool:
    """A board location as the simulated board names it: 1..24, bar, off, or a channel location."""
    return (word.isdigit() and 1 <= int(word) <= 24) or word in ("bar", "off") or word in KNOWN_LOCATIONS


def _check_args(name: str, args: tuple[str, ...]) -> str | None:
    if name in ("hold", "wait", "hang", "unplug", "power-cut", "drop-bytes"):
        if args and not args[0].isdigit():
            return f"{args[0]!r} is not a whole number"
        return None
    if name == "play-on":
        return None if args[0] in PLAY_ON_UNTIL else f"play on until {' or '.join(PLAY_ON_UNTIL)}, not {args[0]!r}"
    if name in ("flicker", "stick", "unstick"):
        if not is_location(args[0]):
            return f"unknown location {args[0]!r}"
        numbers = args[1:]
        bad = [word for word in numbers if not word.isdigit()]
        return f"{bad[0]!r} is not a whole number" if bad else None
    if name in ("lift", "place", "move", "slide", "hit", "bear-off", "bump"):
        words = list(args)
        if words[-1] in COLOURS:
            words.pop()
        bad = [word for word in words if not is_location(word)]
        if bad:
            return f"unknown location {bad[0]!r} (1..24, bar, off, bar:white, off:black, ...)"
        if name in ("move",) and len(words) != 2 or name == "slide" and len(words) < 2 or \
                name in ("lift", "place", "hit", "bear-off") and len(words) != 1:
            return "wrong number of locations"
    return None


def _check_expect(expect: Mapping[str, Any], problem) -> None:
    for key, value in expect.items():
        if key not in EXPECT_KEYS:
            problem(f"expect: unknown key {key!r}; allowed: {', '.join(EXPECT_KEYS)}")
        elif key == "state" and value not in m.STATES:
            problem(f"expect.state: {value!r}; allowed: {', '.join(m.STATES)}")
        elif key == "verdict" and value not in VERDICTS:
            problem(f"expect.verdict: {value!r}; allowed: {', '.join(VERDICTS)}")
        elif key == "turn" and value not in COLOURS:
            problem(f"expect.turn: {value!r}; allowed: white, black")
        elif key in ("dice", "score"):
            _check_pair(key, value, problem)
        elif key == "game" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            problem(f"expect.game: {value!r}; allowed: the game's number in the match, from 1")
        elif key == "variant" and not isinstance(value, str):
            problem(f"expect.variant: {value!r} is not a game's name")
        elif key == "leds":
            _check_leds(value, problem)
        elif key == "journal":
            _check_journal(value, problem)


def _check_pair(key: str, value: Any, problem) -> None:
    """`dice` (two dice, or "none" before the roll) and `score` (white's, black's): two whole numbers."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return
    if key == "score":
        problem(f"expect.score: {value!r}; allowed: [white, black]")
    elif value != "none":
        problem(f"expect.dice: {value!r}; allowed: [a, b] or \"none\"")


def _check_leds(leds: Any, problem) -> None:
    if not isinstance(leds, dict):
        problem('expect.leds must be a table: location = "scene element", e.g. "13" = "lifted-origin"')
        return
    for group, element in leds.items():
        if group not in LED_GROUPS:
            problem(f"expect.leds: unknown LED group {group!r}; allowed: 1..24, bar:white, bar:black, off:white, "
                    "off:black, dice:1, dice:2, turn:white, turn:black, score:white, score:black")
        elif not isinstance(element, str):
            problem(f"expect.leds.{group}: {element!r} is not a scene element's name")
        elif group in LOCATIONS and element not in LOCATION_ELEMENTS:
            problem(f"expect.leds.{group}: {element!r}; allowed: {', '.join(LOCATION_ELEMENTS)}")


def _check_journal(entries: Any, problem) -> None:
    kinds = [kind.value for kind in Kind]
    if not isinstance(entries, list):
        problem("expect.journal must be a list of record kinds or tables {kind = ..., field = value}")
        return
    for entry in entries:
        kind = entry.get("kind") if isinstance(entry, dict) else entry
        if kind not in kinds:
            problem(f"expect.journal: {kind!r} is not a journal record kind; allowed: {', '.join(kinds)}")
