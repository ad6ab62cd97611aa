"""What a person is shown for a location: the one place that turns a location into a number or words.

Two numberings, each for one job (docs/position-format.md, "Which numbering where"):

- **the board's labels** (`BoardLabels`): where a person must find a checker on the board (the
  guidance words, the lights, the terminal drawing, the Live page). The points are numbered as they
  are printed on the board and wired (hardware/board.toml: 1..12 along the near edge from right to
  left, 13..24 along the far edge), whichever way the players sit: the words "from 12" and the light
  on the point labelled 12 are the same place;
- **the position format**: records (JSON, `moves`, exports, history, the Match page, a play's
  notation such as "13/9 13/7"), numbered from White's side for both colours whichever way the
  board lies, so that a record means the same on any board.

The referee and the rules speak the position format; `BoardLabels` maps it onto the board through
the game's `Orientation` (and, for the bar and tray halves, the mover's colour).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from firmware_host.controller.orientation import Orientation
from firmware_host.referee import Step
from firmware_host.referee.steps import HAND
from firmware_host.rules import Color, Move


@dataclass(frozen=True)
class BoardLabels:
    """Locations of the position format as the board labels them, the board lying as `orientation` says."""

    orientation: Orientation

    def label(self, location: str) -> str:
        """A location of the position format ("1".."24", "bar", "off", "hand") as the board labels it."""
        return str(self.orientation.point(int(location))) if location.isdigit() else location

    def step(self, step: Step) -> Step:
        """A guidance step in the board's labels (its words, `str(step)`, name the labelled points)."""
        return Step(step.color, self.label(step.origin), self.label(step.destination))

    def steps(self, steps: Iterable[Step]) -> tuple[Step, ...]:
        return tuple(self.step(step) for step in steps)

    def move_step(self, move: Move, mover: Color) -> Step:
        """A move of a play as the step a person makes on the board."""
        return self.step(Step(mover, move.origin, move.destination))

    def place(self, location: str) -> str:
        """A location of the position format in words, as the board labels it ("point 12", "the bar")."""
        return place_words(self.label(location))

    def led(self, location: str, colour: Color) -> str | None:
        """The LED location of a location of `colour`'s checkers; None for a checker in hand."""
        if location == HAND:
            return None
        if location in ("bar", "off"):
            location = f"{location}:{colour.value}"
        return self.orientation.led_location(location)


def place_words(label: str) -> str:
    """A location already in the board's labels ("12", "bar", "off") in words."""
    return {"bar": "the bar", "off": "the tray"}.get(label, f"point {label}")


def play_text(moves: Iterable[Move]) -> str:
    """A play's moves in the position format's notation ("13/9 13/7", "bar/4 4/10*")."""
    return " ".join(str(move) for move in moves) or "(no move)"
