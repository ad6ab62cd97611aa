"""A simulated physical board: checkers on locations, and a hand that holds the lifted ones.

Locations are the channel locations of hardware/board.toml (`point:1`..`point:24`, `bar:white`,
`bar:black`, `off:white`, `off:black`, `reserve:white`, `reserve:black`); a point may also be given
as its number, and `"bar"`, `"off"`, `"reserve"` mean the half or tray of the checker's colour.
Every method is atomic under a lock: the simulated MCU scans the board from its own thread.
"""
from __future__ import annotations

import threading
from collections import Counter

from firmware_host.sensing.channels import KNOWN_LOCATIONS, UNUSED, ChannelMap
from firmware_host.sensing.reading import COLOURS, POINTS, BoardReading, SideReading

# The portes / tavla opening (position-json): a board an engineer can start playing on.
OPENING_LAYOUT = ('{"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},'
                  ' "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}}')

Location = str | int


class BoardError(ValueError):
    """A handling the physical board does not allow (lifting a checker that is not there)."""


class SimBoard:
    def __init__(self, reading: BoardReading | None = None) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, Counter[str]] = {}
        self.hand: list[str] = []
        self.set_reading(reading or BoardReading())

    def set_reading(self, reading: BoardReading) -> None:
        """Lay the board out as `reading` (bar, off and reserve checkers in their colour's half) and empty the hand."""
        counts: dict[str, Counter[str]] = {name: Counter() for name in KNOWN_LOCATIONS}
        for colour in COLOURS:
            side = reading.side(colour)
            for number in range(1, POINTS + 1):
                counts[f"point:{number}"][colour] = side.point(number)
            counts[f"bar:{colour}"][colour] = side.bar
            counts[f"off:{colour}"][colour] = side.off
            counts[f"reserve:{colour}"][colour] = side.reserve or 0
        with self._lock:
            self._counts = counts
            self._has_reserve = reading.has_reserve
            self.hand = []

    def reading(self) -> BoardReading:
        """What correct sensors would report: the hand's checkers are not on the board."""
        with self._lock:
            sides = []
            for colour in COLOURS:
                def total(kind: str) -> int:
                    return sum(self._counts[f"{kind}:{owner}"][colour] for owner in COLOURS)
                sides.append(SideReading(
                    tuple(self._counts[f"point:{n}"][colour] for n in range(1, POINTS + 1)),
                    total("bar"), total("off"), total("reserve") if self._has_reserve else None))
            return BoardReading(*sides)

    def count(self, location: Location, colour: str) -> int:
        with self._lock:
            return self._counts[self._location(location, colour)][colour]

    def channel_counts(self, channels: ChannelMap) -> list[tuple[int, int]]:
        """(white, black) per MCU channel, as perfect sensors would read them."""
        with self._lock:
            return [(0, 0) if name == UNUSED else (self._counts[name]["white"], self._counts[name]["black"])
                    for name in channels.locations]

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
            self._counts[name][colour] += 1

    def slide(self, source: Location, destination: Location, colour: str) -> None:
        """Move a checker along the board surface: it never leaves the board, so no reading misses it."""
        with self._lock:
            source_name = self._location(source, colour)
            destination_name = self._location(destination, colour)
            self._take(source_name, colour)
            self._counts[destination_name][colour] += 1

    def hit(self, point: Location, colour: str) -> None:
        """Send a `colour` checker from `point` to its half of the bar."""
        self.slide(point, "bar", colour)

    def bear_off(self, point: Location, colour: str) -> None:
        self.slide(point, "off", colour)

    def add(self, location: Location, colour: str, count: int = 1) -> None:
        """Put checkers from outside the game on the board (a setup mistake, or a stray checker)."""
        with self._lock:
            self._counts[self._location(location, colour)][colour] += count

    # -- helpers -----------------------------------------------------------------------------

    def _take(self, name: str, colour: str) -> None:
        if self._counts[name][colour] == 0:
            raise BoardError(f"no {colour} checker on {name}")
        self._counts[name][colour] -= 1

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
