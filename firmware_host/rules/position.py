"""Position: an immutable value for a Tavli position, its JSON form and a text diagram.

Points are numbered 1..24 from White's side for both colours (docs/position-format.md): White moves
24 -> 1 in every game; Black 1 -> 24 in the contrary games, 12 -> 1 -> 24 -> 13 in the parallel ones.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from operator import mul
from typing import Any, Mapping

from firmware_host.rules.variants import VARIANTS, Variant

CHECKERS = 15
POINTS = range(1, 25)


class Color(str, Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> "Color":
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def index(self) -> int:
        return 0 if self is Color.WHITE else 1

    def __str__(self) -> str:
        return self.value


WHITE, BLACK = Color.WHITE, Color.BLACK
_COLORS = {"white": WHITE, "black": BLACK}   # (a look-up: Color(name) costs ten times as much)


class PositionError(ValueError):
    """A position (or reading) that cannot be: names the field and what is wrong with it."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Position:
    variant: str
    turn: Color
    white: tuple[int, ...]          # checkers on points 1..24 (index point - 1)
    black: tuple[int, ...]
    bar: tuple[int, int]            # (white, black)
    off: tuple[int, int]            # borne off, (white, black)
    pinned: tuple[Color | None, ...]  # per point: the colour trapped underneath, or None
    rolls: tuple[int, int] = (0, 0)  # turns already played this game, (white, black)

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def start(cls, variant: str, turn: Color = WHITE) -> "Position":
        if variant not in VARIANTS:
            raise PositionError("variant", f"unknown variant {variant!r}; expected one of "
                                + ", ".join(VARIANTS))
        v = VARIANTS[variant]
        return cls(variant, Color(turn), _spread(v.white_start), _spread(v.black_start),
                   (0, 0), (0, 0), (None,) * 24, (0, 0))

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> "Position":
        """Read the interchange format; any problem raises PositionError naming the field."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as error:
                raise PositionError("", f"not valid JSON: {error}") from None
        return _parse(data)

    # -- queries ----------------------------------------------------------------------------

    @property
    def rules_variant(self) -> Variant:
        return VARIANTS[self.variant]

    def checkers(self, color: Color) -> tuple[int, ...]:
        return self.white if color is WHITE else self.black

    def count(self, color: Color, point: int) -> int:
        return self.checkers(color)[point - 1]

    def pinned_points(self) -> dict[int, Color]:
        return {p: c for p, c in zip(POINTS, self.pinned) if c is not None}

    def board_key(self) -> tuple:
        """What the sensors and the rules compare: everything but the turn and the roll counts."""
        return (self.white, self.black, self.bar, self.off, self.pinned)

    def with_turn(self, turn: Color) -> "Position":
        return Position(self.variant, Color(turn), self.white, self.black, self.bar, self.off,
                        self.pinned, self.rolls)

    # -- JSON and text ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"variant": self.variant, "turn": self.turn.value}
        for color in (WHITE, BLACK):
            data[color.value] = {
                "points": {str(p): n for p, n in zip(POINTS, self.checkers(color)) if n},
                "bar": self.bar[color.index],
                "off": self.off[color.index],
            }
        pins = self.pinned_points()
        if pins:
            data["pinned"] = {str(p): c.value for p, c in pins.items()}
        data["rolls"] = {"white": self.rolls[0], "black": self.rolls[1]}
        return data

    def to_json_text(self) -> str:
        """`to_json` as JSON text with its keys sorted, exactly as `json.dumps(..., sort_keys=True)`
        writes it, but rendered directly: a listing of plays writes thousands of positions."""
        return position_text(self.variant, self.turn, self.white, self.black, self.bar, self.off,
                             self.pinned, self.rolls)

    def diagram(self) -> str:
        """A compact board for people: top row 13-24, bottom row 12-1, as on the board."""
        def cell(point: int) -> str:
            w, b = self.white[point - 1], self.black[point - 1]
            pinned = self.pinned[point - 1]
            if pinned is WHITE:
                return f"B{b}/w"
            if pinned is BLACK:
                return f"W{w}/b"
            if w:
                return f"W{w}"
            if b:
                return f"B{b}"
            return "."

        def row(points: range) -> str:
            left = " ".join(f"{cell(p):>5}" for p in list(points)[:6])
            right = " ".join(f"{cell(p):>5}" for p in list(points)[6:])
            return f"{left} | {right}"

        labels_top = " ".join(f"{p:>5}" for p in range(13, 19)) + " | " + \
            " ".join(f"{p:>5}" for p in range(19, 25))
        labels_bottom = " ".join(f"{p:>5}" for p in range(12, 6, -1)) + " | " + \
            " ".join(f"{p:>5}" for p in range(6, 0, -1))
        status = (f"{self.variant}, {self.turn.value} to move "
                  f"(turns played: white {self.rolls[0]}, black {self.rolls[1]})")
        tray = (f"bar: white {self.bar[0]}, black {self.bar[1]}    "
                f"off: white {self.off[0]}, black {self.off[1]}")
        return "\n".join([status, labels_top, row(range(13, 25)), row(range(12, 0, -1)),
                          labels_bottom, tray])

    def __str__(self) -> str:
        return self.diagram()


def position_text(variant: str, turn: Color, white: tuple[int, ...], black: tuple[int, ...],
                  bar: tuple[int, int], off: tuple[int, int], pinned: tuple[Color | None, ...],
                  rolls: tuple[int, int]) -> str:
    """`Position.to_json_text` of a position given by its fields, for a caller that has them
    without the Position (a listing of plays)."""
    pins = ""
    if any(pinned):
        pins = '"pinned": {' + ", ".join(f'{name}"{pinned[i].value}"' for i, name in
                                         _POINT_KEYS if pinned[i]) + "}, "
    return (f'{{"black": {_side_text(black, bar[1], off[1])}, {pins}'
            f'"rolls": {{"black": {rolls[1]}, "white": {rolls[0]}}}, '
            f'"turn": "{turn.value}", "variant": "{variant}", '
            f'"white": {_side_text(white, bar[0], off[0])}}}')


# (index, '"point": ') for points 1..24 in the order sorted JSON keys take ("1", "10", ..., "9").
_POINT_KEYS = tuple((p - 1, f'"{p}": ') for p in sorted(POINTS, key=str))


@lru_cache(maxsize=4096)  # the side that did not move is the same in every play of a roll
def _side_text(points: tuple[int, ...], bar: int, off: int) -> str:
    return (f'{{"bar": {bar}, "off": {off}, "points": {{'
            + ", ".join([f"{name}{points[i]}" for i, name in _POINT_KEYS if points[i]]) + "}}")


def _spread(points: Mapping[int, int]) -> tuple[int, ...]:
    return tuple(points.get(p, 0) for p in POINTS)


# -- parsing and validation ------------------------------------------------------------------

_POSITION_KEYS = {"variant", "turn", "white", "black", "pinned", "rolls"}
_SIDE_KEYS = {"points", "bar", "off"}


def _count(value: Any, field: str) -> int:
    if type(value) is int and value >= 0:   # (every request line reads a few dozen counts)
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(field, f"must be a whole number, not {json.dumps(value)}")
    if value < 0:
        raise PositionError(field, f"must not be negative (got {value})")
    return value


def _object(value: Any, field: str) -> Mapping[str, Any]:
    # (A dict, as JSON gives, is checked first: typing's Mapping check is slow, and every request
    # line of `moves --jsonl` has several objects.)
    if type(value) is not dict and not isinstance(value, Mapping):
        raise PositionError(field, f"must be an object, not {json.dumps(value)}")
    return value


# A point's key as the position JSON writes it: "1" to "24", nothing else (not "01", nor other
# scripts' digits such as "²⁴" or "٣", which `str.isdigit` accepts).
_POINT_OF_KEY = {str(p): p for p in POINTS}


def point_of_key(key: Any, where: str) -> int:
    """The point a key under `where` ("white.points", "pinned") names."""
    point = _POINT_OF_KEY.get(key)
    if point is None:
        raise PositionError(f"{where}.{_key_text(key)}", 'points are "1" to "24"')
    return point


def _key_text(key: Any) -> str:
    """A key as an error names it: as written, or as a JSON string where it would not print on
    one line."""
    return key if isinstance(key, str) and key.isprintable() else json.dumps(key)


def _no_unknown_keys(data: Mapping[str, Any], allowed: set[str], field: str) -> None:
    if data.keys() <= allowed:   # (the usual case, without a set made)
        return
    unknown = sorted(set(data) - allowed)
    if unknown:
        where = f"{field}.{_key_text(unknown[0])}" if field else _key_text(unknown[0])
        raise PositionError(where, f"unknown key; expected only {', '.join(sorted(allowed))}")


def _side(data: Mapping[str, Any], color: str) -> tuple[tuple[int, ...], int, int]:
    side = _object(data.get(color, {}), color)
    _no_unknown_keys(side, _SIDE_KEYS, color)
    points = [0] * 24
    for key, value in _object(side.get("points", {}), f"{color}.points").items():
        # (Each point checked inline; the checks that name the fault run only on a fault: every
        # request line of `moves --jsonl` and `hint --jsonl` reads a position.)
        point = _POINT_OF_KEY.get(key)
        if point is None or type(value) is not int or value < 0:
            point = point_of_key(key, f"{color}.points")
            value = _count(value, f"{color}.points.{point}")
        points[point - 1] = value
    bar = _count(side.get("bar", 0), f"{color}.bar")
    off = _count(side.get("off", 0), f"{color}.off")
    return tuple(points), bar, off


def known_variant(value: Any) -> str:
    """`value`, the name of one of the games; PositionError naming the field `variant` otherwise."""
    if not isinstance(value, str) or value not in VARIANTS:
        raise PositionError("variant", f"unknown variant {json.dumps(value)}; expected one of "
                            + ", ".join(VARIANTS))
    return value


def check_bar(variant: str, color: str, bar: int) -> None:
    """Checkers on the bar only in a game with hitting; PositionError naming `color.bar` otherwise."""
    if bar and not VARIANTS[variant].has_bar:
        raise PositionError(f"{color}.bar", f"{variant} has no hitting, so no bar (got {bar})")


def parse_board(data: Mapping[str, Any]
                ) -> tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, int], tuple[int, int]]:
    """Variant, both sides' points, bar and off from a position object."""
    data = _object(data, "")
    variant = known_variant(data.get("variant"))
    white, white_bar, white_off = _side(data, "white")
    black, black_bar, black_off = _side(data, "black")
    check_bar(variant, "white", white_bar)
    check_bar(variant, "black", black_bar)
    for color, points, bar, off in (("white", white, white_bar, white_off),
                                    ("black", black, black_bar, black_off)):
        total = sum(points) + bar + off
        if total != CHECKERS:
            raise PositionError(color, f"has {total} checkers (points {sum(points)}, bar {bar}, "
                                f"off {off}); every side has exactly {CHECKERS}")
    if white_off == CHECKERS and black_off == CHECKERS:
        raise PositionError("off", "both sides cannot have borne off all their checkers")
    return variant, white, black, (white_bar, black_bar), (white_off, black_off)


def _parse(data: Any) -> Position:
    data = _object(data, "")
    _no_unknown_keys(data, _POSITION_KEYS, "")
    variant, white, black, bar, off = parse_board(data)
    v = VARIANTS[variant]

    turn = data.get("turn", "white")
    if turn not in ("white", "black"):
        raise PositionError("turn", f'must be "white" or "black", not {json.dumps(turn)}')

    rolls_data = _object(data.get("rolls", {}), "rolls")
    _no_unknown_keys(rolls_data, {"white", "black"}, "rolls")
    rolls = (_count(rolls_data.get("white", 0), "rolls.white"),
             _count(rolls_data.get("black", 0), "rolls.black"))

    pinned: list[Color | None] = [None] * 24
    pins = _object(data.get("pinned", {}), "pinned")
    if pins and not v.has_pins:
        raise PositionError("pinned", f"{variant} has no pinning")
    for key, value in pins.items():
        p = point_of_key(key, "pinned")
        field = f"pinned.{p}"
        if value not in ("white", "black"):
            raise PositionError(field, f'must be "white" or "black", not {json.dumps(value)}')
        w, b = white[p - 1], black[p - 1]
        if not (w and b):
            raise PositionError(field, f"a pin needs both colours on the point (white {w}, black {b})")
        trapped = w if value == "white" else b
        if trapped != 1:
            raise PositionError(field, f"only a lone checker is pinned, but {value} has {trapped} "
                                f"on point {p}")
        pinned[p - 1] = Color(value)
    for p in POINTS if any(map(mul, white, black)) else ():   # (most boards: no point with both)
        if white[p - 1] and black[p - 1] and pinned[p - 1] is None:
            problem = ("both colours on one point need a pin (\"pinned\": {\"%d\": ...})" % p
                       if v.has_pins else f"{variant} never has both colours on one point")
            raise PositionError(f"points.{p}", problem)
    return Position(variant, _COLORS[turn], white, black, bar, off, tuple(pinned), rolls)
