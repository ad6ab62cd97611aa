"""How the physical board lies: the mapping between sensed locations and the unified numbering.

Players may sit either way round and play either direction, so the same game can be set up in four
ways on the physical board. The physical points are those of the sensor channel map: 1..12 along
the near edge from right to left, 13..24 along the far edge from left to right (hardware/board.toml,
and the terminal view). The four ways are the symmetries of that rectangle:

- `AS_WIRED`: the unified numbering is the physical one;
- `MIRRORED`: left and right swapped (the same seats, the other direction of play);
- `SEATS_SWAPPED`: near and far edges swapped (White sits on the far side);
- `ROTATED`: both (the board turned half round).

Each mapping is its own inverse, so one function maps either way. Bar and tray checkers are sensed
by colour, so a reading's bar and tray counts need no mapping; their LEDs do: when the seats swap,
each player's half of the bar and tray is the one the layout names after the other colour.
Pure functions, no state.
"""
from __future__ import annotations

import enum
from typing import Iterable

from firmware_host.referee import Reading
from firmware_host.referee.steps import distance, position_counts
from firmware_host.rules import Position
from firmware_host.sensing.reading import BoardReading, SideReading

POINTS = range(1, 25)


class Orientation(enum.Enum):
    AS_WIRED = "as-wired"
    MIRRORED = "mirrored"
    SEATS_SWAPPED = "seats-swapped"
    ROTATED = "rotated"

    @property
    def swaps_seats(self) -> bool:
        return self in (Orientation.SEATS_SWAPPED, Orientation.ROTATED)

    def point(self, point: int) -> int:
        """The point that `point` is in the other numbering (physical <-> unified)."""
        if not 1 <= point <= 24:
            raise ValueError(f"points are numbered 1..24, got {point!r}")
        near = point <= 12
        if self is Orientation.AS_WIRED:
            return point
        if self is Orientation.MIRRORED:
            return 13 - point if near else 37 - point
        if self is Orientation.SEATS_SWAPPED:
            return 25 - point
        return point + 12 if near else point - 12

    def led_location(self, location: str) -> str:
        """A unified LED location ("1".."24", "bar:white", "off:black", ...) -> the physical one."""
        if location.isdigit():
            return str(self.point(int(location)))
        place, _, colour = location.partition(":")
        if place not in ("bar", "off") or colour not in ("white", "black"):
            raise ValueError(f"unknown LED location {location!r}")
        if self.swaps_seats:
            colour = "black" if colour == "white" else "white"
        return f"{place}:{colour}"

    def reading(self, sensed: BoardReading, variant: str) -> Reading:
        """The sensed (physical) board in the unified numbering, as the referee reads it."""
        sides = (SideReading(tuple(side.points[self.point(p) - 1] for p in POINTS), side.bar, side.off, side.reserve)
                 for side in (sensed.white, sensed.black))
        return Reading.of_board(BoardReading(*sides), variant)


def reading_matches(reading: Reading, position: Position) -> bool:
    """Whether the board shows exactly `position` (pins are not sensed; a position's pins sit on
    points that hold both colours, which the counts already show)."""
    return (reading.white, reading.black, reading.bar, reading.off) == \
        (position.white, position.black, position.bar, position.off)


def detect(sensed: BoardReading, position: Position,
           candidates: Iterable[Orientation] = Orientation) -> Orientation | None:
    """The first orientation in which the sensed board shows `position`, or None."""
    for orientation in candidates:
        if reading_matches(orientation.reading(sensed, position.variant), position):
            return orientation
    return None


def nearest(sensed: BoardReading, position: Position) -> Orientation:
    """The orientation in which the fewest checkers must move to set up `position` (ties: the
    first in declaration order), so the setup lights follow the way the players have begun."""
    target = position_counts(position)
    return min(Orientation, key=lambda o: distance(o.reading(sensed, position.variant).counts(), target))


def laid_out(position: Position | Reading, orientation: Orientation) -> BoardReading:
    """The physical board showing `position` (or a reading's board) set up the way `orientation` says
    (what sensors that count both colours would read): the inverse of `Orientation.reading`."""
    sides = {}
    for colour in ("white", "black"):
        points = position.white if colour == "white" else position.black
        sides[colour] = {"points": {str(orientation.point(p)): n for p, n in enumerate(points, 1) if n},
                         "bar": position.bar[colour == "black"], "off": position.off[colour == "black"]}
    return BoardReading.from_json(sides)
