"""The board as an SVG picture: the points, bar and trays the LEDs light, the checkers of a reading,
the LED marks of a scene by meaning, the dice, whose turn and the score.

    svg = board_svg(reading, scene, palette="standard")     # a str: <svg ...>...</svg>

The same picture as the terminal view (`terminal.py`), drawn as the board lies physically: the far
half (points 13..24, Black's bar and tray) on top, the near half (12..1, White's) below, the tray on
the right. The web companion draws the live board with it, and any position; docs and bug reports
can too. It reads well on a phone: big checkers, a count on a stack taller than five, the marks as a
thick coloured outline and a word under the board (colour is never the only signal).

Every location is a `<g class="location">` carrying `data-location`, `data-white`, `data-black`
and `data-mark`, so a test (or a script) reads the picture back without parsing shapes.
"""
from __future__ import annotations

from typing import Mapping
from xml.sax.saxutils import escape, quoteattr

from firmware_host.leds.palette import PALETTES
from firmware_host.leds.scene import SIDES, Mark, Scene
from firmware_host.leds.terminal import Reading   # a board reading in physical numbering

RGB = tuple[int, int, int]

# Geometry, in SVG units: a point is POINT_W wide; the board is 6 points, the bar, 6 points, the tray.
POINT_W, POINT_H, BAR_W, TRAY_W, MARGIN, GAP, LABEL_H = 40, 190, 44, 52, 8, 34, 20
RADIUS = 18
STACK = 5           # checkers drawn per point; a taller stack shows its count on the last one
BOARD_W = 12 * POINT_W + BAR_W + TRAY_W
HEIGHT = 2 * POINT_H + GAP + 2 * (MARGIN + LABEL_H)
INFO_H = 96         # the dice, turn and score row under the board
WIDTH = BOARD_W + 2 * MARGIN

CHECKER = {"white": ("#f4f1e8", "#6b6252"), "black": ("#2b2623", "#d9cfbd")}
WOOD, FELT, LIGHT_POINT, DARK_POINT = "#5b3a1e", "#1f4d3a", "#d8c39a", "#9c4a2f"

# The words the picture uses for each mark, beside its colour.
MARK_WORDS: Mapping[str, str] = {
    Mark.LEGAL_DESTINATION: "may go here",
    Mark.LIFTED_ORIGIN: "lifted from here",
    Mark.ILLEGAL: "wrong here",
    Mark.TAKE_FROM: "take from here",
    Mark.PUT_ON: "put here",
    Mark.LAST_PLAY_ORIGIN: "last play from",
    Mark.LAST_PLAY_DESTINATION: "last play to",
    Mark.SENSOR_FAULT: "sensor fault",
}


def _hex(colour: RGB) -> str:
    return "#%02x%02x%02x" % colour


def _point_box(point: int) -> tuple[float, bool]:
    """The left x of physical point `point` and whether it hangs from the top edge (the far half)."""
    far = point >= 13
    column = point - 13 if far else 12 - point        # left to right on screen
    x = MARGIN + column * POINT_W + (BAR_W if column >= 6 else 0)
    return x, far


def _location_counts(reading: Reading | None) -> dict[str, tuple[int, int]]:
    if reading is None:
        return {}
    counts = {str(p): (reading.white.points[p - 1], reading.black.points[p - 1]) for p in range(1, 25)}
    for place in ("bar", "off"):
        counts[f"{place}:white"] = (getattr(reading.white, place), 0)
        counts[f"{place}:black"] = (0, getattr(reading.black, place))
    return counts


def _stack(x_centre: float, edge_y: float, down: bool, white: int, black: int, step: float) -> list[str]:
    """Checkers from the edge inward, white first; past STACK the last one shows the count."""
    # At most STACK of each colour are listed: a reading's count can be any size (a web client's).
    shown = (["white"] * min(white, STACK) + ["black"] * min(black, STACK))[:STACK]
    parts = []
    for index, colour in enumerate(shown):
        y = edge_y + (RADIUS + index * step) * (1 if down else -1)
        fill, line = CHECKER[colour]
        parts.append(f'<circle cx="{x_centre:g}" cy="{y:g}" r="{RADIUS - 1}" fill="{fill}" stroke="{line}" '
                     f'stroke-width="2" class="checker {colour}"/>')
        if index == STACK - 1 and white + black > STACK:
            parts.append(f'<text x="{x_centre:g}" y="{y + 6:g}" text-anchor="middle" font-size="17" '
                         f'font-weight="bold" fill="{line}">{white + black}</text>')
    return parts


def _group(location: str, counts: tuple[int, int], mark: Mark | None, shapes: list[str]) -> str:
    white, black = counts
    mark_attr = quoteattr(mark.value if mark else "")
    return (f'<g class="location" data-location={quoteattr(location)} data-white="{white}" '
            f'data-black="{black}" data-mark={mark_attr}>' + "".join(shapes) + "</g>")


def _die(x: float, y: float, value: int | None, colour: str, size: float = 40) -> str:
    pips = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
            5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}
    parts = [f'<rect x="{x:g}" y="{y:g}" width="{size:g}" height="{size:g}" rx="7" fill="#fbfaf5" '
             f'stroke="{colour}" stroke-width="3"/>']
    for column, row in pips.get(value, []):
        parts.append(f'<circle cx="{x + size * (0.22 + 0.28 * column):g}" cy="{y + size * (0.22 + 0.28 * row):g}" '
                     f'r="{size * 0.09:g}" fill="#222"/>')
    return f'<g class="die" data-value="{value or ""}">' + "".join(parts) + "</g>"


def board_svg(reading: Reading | None, scene: Scene | None = None, *, palette: str = "standard",
              point_labels: Mapping[int, int] | None = None, title: str = "") -> str:
    """The board with the checkers of `reading` (physical numbering; None: no checkers) and the
    marks, dice, turn and score of `scene` (physical locations, as the controller builds it) in
    `palette`'s colours. `point_labels`: physical point -> the number the players call it (their
    orientation); default the physical numbers. `title`: a line above the board."""
    colours = PALETTES[palette].colours
    counts = _location_counts(reading)
    marks: Mapping[str, Mark] = scene.marks if scene is not None else {}
    title_h = 28 if title else 0
    top = MARGIN + title_h + LABEL_H
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {title_h + HEIGHT + INFO_H}" '
             f'class="board" role="img" aria-label="the board" font-family="sans-serif">']
    if title:
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + 16}" font-size="18" fill="#222">{escape(title)}</text>')
    parts.append(f'<rect x="{MARGIN - 6}" y="{top - LABEL_H}" width="{BOARD_W + 12}" '
                 f'height="{2 * POINT_H + GAP + 2 * LABEL_H}" rx="8" fill="{WOOD}"/>')
    parts.append(f'<rect x="{MARGIN}" y="{top}" width="{12 * POINT_W + BAR_W}" height="{2 * POINT_H + GAP}" fill="{FELT}"/>')
    bottom = top + 2 * POINT_H + GAP
    step = (POINT_H - RADIUS) / STACK + 1

    def outline(mark: Mark | None) -> str:
        return "none" if mark is None else _hex(colours[mark.value])

    for point in range(1, 25):
        x, far = _point_box(point)
        location, mark = str(point), marks.get(str(point))
        edge = top if far else bottom
        tip = edge + (POINT_H - 12) * (1 if far else -1)
        fill = LIGHT_POINT if point % 2 else DARK_POINT
        shapes = [f'<polygon points="{x + 1:g},{edge:g} {x + POINT_W - 1:g},{edge:g} {x + POINT_W / 2:g},{tip:g}" '
                  f'fill="{fill}" stroke="{outline(mark)}" stroke-width="{6 if mark else 0}" stroke-linejoin="round"/>']
        label = point_labels.get(point, point) if point_labels else point
        label_y = edge - 5 if far else edge + 16
        shapes.append(f'<text x="{x + POINT_W / 2:g}" y="{label_y:g}" text-anchor="middle" font-size="15" '
                      f'font-weight="bold" fill="#f4e9d4">{label}</text>')
        shapes += _stack(x + POINT_W / 2, edge, far, *counts.get(location, (0, 0)), step=step)
        parts.append(_group(location, counts.get(location, (0, 0)), mark, shapes))

    bar_x = MARGIN + 6 * POINT_W
    tray_x = MARGIN + 12 * POINT_W + BAR_W + 4
    for place, x, width in (("bar", bar_x, BAR_W), ("off", tray_x, TRAY_W - 8)):
        for side in SIDES:
            far = side == "black"    # each colour's half as the layout names it: Black's far, White's near
            location, mark = f"{place}:{side}", marks.get(f"{place}:{side}")
            y = top if far else top + POINT_H + GAP
            shapes = [f'<rect x="{x:g}" y="{y:g}" width="{width}" height="{POINT_H}" rx="4" '
                      f'fill="{"#3d2614" if place == "bar" else "#4a3020"}" stroke="{outline(mark)}" '
                      f'stroke-width="{6 if mark else 0}"/>']
            white, black = counts.get(location, (0, 0))
            if place == "bar":
                shapes += _stack(x + width / 2, y if far else y + POINT_H, far, white, black, step=step)
            elif white or black:
                fill, _ = CHECKER["white" if white else "black"]
                for index in range(min(white + black, 15)):   # borne-off checkers lie flat, edge on
                    slab_y = (y + 4 + index * 8) if far else (y + POINT_H - 10 - index * 8)
                    shapes.append(f'<rect x="{x + 6:g}" y="{slab_y:g}" width="{width - 12}" height="6" rx="2" '
                                  f'fill="{fill}" stroke="#6b6252" stroke-width="0.5"/>')
                shapes.append(f'<text x="{x + width / 2:g}" y="{y + POINT_H / 2 + 7:g}" text-anchor="middle" '
                              f'font-size="20" font-weight="bold" fill="#ffd97a">{white + black}</text>')
            parts.append(_group(location, (white, black), mark, shapes))

    parts += _info(scene, colours, bottom + LABEL_H + MARGIN + 4)
    parts.append("</svg>")
    return "".join(parts)


def _info(scene: Scene | None, colours: Mapping[str, RGB], y: float) -> list[str]:
    """The row under the board: the dice (or the dice signal), whose turn, the score, the marks in words."""
    if scene is None:
        return []
    parts = []
    if scene.dice is not None:
        colour = _hex(colours[scene.dice_signal.value]) if scene.dice_signal else "#555"
        parts += [_die(MARGIN, y, scene.dice[0], colour), _die(MARGIN + 50, y, scene.dice[1], colour)]
    if scene.dice_signal is not None:
        parts.append(f'<text x="{MARGIN + (110 if scene.dice else 0)}" y="{y + 26}" font-size="18" fill="#222" '
                     f'class="dice-signal">{escape(scene.dice_signal.value.replace("-", " "))}</text>')
    words = []
    if scene.turn is not None:
        words.append(f"{scene.turn} to play")
    if scene.score is not None:
        words.append(f"white {scene.score.white} - black {scene.score.black} (to {scene.score.target})")
    parts.append(f'<text x="{WIDTH - MARGIN}" y="{y + 26}" text-anchor="end" font-size="20" fill="#222" '
                 f'class="turn-score">{escape("; ".join(words))}</text>')
    legend_x = MARGIN
    for mark in sorted(set(scene.marks.values()), key=list(Mark).index):
        colour = _hex(colours[mark.value])
        parts.append(f'<rect x="{legend_x}" y="{y + 58}" width="18" height="18" rx="3" fill="none" '
                     f'stroke="{colour}" stroke-width="5"/>')
        text = MARK_WORDS[mark]
        parts.append(f'<text x="{legend_x + 24}" y="{y + 73}" font-size="16" fill="#222">{escape(text)}</text>')
        legend_x += 40 + 9 * len(text)
    return parts
