"""What every light means, in words: `tavli-board legend`, the lines under the demo's board, and the
picture in docs/leds.md (`legend_svg`, committed as docs/led-legend.svg).

Each element of `palette.ELEMENT_GROUPS` has a meaning, a blink in words and a two-letter code (the
code stands for the colour where a terminal shows none).
"""
from __future__ import annotations

import textwrap
from types import MappingProxyType
from typing import Iterable, Mapping
from xml.sax.saxutils import escape

from firmware_host.leds.palette import (DIE, ELEMENT_GROUPS, SCORE_TO_PLAY, SCORE_WON, STYLES, TURN, Blink,
                                        Palette)
from firmware_host.leds.scene import DiceSignal, Mark

GROUP_NAMES = ("the points, bars and trays", "the dice", "the turn lights", "the score lights")

MEANINGS: Mapping[str, tuple[str, str]] = MappingProxyType({   # element -> (code, meaning)
    Mark.LEGAL_DESTINATION: ("LD", "where the checker in your hand may go (a hint)"),
    Mark.LIFTED_ORIGIN: ("LO", "where the checker in your hand came from"),
    Mark.ILLEGAL: ("IL", "this place fits no legal play: put it right"),
    Mark.TAKE_FROM: ("TF", "take a checker from here (setting up, or being guided back)"),
    Mark.PUT_ON: ("PO", "put a checker here (setting up, or being guided back)"),
    Mark.LAST_PLAY_ORIGIN: ("RO", "referee replay: a move of the last play started here ..."),
    Mark.LAST_PLAY_DESTINATION: ("RD", "... and ended here"),
    Mark.SENSOR_FAULT: ("SF", "the sensor here cannot be trusted (everywhere: the sensor link is lost)"),
    DIE: ("DI", "the roll, one die on each face"),
    DiceSignal.WAITING: ("WA", "press the button to roll (or: set up the board first)"),
    DiceSignal.NO_LEGAL_MOVE: ("NM", "these dice cannot be played: the next press passes the turn"),
    DiceSignal.ROLL_REFUSED: ("RR", "that press did not roll: a checker in hand, or not a complete play yet"),
    DiceSignal.BUTTON_STUCK: ("BS", "the dice button is held down too long: release it"),
    DiceSignal.BLOCKADE: ("BL", "neither side can ever move again: a press ends the game drawn"),
    DiceSignal.STORAGE_FAULT: ("ST", "the journal cannot be written (disk full, card read-only): the game is "
                                     "held until it can, nothing is lost"),
    DiceSignal.JOURNAL_DAMAGED: ("JD", "the journal lost records (a power cut): play goes on from the last "
                                       "proven position; a press says you have seen it"),
    DiceSignal.REMOTE_FAULT: ("RF", "a remote match: the other board's message was refused or its dice secret is "
                                    "late (for a few seconds), or the match ended by a forfeit (until the next "
                                    "match); the companion says which"),
    TURN: ("TU", "whose turn it is; after a game, the winner's"),
    SCORE_WON: ("SW", "one light per point won in the match"),
    SCORE_TO_PLAY: ("SP", "one dim light per point still needed to win it"),
})

BLINKS: Mapping[Blink, str] = MappingProxyType({
    Blink.STEADY: "steady",
    Blink.SLOW: "slow pulse",
    Blink.FAST: "fast blink",
    Blink.DOUBLE: "two quick flashes, a pause",
    Blink.FLASH: "short bright flashes",
    Blink.WINK: "bright, short dips",
    Blink.LEAD: "bright in the first half",
    Blink.FOLLOW: "bright in the second half",
})


def how_it_looks(element: str) -> str:
    style = STYLES[element]
    return BLINKS[style.blink] + (", dim" if style.intensity < 1 else "")


def swatch(colour: tuple[int, int, int], code: str, in_colour: bool) -> str:
    """The element as a terminal shows it: a block in its colour, or its code where colour is off."""
    if not in_colour:
        return code
    red, green, blue = colour
    return f"\x1b[38;2;{red};{green};{blue}m██\x1b[0m"


def legend_lines(palette: Palette, in_colour: bool, elements: Iterable[str] | None = None) -> list[str]:
    """The legend, group by group: swatch (or code), name, how it blinks, what it means. With
    `elements`, only those (what a frame shows), without the group headings. The columns are as wide
    as their longest entry over every light, so no two ever run together."""
    wanted = None if elements is None else set(elements)
    name_width = max(len(element) for element in MEANINGS) + 2
    blink_width = max(len(how_it_looks(element)) for element in MEANINGS) + 2
    lines = []
    for heading, group in zip(GROUP_NAMES, ELEMENT_GROUPS):
        shown = [element for element in group if wanted is None or element in wanted]
        if not shown:
            continue
        if wanted is None:
            lines.append(f"{heading}:")
        for element in shown:
            code, meaning = MEANINGS[element]
            lines.append(f"  {swatch(palette.colours[element], code, in_colour)} {element:<{name_width}}"
                         f"{how_it_looks(element):<{blink_width}}{meaning}")
    return lines


SVG_WIDTH = 1100
# Upper bounds of a character's advance at 14 px (DejaVu Sans, the widest of the usual fallbacks, and
# its bold): the picture's columns and line breaks are set from them, so no text overruns its place.
TEXT_ADVANCE, BOLD_ADVANCE = 8.5, 9.5
SWATCH_WIDTH, ROW = 40, 22


def legend_svg(palettes: Iterable[Palette]) -> str:
    """The legend as a picture: one swatch per palette under its name, then name, blink and meaning,
    broken into lines that fit the picture's width."""
    palettes = list(palettes)
    column = max(SWATCH_WIDTH, *(round(len(palette.name) * BOLD_ADVANCE) for palette in palettes)) + 16
    swatch_x, text_x = 20, 20 + column * len(palettes)
    fits = int((SVG_WIDTH - text_x - 20) / TEXT_ADVANCE)
    rows: list[str] = []
    y = 30
    for index, palette in enumerate(palettes):
        rows.append(f'<text x="{swatch_x + column * index}" y="{y}" class="head">{escape(palette.name)}</text>')
    for heading, group in zip(GROUP_NAMES, ELEMENT_GROUPS):
        y += ROW + 6
        rows.append(f'<text x="{swatch_x}" y="{y}" class="head">{escape(heading)}</text>')
        for element in group:
            y += ROW
            for index, palette in enumerate(palettes):
                red, green, blue = palette.colours[element]
                rows.append(f'<rect x="{swatch_x + column * index}" y="{y - 14}" width="{SWATCH_WIDTH}" height="16" '
                            f'rx="3" fill="rgb({red},{green},{blue})" stroke="#444"/>')
            code, meaning = MEANINGS[element]
            first, *more = textwrap.wrap(f"({code}), {how_it_looks(element)}: {meaning}", fits,
                                         initial_indent=" " * (len(element) + 1))
            rows.append(f'<text x="{text_x}" y="{y}"><tspan class="name">{escape(element)}</tspan> '
                        f'{escape(first.strip())}</text>')
            for line in more:
                y += ROW - 4
                rows.append(f'<text x="{text_x}" y="{y}">{escape(line)}</text>')
    height = y + 20
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_WIDTH}" height="{height}" '
            f'viewBox="0 0 {SVG_WIDTH} {height}">\n'
            '<style>text { font: 14px sans-serif; fill: #222 } .head { font-weight: bold } '
            '.name { font-family: monospace }</style>\n'
            f'<rect width="{SVG_WIDTH}" height="{height}" fill="#fafafa"/>\n' + "\n".join(rows) + "\n</svg>\n")
