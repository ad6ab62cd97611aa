"""The scene vocabulary: what the LEDs should say, by meaning, as one immutable value.

A `Scene` lists what each board location shows (a `Mark`), the dice, whose turn it is and the
score. The controller builds scenes; the renderer turns them into pixels; nothing else about the
LEDs leaks into the controller.

Locations are named as in the position format (docs/position-format.md): the points "1".."24"
(numbered from White's side), and per colour the bar and the bear-off tray, written "bar:white",
"bar:black", "off:white", "off:black" as in the sensor channel map.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

SIDES = ("white", "black")
POINTS = tuple(str(point) for point in range(1, 25))
LOCATIONS = POINTS + tuple(f"{place}:{side}" for place in ("bar", "off") for side in SIDES)


class Mark(enum.StrEnum):
    """What one location shows. The value is the element name `decode` gives back."""

    LEGAL_DESTINATION = "legal-destination"  # where the lifted checker may go (a hint)
    LIFTED_ORIGIN = "lifted-origin"  # where the checker in hand came from
    ILLEGAL = "illegal"  # this location differs from any legal play (an error)
    TAKE_FROM = "take-from"  # correction step: take a checker from here
    PUT_ON = "put-on"  # correction step: put a checker here
    LAST_PLAY_ORIGIN = "last-play-origin"  # replay: a move of the last play started here
    LAST_PLAY_DESTINATION = "last-play-destination"  # replay: ... and ended here
    SENSOR_FAULT = "sensor-fault"  # the sensor of this location cannot be trusted


class DiceSignal(enum.StrEnum):
    """A message shown on the dice LEDs instead of plain dice. The value is its element name."""

    WAITING = "waiting"  # idle: press the button to roll (or waiting for the board to be set up)
    NO_LEGAL_MOVE = "no-legal-move"  # these dice cannot be played: the next press passes the turn
    ROLL_REFUSED = "roll-refused"  # the press did not roll: the board is not ready
    BUTTON_STUCK = "button-stuck"  # the dice button has been down too long: release it (a fault)
    BLOCKADE = "blockade"  # neither side can ever move again: a press ends the game drawn
    STORAGE_FAULT = "storage-fault"  # the journal cannot be written (disk full, card read-only): the game is held
    JOURNAL_DAMAGED = "journal-damaged"  # the journal lost records: play goes on from the last proven position
    REMOTE_FAULT = "remote-fault"  # a remote match: the other board's message refused, its dice secret late, a forfeit


@dataclass(frozen=True)
class Score:
    """Points won by each side in the match, and the points needed to win it."""

    white: int
    black: int
    target: int

    def __post_init__(self):
        for name in ("white", "black", "target"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"Score.{name} is {value!r}; allowed: an integer from 0")
        if self.target < 1:
            raise ValueError(f"Score.target is {self.target}; allowed: an integer from 1")

    def of(self, side: str) -> int:
        return self.white if side == "white" else self.black


@dataclass(frozen=True)
class Scene:
    """Everything the LEDs show at one moment. Immutable and hashable.

    - `marks`: location name -> `Mark`, at most one mark per location; unlisted locations are dark.
    - `dice`: the two dice values shown on the two dice faces, or None.
    - `dice_signal`: a `DiceSignal` shown on the dice LEDs instead of plain dice, or None.
      `NO_LEGAL_MOVE` shows the dice in its own signature, so it needs `dice`.
    - `turn`: "white" or "black" lights that side's turn lights; None lights neither.
    - `score`: the match score on the score lights, or None.
    """

    marks: Mapping[str, Mark] = field(default_factory=dict)
    dice: tuple[int, int] | None = None
    dice_signal: DiceSignal | None = None
    turn: str | None = None
    score: Score | None = None

    def __post_init__(self):
        marks = dict(self.marks)
        for location, mark in marks.items():
            if location not in LOCATIONS:
                raise ValueError(
                    f"Scene mark at unknown location {location!r}; allowed: "
                    '"1".."24", "bar:white", "bar:black", "off:white", "off:black"'
                )
            if not isinstance(mark, Mark):
                raise ValueError(f"Scene mark at {location} is {mark!r}; allowed: a Mark")
        object.__setattr__(self, "marks", MappingProxyType(marks))
        if self.dice is not None:
            dice = tuple(self.dice)
            if len(dice) != 2 or any(
                isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6 for value in dice
            ):
                raise ValueError(f"Scene.dice is {self.dice!r}; allowed: two integers 1..6")
            object.__setattr__(self, "dice", dice)
        if self.dice_signal is not None and not isinstance(self.dice_signal, DiceSignal):
            raise ValueError(f"Scene.dice_signal is {self.dice_signal!r}; allowed: a DiceSignal or None")
        if self.dice_signal is DiceSignal.NO_LEGAL_MOVE and self.dice is None:
            raise ValueError("Scene.dice_signal NO_LEGAL_MOVE needs the dice that cannot be played")
        if self.turn is not None and self.turn not in SIDES:
            raise ValueError(f'Scene.turn is {self.turn!r}; allowed: "white", "black" or None')
        if self.score is not None and not isinstance(self.score, Score):
            raise ValueError(f"Scene.score is {self.score!r}; allowed: a Score or None")

    def __hash__(self):
        return hash((frozenset(self.marks.items()), self.dice, self.dice_signal, self.turn, self.score))
