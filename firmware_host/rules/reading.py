"""`BoardReading`: how many checkers of each colour stand where; an immutable value, and the one owner
of the reading object's JSON.

Its JSON is the reading object of docs/position-format.md: a position without `pinned`, `turn`
and `rolls`. Points are numbered 1..24 from White's side for both colours. The sensors' readings are
these (as wired, `sensing`); the referee's `Reading` is made from one (`Reading.of_board`: the board
of a game, in the position format's numbering, reserves standing on their start point).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from firmware_host.rules.position import PositionError, point_of_key

COLOURS = ("white", "black")
POINTS = 24
# Extra keys of a full position object that a reading ignores, so a position can be read as a reading.
POSITION_ONLY_KEYS = frozenset({"variant", "turn", "pinned", "rolls"})


class ReadingError(PositionError):
    """A reading that is not well formed, with the offending key in the message and in `field` (a
    `PositionError`, so whoever reads a position reads a reading's errors alike)."""

    def __init__(self, message: str, field: str = ""):
        ValueError.__init__(self, message)
        self.field, self.problem = field, message


@dataclass(frozen=True, slots=True)
class SideReading:
    """One colour's checkers: `points[0]` is point 1. `reserve` is None on boards without reserve trays."""

    points: tuple[int, ...] = (0,) * POINTS
    bar: int = 0
    off: int = 0
    reserve: int | None = None

    def __post_init__(self) -> None:
        if len(self.points) != POINTS:
            raise ReadingError(f"a side has {POINTS} points, got {len(self.points)}")
        for name, value in (("points", min(self.points)), ("bar", self.bar), ("off", self.off),
                            ("reserve", 0 if self.reserve is None else self.reserve)):
            if value < 0:
                raise ReadingError(f"{name} counts cannot be negative, got {value}")

    @property
    def total(self) -> int:
        return sum(self.points) + self.bar + self.off + (self.reserve or 0)

    def point(self, number: int) -> int:
        _check_point(number)
        return self.points[number - 1]

    def to_json(self) -> dict[str, Any]:
        side: dict[str, Any] = {
            "points": {str(index + 1): count for index, count in enumerate(self.points) if count},
            "bar": self.bar,
            "off": self.off,
        }
        if self.reserve is not None:
            side["reserve"] = self.reserve
        return side

    @classmethod
    def from_json(cls, data: Any, where: str) -> SideReading:
        if not isinstance(data, Mapping):
            raise ReadingError(f"{where} must be an object, got {type(data).__name__}", where)
        unknown = set(data) - {"points", "bar", "off", "reserve"}
        if unknown:
            raise ReadingError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: points, bar, off, reserve",
                               f"{where}.{sorted(unknown)[0]}")
        raw_points = data.get("points", {})
        if not isinstance(raw_points, Mapping):
            raise ReadingError(f"{where}.points must be an object of point -> count", f"{where}.points")
        points = [0] * POINTS
        for key, count in raw_points.items():
            try:   # keyed as the position format keys points
                point = point_of_key(key, f"{where}.points")
            except PositionError as error:
                raise ReadingError(str(error), error.field) from None
            points[point - 1] = _count(count, f"{where}.points.{key}")
        reserve = data.get("reserve")
        return cls(
            points=tuple(points),
            bar=_count(data.get("bar", 0), f"{where}.bar"),
            off=_count(data.get("off", 0), f"{where}.off"),
            reserve=None if reserve is None else _count(reserve, f"{where}.reserve"),
        )


@dataclass(frozen=True, slots=True)
class BoardReading:
    white: SideReading = SideReading()
    black: SideReading = SideReading()

    def __post_init__(self) -> None:
        if (self.white.reserve is None) != (self.black.reserve is None):
            raise ReadingError("reserve counts must be given for both colours or for neither")

    @property
    def has_reserve(self) -> bool:
        return self.white.reserve is not None

    def side(self, colour: str) -> SideReading:
        if colour not in COLOURS:
            raise ReadingError(f"colour must be one of {COLOURS}, got {colour!r}")
        return self.white if colour == "white" else self.black

    def point(self, number: int) -> tuple[int, int]:
        """(white, black) on point `number` (1..24)."""
        return self.white.point(number), self.black.point(number)

    def location_counts(self) -> dict[str, tuple[int, int]]:
        """(white, black) per location name: `point:1`..`point:24`, `bar`, `off` and `reserve` if present."""
        counts = {f"point:{n}": (self.white.points[n - 1], self.black.points[n - 1]) for n in range(1, POINTS + 1)}
        counts["bar"] = (self.white.bar, self.black.bar)
        counts["off"] = (self.white.off, self.black.off)
        if self.has_reserve:
            counts["reserve"] = (self.white.reserve, self.black.reserve)
        return counts

    def to_json(self) -> dict[str, Any]:
        return {"white": self.white.to_json(), "black": self.black.to_json()}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    @classmethod
    def from_json(cls, data: Any) -> BoardReading:
        """A reading object (or a whole position object, whose other keys are ignored)."""
        if not isinstance(data, Mapping):
            raise ReadingError(f"a reading must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - set(COLOURS) - POSITION_ONLY_KEYS
        if unknown:
            raise ReadingError(f"unknown key(s) {sorted(unknown)}; a reading has 'white' and 'black'",
                               sorted(unknown)[0])
        missing = [colour for colour in COLOURS if colour not in data]
        if missing:
            raise ReadingError(f"missing key(s) {missing}", missing[0])
        return cls(SideReading.from_json(data["white"], "white"), SideReading.from_json(data["black"], "black"))

    @classmethod
    def loads(cls, text: str) -> BoardReading:
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as error:
            raise ReadingError(f"not JSON: {error}") from None


def _check_point(number: int) -> None:
    if not 1 <= number <= POINTS:
        raise ReadingError(f"points are numbered 1..{POINTS}, got {number}")


def _count(value: Any, where: str) -> int:
    # bool is an int in Python, but `true` is no count of checkers.
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ReadingError(f"{where} must be a non-negative integer, got {value!r}", where)
    return value
