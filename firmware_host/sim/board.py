"""A simulated physical board: checkers on locations, and a hand that holds the lifted ones.

Locations are the channel locations of hardware/board.toml (`point:1`..`point:24`, `bar:white`,
`bar:black`, `off:white`, `off:black`, `reserve:white`, `reserve:black`); a point may also be given
as its number, and `"bar"`, `"off"`, `"reserve"` mean the half or tray of the checker's colour.
Every method is atomic under a lock: the simulated MCU scans the board from its own thread. Each
location is a stack, bottom first: a checker put down goes on top, a lifted one comes off the top of its
colour, so the bottom checker (the one a magnet sensor sees) is known.
"""
from __future__ import annotations

import threading
from typing import Iterable, Mapping, Sequence

from firmware_host.sensing.channels import KNOWN_LOCATIONS, UNUSED, ChannelMap
from firmware_host.sensing.reading import COLOURS, POINTS, BoardReading, SideReading
from firmware_host.sim.firmware import firmware_module

# The portes / tavla opening (position-json): a board an engineer can start playing on.
OPENING_LAYOUT = ('{"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},'
                  ' "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}}')

Location = str | int


def seen_by_magnet(stack: tuple[str, ...]) -> tuple[int, int]:
    """What count-and-magnet sensors report for a stack (bottom first): its count in its bottom colour,
    as the firmware reports it (a full stack of 16 with both counts)."""
    if not stack:
        return (0, 0)
    return firmware_module("counting").reported(len(stack), stack[0] == "white")


class BoardError(ValueError):
    """A handling the physical board does not allow (lifting a checker that is not there)."""


def _check_layout(what: str, locations: Iterable[str], colours: Iterable[str]) -> None:
    unknown = sorted(set(locations) - KNOWN_LOCATIONS) + sorted(set(colours) - set(COLOURS))
    if unknown:
        raise BoardError(f"{what} name unknown locations or colours: {unknown} (locations are point:1..point:24 "
                         f"and bar:, off:, reserve: with white or black; colours are {' and '.join(COLOURS)})")


class SimBoard:
    def __init__(self, reading: BoardReading | None = None) -> None:
        self._lock = threading.Lock()
        self._stacks: dict[str, list[str]] = {}
        self.hand: list[str] = []
        self.set_reading(reading or BoardReading())

    def set_reading(self, reading: BoardReading, bottoms: Mapping[str, str] | None = None) -> None:
        """Lay the board out as `reading` (bar, off and reserve checkers in their colour's half) and empty the
        hand. Where both colours share a location, `bottoms` names the colour that lies at the bottom (the
        pinned one: a reading cannot tell); where it is silent, the colour with fewer checkers does."""
        counts: dict[str, dict[str, int]] = {name: dict.fromkeys(COLOURS, 0) for name in KNOWN_LOCATIONS}
        for colour in COLOURS:
            side = reading.side(colour)
            for number in range(1, POINTS + 1):
                counts[f"point:{number}"][colour] = side.point(number)
            counts[f"bar:{colour}"][colour] = side.bar
            counts[f"off:{colour}"][colour] = side.off
            counts[f"reserve:{colour}"][colour] = side.reserve or 0
        bottoms = bottoms or {}
        _check_layout("bottoms", bottoms, bottoms.values())
        stacks = {name: [colour for colour in sorted(COLOURS, key=lambda c: (c != bottoms.get(name), held[c]))
                         for _ in range(held[colour])]
                  for name, held in counts.items()}
        with self._lock:
            self._stacks = stacks
            self._has_reserve = reading.has_reserve
            self.hand = []

    def reading(self) -> BoardReading:
        """What correct sensors would report: the hand's checkers are not on the board."""
        with self._lock:
            sides = []
            for colour in COLOURS:
                def total(kind: str) -> int:
                    return sum(self._stacks[f"{kind}:{owner}"].count(colour) for owner in COLOURS)
                sides.append(SideReading(
                    tuple(self._stacks[f"point:{n}"].count(colour) for n in range(1, POINTS + 1)),
                    total("bar"), total("off"), total("reserve") if self._has_reserve else None))
            return BoardReading(*sides)

    def stacks(self) -> dict[str, tuple[str, ...]]:
        """Every location's checkers, bottom first (empty ones left out): the board as it lies, which
        its reading cannot say where both colours share a location."""
        with self._lock:
            return {name: tuple(stack) for name, stack in self._stacks.items() if stack}

    def set_stacks(self, stacks: Mapping[str, Sequence[str]]) -> None:
        """Lay the board out as `stacks` (as `stacks()` gives them; other locations empty) and empty the hand."""
        _check_layout("stacks", stacks, [colour for stack in stacks.values() for colour in stack])
        if not self._has_reserve and any(name.startswith("reserve:") for name in stacks):
            raise BoardError("this board has no reserve trays")
        with self._lock:
            self._stacks = {name: list(stacks.get(name, ())) for name in KNOWN_LOCATIONS}
            self.hand = []

    def count(self, location: Location, colour: str) -> int:
        with self._lock:
            return self._stacks[self._location(location, colour)].count(colour)

    def top(self, point: int) -> str | None:
        """The colour of the checker on top of `point`'s stack (None when it is empty)."""
        with self._lock:
            stack = self._stacks[f"point:{point}"]
            return stack[-1] if stack else None

    def channel_counts(self, channels: ChannelMap, colour_by: str = "mass") -> list[tuple[int, int]]:
        """(white, black) per MCU channel, as perfect sensors would report them: colour by mass counts both
        colours; colour by magnet reports the count as checkers of the bottom one's colour."""
        return [seen_by_magnet(stack) if colour_by == "magnet" else (stack.count("white"), stack.count("black"))
                for stack in self.channel_stacks(channels)]

    def channel_stacks(self, channels: ChannelMap) -> list[tuple[str, ...]]:
        """The checkers' colours per MCU channel, bottom first."""
        with self._lock:
            return [() if name == UNUSED else tuple(self._stacks[name]) for name in channels.locations]

    # -- handling ----------------------------------------------------------------------------

    def lift(self, location: Location, colour: str) -> None:
        """Take one checker of `colour` off `location` into the hand."""
        with self._lock:
            self._take(self._location(location, colour), colour)
            self.hand.append(colour)

    def place(self, location: Location, colour: str | None = None) -> None:
        """Put a checker from the hand on `location`: of `colour`, or the hand's only colour."""
        with self._lock:
            if colour is None:
                if len(set(self.hand)) != 1:
                    raise BoardError(f"say which colour to place: the hand holds {self.hand or 'nothing'}")
                colour = self.hand[0]
            if colour not in self.hand:
                raise BoardError(f"no {colour} checker in the hand (it holds {self.hand or 'nothing'})")
            name = self._location(location, colour)
            self.hand.remove(colour)
            self._stacks[name].append(colour)

    def slide(self, source: Location, destination: Location, colour: str) -> None:
        """Move a checker along the board surface: it never leaves the board, so no reading misses it."""
        with self._lock:
            source_name = self._location(source, colour)
            destination_name = self._location(destination, colour)
            self._take(source_name, colour)
            self._stacks[destination_name].append(colour)

    def hit(self, point: Location, colour: str) -> None:
        """Send a `colour` checker from `point` to its half of the bar."""
        self.slide(point, "bar", colour)

    def bear_off(self, point: Location, colour: str) -> None:
        self.slide(point, "off", colour)

    def add(self, location: Location, colour: str, count: int = 1) -> None:
        """Put checkers from outside the game on the board (a setup mistake, or a stray checker)."""
        with self._lock:
            self._stacks[self._location(location, colour)].extend([colour] * count)

    # -- helpers -----------------------------------------------------------------------------

    def _take(self, name: str, colour: str) -> None:
        """The topmost checker of `colour` comes off."""
        stack = self._stacks[name]
        if colour not in stack:
            raise BoardError(f"no {colour} checker on {name}")
        del stack[len(stack) - 1 - stack[::-1].index(colour)]

    def _location(self, location: Location, colour: str) -> str:
        if colour not in COLOURS:
            raise BoardError(f"colour must be one of {COLOURS}, got {colour!r}")
        if isinstance(location, int):
            location = f"point:{location}"
        elif location in ("bar", "off", "reserve"):
            location = f"{location}:{colour}"
        if location not in KNOWN_LOCATIONS:
            raise BoardError(f"unknown location {location!r}")
        if location.startswith("reserve:") and not self._has_reserve:
            raise BoardError("this board has no reserve trays")
        return location
