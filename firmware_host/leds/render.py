"""Scenes to pixels, and pixels back to scene element names.

`Renderer.render(scene, t)` gives a whole frame (every LED, every time): each lit LED shows its
element's palette colour at the element's intensity and blink level at time `t`, times the global
brightness, times a current-cap factor. The cap factor is worked out once per scene from its
brightest instant, so a capped scene does not pulse as its blinking LEDs turn bright and dim.

`Renderer.decode(frame, t)` reads a frame back into element names (see `names(scene)` for what a
scene reads as). It requires every lit LED to match, within rounding, exactly the colour some
element of that LED's group has at time `t` under the frame's cap factor (found from the frame); so
it checks blink phase and intensity as well as hue, and anything else reads "unknown".
"""
from __future__ import annotations

import functools
from typing import Iterable

from firmware_host.leds.layout import DICE_FACES, LedConfig, LedLayout
from firmware_host.leds.palette import (
    DICE_ELEMENTS,
    DIE,
    LOCATION_ELEMENTS,
    LOW_LEVEL,
    PALETTES,
    RGB,
    SCORE_ELEMENTS,
    SCORE_TO_PLAY,
    SCORE_WON,
    STYLES,
    TURN,
    TURN_ELEMENTS,
    Palette,
    hue_angle,
)
from firmware_host.leds.scene import SIDES, DiceSignal, Scene

Frame = tuple[RGB, ...]
OFF: RGB = (0, 0, 0)
UNKNOWN = "unknown"

# A WS2812B draws about 20 mA per colour channel at full value (60 mA for full white) on top of
# about 1 mA that its controller draws even when dark.
MA_PER_LED_FULL_WHITE = 60.0
MA_PER_LED_IDLE = 1.0
_MA_PER_CHANNEL_UNIT = MA_PER_LED_FULL_WHITE / (3 * 255)

# How far (per channel) a decoded LED may be from the expected colour: rounding in the renderer
# plus the error of the cap factor estimated from the frame.
_DECODE_TOLERANCE = 1.5

# Every signal but NO_LEGAL_MOVE (which shows the dice in its own style) lights both dice faces whole.
_ALL_LEDS_SIGNALS = tuple(signal for signal in DiceSignal if signal is not DiceSignal.NO_LEGAL_MOVE)


def idle_current_ma(count: int) -> float:
    """What a strip of `count` LEDs draws when dark."""
    return count * MA_PER_LED_IDLE


def frame_current_ma(frame: Iterable[RGB]) -> float:
    """The current a frame draws: every LED's idle draw plus 60 mA per LED at full white."""
    frame = tuple(frame)
    return idle_current_ma(len(frame)) + sum(sum(pixel) for pixel in frame) * _MA_PER_CHANNEL_UNIT


def _scaled(colour: tuple[float, float, float], factor: float) -> RGB:
    return tuple(int(channel * factor + 0.5) for channel in colour)


class Renderer:
    """Renders scenes for one LED layout, palette, brightness and current cap."""

    def __init__(self, layout: LedLayout, palette: Palette, *, brightness: float, max_current_ma: float):
        if not 0 < brightness <= 1:
            raise ValueError(f"brightness is {brightness!r}; allowed: more than 0, at most 1")
        if max_current_ma <= 0:
            raise ValueError(f"max_current_ma is {max_current_ma!r}; allowed: more than 0")
        self.layout = layout
        self.max_current_ma = max_current_ma
        # Each element's colour at its bright level and the global brightness, before the cap.
        self._bright = {
            element: tuple(channel * STYLES[element].intensity * brightness for channel in colour)
            for element, colour in palette.colours.items()
        }
        self._groups = layout.groups()
        self._plan = functools.lru_cache(maxsize=64)(self._make_plan)

    @classmethod
    def from_config(cls, config: LedConfig) -> Renderer:
        return cls(
            config.layout,
            PALETTES[config.palette],
            brightness=config.brightness,
            max_current_ma=config.max_current_ma,
        )

    # -- rendering

    def render(self, scene: Scene, t: float) -> Frame:
        """The whole frame showing `scene` at time `t` (seconds, any epoch; it sets blink phases)."""
        pixels = [OFF] * self.layout.count
        for indices, blink, bright, dim in self._plan(scene):
            colour = bright if blink.level(t) == 1.0 else dim
            for index in indices:
                pixels[index] = colour
        return tuple(pixels)

    def _lit_groups(self, scene: Scene) -> list[tuple[tuple[int, ...], str]]:
        """(LED indices, element name) for everything `scene` lights."""
        layout = self.layout
        lit = [(layout.locations[location], mark.value) for location, mark in scene.marks.items()]
        if scene.dice_signal in _ALL_LEDS_SIGNALS:
            lit += [(indices, scene.dice_signal.value) for indices in layout.dice]
        elif scene.dice is not None:
            element = DiceSignal.NO_LEGAL_MOVE.value if scene.dice_signal else DIE
            faces = DICE_FACES[layout.dice_style]
            for indices, value in zip(layout.dice, scene.dice):
                lit.append((tuple(indices[position] for position in sorted(faces[value])), element))
        if scene.turn is not None:
            lit.append((layout.turn[scene.turn], TURN))
        if scene.score is not None:
            for side in SIDES:
                won, target = self._score_lights(scene, side)
                lights = layout.score[side]
                lit += [(lights[:won], SCORE_WON), (lights[won:target], SCORE_TO_PLAY)]
        return [(indices, element) for indices, element in lit if indices]

    def _score_lights(self, scene: Scene, side: str) -> tuple[int, int]:
        """How many score lights of `side` show points won, and up to which light the target goes."""
        lights = len(self.layout.score[side])
        won = min(scene.score.of(side), lights)
        return won, max(won, min(scene.score.target, lights))

    def _make_plan(self, scene: Scene):
        """(LED indices, blink, bright colour, dim colour) per lit group, the cap already applied."""
        lit = self._lit_groups(scene)
        peak_units = sum(len(indices) * sum(self._bright[element]) for indices, element in lit)
        # Rounding may add half a unit per channel: keep room for it so the cap always holds.
        rounding_units = sum(len(indices) for indices, _ in lit) * 3 * 0.5
        cap_units = (self.max_current_ma - idle_current_ma(self.layout.count)) / _MA_PER_CHANNEL_UNIT - rounding_units
        factor = 1.0 if peak_units <= cap_units else max(cap_units, 0.0) / peak_units
        return tuple(
            (
                indices,
                STYLES[element].blink,
                _scaled(self._bright[element], factor),
                _scaled(self._bright[element], factor * LOW_LEVEL),
            )
            for indices, element in lit
        )

    # -- reading back

    def names(self, scene: Scene) -> dict[str, str]:
        """What `decode` reads for a frame of `scene`: LED group name -> element name.

        Locations give their mark ("legal-destination", ...); "dice:1"/"dice:2" give "die:<value>",
        "no-legal-move:<value>", "waiting" or "roll-refused"; "turn:<side>" gives "turn";
        "score:<side>" gives "score:<won>/<target>" as far as the score lights can show it.
        Dark groups are left out.
        """
        names = {location: mark.value for location, mark in scene.marks.items()}
        if scene.dice_signal in _ALL_LEDS_SIGNALS:
            names.update({f"dice:{number}": scene.dice_signal.value for number in (1, 2)})
        elif scene.dice is not None:
            element = DiceSignal.NO_LEGAL_MOVE.value if scene.dice_signal else DIE
            names.update({f"dice:{number}": f"{element}:{value}" for number, value in enumerate(scene.dice, 1)})
        if scene.turn is not None:
            names[f"turn:{scene.turn}"] = TURN
        if scene.score is not None:
            for side in SIDES:
                won, target = self._score_lights(scene, side)
                names[f"score:{side}"] = f"score:{won}/{target}"
        return names

    def decode(self, frame: Frame, t: float) -> dict[str, str]:
        """Read a frame rendered at time `t` back into LED group name -> element name.

        Works on frames from `render` and on pixels read back from a strip, at any brightness and
        cap factor; a group whose LEDs match no element at time `t` (or a mix) reads "unknown".
        """
        if len(frame) != self.layout.count:
            raise ValueError(f"frame has {len(frame)} pixels; the strip has {self.layout.count}")
        # The cap factor is unknown: try the one each lit group implies (and none), and keep the
        # reading that explains the most groups; on a tie the least dimmed one.
        best: dict[str, str] = {}
        fewest_unknown = None
        for factor in self._cap_factor_candidates(frame, t):
            names = self._decode_with(frame, t, factor)
            unknown = sum(1 for name in names.values() if name == UNKNOWN)
            if fewest_unknown is None or unknown < fewest_unknown:
                best, fewest_unknown = names, unknown
        return best

    def _cap_factor_candidates(self, frame: Frame, t: float) -> list[float]:
        """1.0 and, below it, the cap factor implied by each lit group's brightest LED, largest first."""
        candidates = {1.0}
        for group, indices in self._groups.items():
            brightest = max((frame[index] for index in indices), key=max)
            if brightest == OFF:
                continue
            element = min(self._group_elements(group), key=lambda element: hue_angle(brightest, self._bright[element]))
            factor = max(brightest) / (max(self._bright[element]) * STYLES[element].blink.level(t))
            if factor < 1.0:
                candidates.add(round(factor, 4))  # rounded so that near-equal factors count once
        return sorted(candidates, reverse=True)

    def _decode_with(self, frame: Frame, t: float, factor: float) -> dict[str, str]:
        names = {}
        for group, indices in self._groups.items():
            elements = self._group_elements(group)
            read = [self._read_pixel(frame[index], elements, t, factor) for index in indices]
            if any(element is not None for element in read):
                names[group] = self._name_group(group, read)
        return names

    @staticmethod
    def _group_elements(group: str) -> tuple[str, ...]:
        if group.startswith("dice:"):
            return DICE_ELEMENTS
        if group.startswith("turn:"):
            return TURN_ELEMENTS
        if group.startswith("score:"):
            return SCORE_ELEMENTS
        return LOCATION_ELEMENTS

    def _read_pixel(self, pixel: RGB, elements: tuple[str, ...], t: float, factor: float) -> str | None:
        """The element this pixel shows at time `t`, None when dark, UNKNOWN when none fits."""
        if pixel == OFF:
            return None
        best, best_error = UNKNOWN, _DECODE_TOLERANCE
        for element in elements:
            expected = _scaled(self._bright[element], factor * STYLES[element].blink.level(t))
            error = max(abs(seen - wanted) for seen, wanted in zip(pixel, expected))
            if error <= best_error:
                best, best_error = element, error
        return best

    def _name_group(self, group: str, read: list[str | None]) -> str:
        lit = {element for element in read if element is not None}
        if UNKNOWN in lit:
            return UNKNOWN
        if group.startswith("dice:"):
            return self._name_die(read, lit)
        if group.startswith("score:"):
            return self._name_score(read)
        return lit.pop() if len(lit) == 1 and None not in read else UNKNOWN

    def _name_die(self, read: list[str | None], lit: set[str]) -> str:
        if len(lit) != 1:
            return UNKNOWN
        element = lit.pop()
        shown = frozenset(position for position, seen in enumerate(read) if seen is not None)
        if element in _ALL_LEDS_SIGNALS:
            return element if len(shown) == len(read) else UNKNOWN
        for value, face in DICE_FACES[self.layout.dice_style].items():
            if face == shown:
                return f"{element}:{value}"
        return UNKNOWN

    @staticmethod
    def _name_score(read: list[str | None]) -> str:
        won = 0
        while won < len(read) and read[won] == SCORE_WON:
            won += 1
        target = won
        while target < len(read) and read[target] == SCORE_TO_PLAY:
            target += 1
        if any(element is not None for element in read[target:]):
            return UNKNOWN
        return f"score:{won}/{target}"
