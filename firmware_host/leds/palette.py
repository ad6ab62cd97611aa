"""How each scene element looks: its blink pattern and intensity (fixed) and its colour (per palette).

Colour is never the only signal: within each group of LEDs (the board locations, the dice, the
turn lights, the score lights) no two elements share both blink pattern and intensity. A hint is
dim and slow, an error fast. A blink dims to `LOW_LEVEL` and never goes dark, so a lit location
stays visible and its element can be read back at any instant.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from firmware_host.leds.scene import DiceSignal, Mark

RGB = tuple[int, int, int]

LOW_LEVEL = 0.35  # the dim half of a blink, as a share of the element's level


class Blink(enum.Enum):
    """A blink pattern: (period in seconds, bright windows as fractions of the period); None: steady."""

    STEADY = None
    SLOW = (2.0, ((0.0, 0.5),))  # hints: a slow, even pulse
    FAST = (0.25, ((0.0, 0.5),))  # errors
    DOUBLE = (1.2, ((0.0, 0.1), (0.2, 0.3)))  # faults: two quick flashes, then a pause
    FLASH = (0.8, ((0.0, 0.25),))  # "take from here": mostly dim, short bright flashes
    WINK = (0.8, ((0.0, 0.75),))  # "put here": mostly bright, short dips
    LEAD = (1.6, ((0.0, 0.5),))  # a replayed move's origin, bright in the first half ...
    FOLLOW = (1.6, ((0.5, 1.0),))  # ... and its destination in the second: the light moves

    def level(self, t: float) -> float:
        """1.0 if time `t` falls in a bright window of the pattern, else `LOW_LEVEL`."""
        if self.value is None:
            return 1.0
        period, windows = self.value
        phase = t % period / period
        return 1.0 if any(start <= phase < end for start, end in windows) else LOW_LEVEL


@dataclass(frozen=True)
class Style:
    blink: Blink
    intensity: float  # share of full brightness at the bright level


# Element names of the LED groups that are not board locations.
DIE = "die"
TURN = "turn"
SCORE_WON = "score-won"  # one light per point won
SCORE_TO_PLAY = "score-to-play"  # one dim light per point still needed to reach the target

LOCATION_ELEMENTS = tuple(mark.value for mark in Mark)
DICE_ELEMENTS = (DIE,) + tuple(signal.value for signal in DiceSignal)
TURN_ELEMENTS = (TURN,)
SCORE_ELEMENTS = (SCORE_WON, SCORE_TO_PLAY)
ELEMENT_GROUPS = (LOCATION_ELEMENTS, DICE_ELEMENTS, TURN_ELEMENTS, SCORE_ELEMENTS)

STYLES: Mapping[str, Style] = MappingProxyType(
    {
        Mark.LEGAL_DESTINATION: Style(Blink.SLOW, 0.5),
        Mark.LIFTED_ORIGIN: Style(Blink.STEADY, 1.0),
        Mark.ILLEGAL: Style(Blink.FAST, 1.0),
        Mark.TAKE_FROM: Style(Blink.FLASH, 1.0),
        Mark.PUT_ON: Style(Blink.WINK, 1.0),
        Mark.LAST_PLAY_ORIGIN: Style(Blink.LEAD, 1.0),
        Mark.LAST_PLAY_DESTINATION: Style(Blink.FOLLOW, 1.0),
        Mark.SENSOR_FAULT: Style(Blink.DOUBLE, 1.0),
        DIE: Style(Blink.STEADY, 1.0),
        DiceSignal.WAITING: Style(Blink.SLOW, 0.5),
        DiceSignal.NO_LEGAL_MOVE: Style(Blink.WINK, 1.0),
        DiceSignal.ROLL_REFUSED: Style(Blink.FAST, 1.0),
        DiceSignal.BUTTON_STUCK: Style(Blink.DOUBLE, 1.0),
        DiceSignal.BLOCKADE: Style(Blink.FLASH, 1.0),
        DiceSignal.STORAGE_FAULT: Style(Blink.DOUBLE, 0.6),
        DiceSignal.JOURNAL_DAMAGED: Style(Blink.FAST, 0.6),
        DiceSignal.REMOTE_FAULT: Style(Blink.FLASH, 0.6),
        TURN: Style(Blink.STEADY, 1.0),
        SCORE_WON: Style(Blink.STEADY, 1.0),
        SCORE_TO_PLAY: Style(Blink.STEADY, 0.3),
    }
)

# Two colours closer than this (in RGB direction) are too alike to tell apart, for eyes and decode.
MIN_HUE_ANGLE_DEGREES = 10.0


def hue_angle(first: RGB, second: RGB) -> float:
    """The angle in degrees between two colours as RGB vectors: 0 for the same hue at any level."""
    dot = sum(a * b for a, b in zip(first, second))
    norms = math.hypot(*first) * math.hypot(*second)
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / norms))))


@dataclass(frozen=True)
class Palette:
    """A colour at full level for every element name; colours within a group are distinct."""

    name: str
    colours: Mapping[str, RGB]

    def __post_init__(self):
        colours = {str(element): tuple(colour) for element, colour in self.colours.items()}
        expected = {element for group in ELEMENT_GROUPS for element in group}
        if set(colours) != expected:
            raise ValueError(
                f"palette {self.name!r} must give a colour for exactly these elements: {sorted(expected)}"
            )
        for element, colour in colours.items():
            if len(colour) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in colour) or not any(colour):
                raise ValueError(f"palette {self.name!r}: {element} is {colour!r}; allowed: (r, g, b) 0..255, not black")
        for group in ELEMENT_GROUPS:
            for index, first in enumerate(group):
                for second in group[index + 1 :]:
                    if hue_angle(colours[first], colours[second]) < MIN_HUE_ANGLE_DEGREES:
                        raise ValueError(f"palette {self.name!r}: {first} and {second} are too alike in colour")
        object.__setattr__(self, "colours", MappingProxyType(colours))


STANDARD = Palette(
    "standard",
    {
        Mark.LEGAL_DESTINATION: (0, 255, 0),
        Mark.LIFTED_ORIGIN: (255, 255, 255),
        Mark.ILLEGAL: (255, 0, 0),
        Mark.TAKE_FROM: (255, 100, 0),
        Mark.PUT_ON: (0, 255, 255),
        Mark.LAST_PLAY_ORIGIN: (0, 0, 255),
        Mark.LAST_PLAY_DESTINATION: (255, 0, 255),
        Mark.SENSOR_FAULT: (255, 220, 0),
        DIE: (255, 255, 255),
        DiceSignal.WAITING: (0, 0, 255),
        DiceSignal.NO_LEGAL_MOVE: (255, 100, 0),
        DiceSignal.ROLL_REFUSED: (255, 0, 0),
        DiceSignal.BUTTON_STUCK: (255, 220, 0),
        DiceSignal.BLOCKADE: (255, 0, 255),
        DiceSignal.STORAGE_FAULT: (0, 255, 255),
        DiceSignal.JOURNAL_DAMAGED: (0, 255, 0),
        DiceSignal.REMOTE_FAULT: (128, 0, 255),
        TURN: (255, 255, 255),
        SCORE_WON: (255, 220, 0),
        SCORE_TO_PLAY: (0, 0, 255),
    },
)

# The Okabe-Ito colours, each scaled so its strongest channel is 255 (an LED has no grey levels to
# spare): told apart with any common colour-vision deficiency.
COLOUR_BLIND = Palette(
    "colour-blind",
    {
        Mark.LEGAL_DESTINATION: (0, 255, 186),  # bluish green
        Mark.LIFTED_ORIGIN: (255, 255, 255),
        Mark.ILLEGAL: (255, 113, 0),  # vermillion
        Mark.TAKE_FROM: (255, 176, 0),  # orange
        Mark.PUT_ON: (94, 197, 255),  # sky blue
        Mark.LAST_PLAY_ORIGIN: (0, 163, 255),  # blue
        Mark.LAST_PLAY_DESTINATION: (255, 151, 209),  # reddish purple
        Mark.SENSOR_FAULT: (255, 242, 70),  # yellow
        DIE: (255, 255, 255),
        DiceSignal.WAITING: (94, 197, 255),
        DiceSignal.NO_LEGAL_MOVE: (255, 176, 0),
        DiceSignal.ROLL_REFUSED: (255, 113, 0),
        DiceSignal.BUTTON_STUCK: (255, 242, 70),
        DiceSignal.BLOCKADE: (255, 151, 209),
        DiceSignal.STORAGE_FAULT: (0, 163, 255),
        DiceSignal.JOURNAL_DAMAGED: (0, 255, 186),
        DiceSignal.REMOTE_FAULT: (128, 0, 255),  # violet: Okabe-Ito's eight are taken; its blink tells it apart
        TURN: (255, 255, 255),
        SCORE_WON: (255, 242, 70),
        SCORE_TO_PLAY: (0, 163, 255),
    },
)

PALETTES: Mapping[str, Palette] = MappingProxyType({palette.name: palette for palette in (STANDARD, COLOUR_BLIND)})
