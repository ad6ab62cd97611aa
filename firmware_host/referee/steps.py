"""Guidance: the ordered single-checker steps that turn one board into another."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from firmware_host.rules.plays import ROUTES
from firmware_host.rules.position import BLACK, WHITE, Color, Position
from firmware_host.rules.variants import VARIANTS

HAND = "hand"  # a checker lifted off the board (missing from the reading)

# Counts of one colour per location: "bar", "1".."24", "off".
Counts = Mapping[str, int]


@dataclass(frozen=True)
class Step:
    color: Color
    origin: str       # a location, or "hand" for a checker that is off the board
    destination: str

    def to_json(self) -> dict[str, Any]:
        return {"color": self.color.value, "from": self.origin, "to": self.destination,
                "text": str(self)}

    def __str__(self) -> str:
        if self.origin == HAND:
            return f"put one {self.color.value} checker from the hand on {_place(self.destination)}"
        if self.destination == HAND:
            return f"take one {self.color.value} checker from {_place(self.origin)} off the board"
        return f"take one {self.color.value} checker from {_place(self.origin)} " \
               f"to {_place(self.destination)}"


def _place(location: str) -> str:
    return {"bar": "the bar", "off": "the tray"}.get(location, location)


def counts_of(white: tuple[int, ...], black: tuple[int, ...], bar: tuple[int, int],
              off: tuple[int, int]) -> dict[Color, dict[str, int]]:
    counts = {}
    for color, points in ((WHITE, white), (BLACK, black)):
        side = {str(p): n for p, n in enumerate(points, 1) if n}
        side["bar"], side["off"] = bar[color.index], off[color.index]
        counts[color] = side
    return counts


def position_counts(position: Position) -> dict[Color, dict[str, int]]:
    return counts_of(position.white, position.black, position.bar, position.off)


def _order(variant: str, color: Color) -> dict[str, int]:
    """Locations in the colour's direction of travel: bar first, then its route, then off."""
    route = ROUTES[(VARIANTS[variant].family, color)]
    order = {"bar": 0, "off": 25, HAND: -1}
    order.update({str(route[p]): p for p in range(1, 25)})
    return order


def steps_between(variant: str, reading: Mapping[Color, Counts],
                  target: Mapping[Color, Counts]) -> tuple[Step, ...]:
    """Steps that turn `reading` into `target`, each moving one checker.

    Checkers missing from the reading (fewer than in the target) come from the hand, and checkers
    too many (a reading is not checked here) are taken off the board. Surplus and
    shortage are paired in the colour's direction of travel, so a checker moved too far or too
    short is told to go where it should have gone. The opponent's checkers come first: they are
    the ones put on the bar before the mover's checker lands where they stood.
    """
    steps: list[Step] = []
    for color in sorted((WHITE, BLACK), key=lambda c: c is not _first_mover(reading, target)):
        order = _order(variant, color)
        have, want = reading[color], target[color]
        locations = sorted(set(have) | set(want), key=order.__getitem__)
        surplus = [loc for loc in locations for _ in range(max(0, have.get(loc, 0) - want.get(loc, 0)))]
        shortage = [loc for loc in locations for _ in range(max(0, want.get(loc, 0) - have.get(loc, 0)))]
        missing = sum(want.values()) - sum(have.values())
        surplus = [HAND] * max(0, missing) + surplus
        shortage = shortage + [HAND] * max(0, -missing)
        for origin, destination in zip(surplus, shortage):
            steps.append(Step(color, origin, destination))
    return tuple(steps)


def _first_mover(reading: Mapping[Color, Counts], target: Mapping[Color, Counts]) -> Color:
    """The colour whose steps go first: the one whose checkers must go to the bar, if any."""
    for color in (WHITE, BLACK):
        if target[color].get("bar", 0) > reading[color].get("bar", 0):
            return color
    return WHITE


def differing_locations(reading: Mapping[Color, Counts], target: Mapping[Color, Counts]) -> tuple[str, ...]:
    locations = set()
    for color in (WHITE, BLACK):
        for loc in set(reading[color]) | set(target[color]):
            if reading[color].get(loc, 0) != target[color].get(loc, 0):
                locations.add(loc)
    return tuple(sorted(locations, key=lambda loc: (not loc.isdigit(), int(loc) if loc.isdigit() else loc)))


def distance(reading: Mapping[Color, Counts], target: Mapping[Color, Counts]) -> int:
    """How many single-checker steps turn one into the other."""
    total = 0
    for color in (WHITE, BLACK):
        have, want = reading[color], target[color]
        surplus = sum(max(0, n - want.get(loc, 0)) for loc, n in have.items())
        missing = max(0, sum(want.values()) - sum(have.values()))
        total += surplus + missing
    return total
