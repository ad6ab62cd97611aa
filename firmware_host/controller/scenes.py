"""From the referee's words to the LEDs' words: locations, guidance steps and marks.

The referee names locations "1".."24", "bar" and "off" (plus a colour), in the unified numbering;
the LED scene names "1".."24", "bar:white", "bar:black", "off:white", "off:black" on the physical
board. These helpers translate, through the game's `Orientation`.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from firmware_host.controller.numbering import BoardLabels
from firmware_host.controller.orientation import Orientation
from firmware_host.leds.scene import LOCATIONS, Mark
from firmware_host.referee import Step
from firmware_host.rules import Color, Move

# Where a sensing fault location ("point:7", "bar", "off", "reserve", or None for the whole
# board) shows on the LEDs. Sensing locations are physical already: no orientation applies.
_FAULT_LEDS = {"bar": ("bar:white", "bar:black"), "off": ("off:white", "off:black")}


def led(orientation: Orientation, location: str, colour: Color) -> str | None:
    """The physical LED location of a referee location of `colour`'s checkers; None for the hand."""
    return BoardLabels(orientation).led(location, colour)


def fault_leds(location: str | None) -> tuple[str, ...]:
    """The LED locations that show a sensing fault at a sensing location (None: everything)."""
    if location is None or location.partition(":")[0] == "reserve":
        # A reserve tray has no LED of its own: the whole board says "do not trust the sensors".
        return LOCATIONS
    if location.startswith("point:"):
        return (location.partition(":")[2],)
    if location in LOCATIONS:   # one channel's half of the bar or tray ("off:black"): its own LEDs
        return (location,)
    return _FAULT_LEDS[location]


def step_marks(orientation: Orientation, step: Step) -> dict[str, Mark]:
    """One guidance step: take a checker from here, put it there (a checker in hand: put only; a
    checker too many: take only, into the hand)."""
    marks = {}
    origin = led(orientation, step.origin, step.color)
    if origin is not None:
        marks[origin] = Mark.TAKE_FROM
    destination = led(orientation, step.destination, step.color)
    if destination is not None:
        marks[destination] = Mark.PUT_ON
    return marks


def setup_marks(orientation: Orientation, steps: Iterable[Step]) -> dict[str, Mark]:
    """Every place that needs a checker (put on) or has one too many (take from), all at once:
    setting up is many moves that may be done in any order."""
    marks: dict[str, Mark] = {}
    for step in steps:
        for location, mark in step_marks(orientation, step).items():
            marks.setdefault(location, mark)
    return marks


def move_marks(orientation: Orientation, moves: Iterable[Move], colour: Color,
               origin_mark: Mark, destination_mark: Mark) -> dict[str, Mark]:
    """The origins and destinations of moves; a location that is both shows its destination."""
    marks: dict[str, Mark] = {}
    for move in moves:
        marks[led(orientation, move.origin, colour)] = origin_mark
    for move in moves:
        marks[led(orientation, move.destination, colour)] = destination_mark
    return marks


def destination_marks(orientation: Orientation, origin: str | None, destinations: Mapping[str, Iterable[str]],
                      colour: Color) -> dict[str, Mark]:
    """A lifted checker: where it came from, and where it may legally go."""
    marks = {}
    for location in destinations.get(origin, ()) if origin is not None else ():
        marks[led(orientation, location, colour)] = Mark.LEGAL_DESTINATION
    if origin is not None:
        marks[led(orientation, origin, colour)] = Mark.LIFTED_ORIGIN
    return marks
