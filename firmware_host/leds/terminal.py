"""A terminal picture of the board: the points in two rows as seen from White's side, the bar, the
trays, the checkers of a reading and the LEDs of a frame in colour (ANSI 24-bit), for the demo.
Where colour is off (`NO_COLOR`, output not a terminal: `wants_colour`), each lit board location
shows its element's two-letter code instead (`legend.MEANINGS`) and other lights a plain "●".

```
 13 14 15 16 17 18 bar  19 20 21 22 23 24  off
 ██ ██ ██ ██ ██ ██ ██   ██ ██ ██ ██ ██ ██  ██     <- LED colours ("··" when dark)
 ●                 ●    ○              ●   ●2     <- checkers: ● black, ○ white
 ...                                              (5 drawn; a taller stack shows its count)
 dice  ● · ●    ● · ●                             <- dice, turn and score lights
 ...
 ○                      ●              ○   ○15
 ██ ██ ██ ██ ██ ██ ██   ██ ██ ██ ██ ██ ██  ██
 12 11 10  9  8  7 bar   6  5  4  3  2  1  off
```
"""
from __future__ import annotations

import os
from typing import Mapping, Protocol, Sequence, TextIO

from firmware_host.leds.layout import LedLayout
from firmware_host.leds.render import OFF, RGB, Frame

_STACK = 5  # checkers drawn per point; a taller stack shows its count in the last row
_WHITE, _BLACK = "○", "●"
_RESET = "\x1b[0m"

# Pip positions of a 7-LED die (see layout) on a 3x3 grid, row by row.
_PIP_GRID = ((0, None, 1), (2, 3, 4), (5, None, 6))


class SideCounts(Protocol):
    points: Sequence[int]  # points[0] is point 1
    bar: int
    off: int


class Reading(Protocol):
    """A board reading, such as `firmware_host.sensing.reading.BoardReading`."""

    white: SideCounts
    black: SideCounts


def wants_colour(stream: TextIO) -> bool:
    """Colour only for a terminal, and never where NO_COLOR is set (no-color.org)."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def _on_screen(colour: RGB) -> RGB:
    # LEDs run dim (brightness, cap); lift them with a display gamma so a dim hint stays visible.
    return tuple(round(255 * (channel / 255) ** 0.45) for channel in colour)


def _led(colour: RGB, symbol: str = "██", code: str | None = None) -> tuple[str, int]:
    """An LED as (text, visible width): the symbol in the LED's colour, dots when dark; where colour
    is off (`code` given, "" for a light with no code), the code or the plain symbol."""
    if colour == OFF:
        return "·" * len(symbol), len(symbol)
    if code is not None:
        return (code or symbol), len(code or symbol)
    red, green, blue = _on_screen(colour)
    return f"\x1b[38;2;{red};{green};{blue}m{symbol}{_RESET}", len(symbol)


def _plain(text: str) -> tuple[str, int]:
    return text, len(text)


def _line(cells: list[tuple[str, int]], bar: tuple[str, int], tray: tuple[str, int]) -> str:
    """One row: six points, the bar, six points, the tray; columns padded by visible width."""

    def pad(cell: tuple[str, int], width: int) -> str:
        text, visible = cell
        return text + " " * (width - visible)

    row = "".join(pad(cell, 3) for cell in cells[:6]) + " " + pad(bar, 5)
    row += "".join(pad(cell, 3) for cell in cells[6:]) + " " + tray[0]
    return " " + row.rstrip()


def _stack(white: int, black: int) -> list[str]:
    """Up to `_STACK` symbols from the edge inward; a taller stack shows its count in the last row."""
    symbols = [_WHITE] * white + [_BLACK] * black
    if len(symbols) > _STACK:
        symbols = symbols[: _STACK - 1] + [str(len(symbols))]
    return symbols + [""] * (_STACK - len(symbols))


def _half(frame: Frame, layout: LedLayout, reading: Reading | None, far: bool,
          codes: Mapping[str, str] | None) -> list[str]:
    """The far half (points 13..24, Black's bar and tray) or the near half (12..1, White's)."""
    names = [str(point) for point in (range(13, 25) if far else range(12, 0, -1))]
    side = "black" if far else "white"
    bar, tray = f"bar:{side}", f"off:{side}"

    def led(location: str) -> tuple[str, int]:
        code = None if codes is None else codes.get(location, "")
        return _led(max((frame[index] for index in layout.locations[location]), key=sum), code=code)

    labels = _line([_plain(f"{name:>2}") for name in names], _plain("bar"), _plain("off"))
    leds = _line([led(name) for name in names], led(bar), led(tray))
    rows = []
    if reading is not None:
        stacks = [_stack(reading.white.points[int(name) - 1], reading.black.points[int(name) - 1]) for name in names]
        counts = reading.black if far else reading.white
        on_bar = _stack(counts.bar, 0) if side == "white" else _stack(0, counts.bar)
        borne_off = f"{_BLACK if far else _WHITE}{counts.off}" if counts.off else ""
        for row in range(_STACK):
            rows.append(
                _line([_plain(stack[row]) for stack in stacks], _plain(on_bar[row]), _plain(borne_off if row == 0 else ""))
            )
        if not far:
            rows.reverse()  # the near half stacks up from the bottom edge
    return [labels, leds, *rows] if far else [*rows, leds, labels]


def _die(frame: Frame, indices: Sequence[int], style: str, plain: str | None) -> list[str]:
    if style == "row":
        return [" ".join(_led(frame[index], "●", plain)[0] for index in indices)]
    return [" ".join(" " if position is None else _led(frame[indices[position]], "●", plain)[0] for position in row)
            for row in _PIP_GRID]


def render_board(layout: LedLayout, frame: Frame, reading: Reading | None = None,
                 codes: Mapping[str, str] | None = None) -> str:
    """The board with the LEDs of `frame` and, when given, the checkers of `reading`. With `codes`
    (board location -> two-letter code of what it shows) no colour is used: see the module doc."""
    plain = None if codes is None else ""
    if len(frame) != layout.count:
        raise ValueError(f"frame has {len(frame)} pixels; the strip has {layout.count}")
    first, second = (_die(frame, indices, layout.dice_style, plain) for indices in layout.dice)
    dice = [f" {'dice' if row == 0 else '':<6}{a}    {b}" for row, (a, b) in enumerate(zip(first, second))]
    lights = []
    for side in ("white", "black"):
        turn = " ".join(_led(frame[index], "●", plain)[0] for index in layout.turn[side])
        score = " ".join(_led(frame[index], "●", plain)[0] for index in layout.score[side])
        lights.append(f" {side:<6}turn {turn}  score {score}")
    far = _half(frame, layout, reading, far=True, codes=codes)
    near = _half(frame, layout, reading, far=False, codes=codes)
    return "\n".join([*far, "", *dice, *lights, "", *near])
