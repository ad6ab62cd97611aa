"""The LED strip's settings and layout, from the `[leds]` tables of the board file.

```toml
[leds]
driver = "auto"           # GPIO10, no root: SPI on a Pi 1-4, PIO on a Pi 5; or "neopixel_spi", or
                          # "neopixel" with `pin = "D18"` (a Blinka pin name); read by hw.pinmap
count = 200               # LEDs on the strip
pixel_order = "GRB"
brightness = 0.3          # global brightness, 0..1
max_current_ma = 2000     # the LEDs' budget, idle draw included: brighter frames are scaled down
palette = "standard"      # or "colour-blind"
dice_style = "pips"       # each die is 7 LEDs in pip positions; "row": 6 LEDs, n lit show n

[leds.locations]          # every location: "1".."24", "bar:white", "bar:black", "off:white", "off:black"
"1" = [0, 1, 2, 3, 4, 5]
[leds.dice]               # "1" and "2": pips in the order top-left, top-right, middle-left,
"1" = [170, 171, 172, 173, 174, 175, 176]   # centre, middle-right, bottom-left, bottom-right
[leds.turn]               # white, black: lit for the side to move
[leds.score]              # white, black: one light per point, first point first
```

Every LED index must be below `count` and used once; every group must be present.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from firmware_host.hw.boardfile import Table, read_board_file
from firmware_host.hw.pinmap import LedDataLine, read_led_data_line
from firmware_host.leds.palette import PALETTES
from firmware_host.leds.scene import LOCATIONS, SIDES

MAX_LEDS = 2000
PIXEL_ORDERS = ("GRB", "RGB", "BRG", "BGR", "RBG", "GBR")

# Which of a die's LEDs show each value. "pips": the 7 positions listed in the module docstring.
DICE_FACES: Mapping[str, Mapping[int, frozenset[int]]] = MappingProxyType(
    {
        "pips": MappingProxyType(
            {
                1: frozenset({3}),
                2: frozenset({0, 6}),
                3: frozenset({0, 3, 6}),
                4: frozenset({0, 1, 5, 6}),
                5: frozenset({0, 1, 3, 5, 6}),
                6: frozenset({0, 1, 2, 4, 5, 6}),
            }
        ),
        "row": MappingProxyType({value: frozenset(range(value)) for value in range(1, 7)}),
    }
)
DICE_LEDS = {"pips": 7, "row": 6}


@dataclass(frozen=True)
class LedLayout:
    """LED indices of every group. Built by `parse_led_config`, which checks it."""

    count: int
    locations: Mapping[str, tuple[int, ...]]  # every name of scene.LOCATIONS
    dice: tuple[tuple[int, ...], tuple[int, ...]]  # the first and second die
    dice_style: str  # a key of DICE_FACES
    turn: Mapping[str, tuple[int, ...]]  # "white", "black"
    score: Mapping[str, tuple[int, ...]]  # "white", "black"; the first point won lights the first

    def groups(self) -> dict[str, tuple[int, ...]]:
        """Every named LED group: the locations, "dice:1", "dice:2", "turn:<side>", "score:<side>"."""
        groups = dict(self.locations)
        groups.update({f"dice:{number}": indices for number, indices in enumerate(self.dice, start=1)})
        groups.update({f"turn:{side}": indices for side, indices in self.turn.items()})
        groups.update({f"score:{side}": indices for side, indices in self.score.items()})
        return groups


@dataclass(frozen=True)
class LedConfig:
    data_line: LedDataLine
    pixel_order: str
    brightness: float
    max_current_ma: float
    palette: str  # a key of palette.PALETTES
    layout: LedLayout


def _read_groups(table: Table, names, *, length: int | None = None) -> dict[str, tuple[int, ...]]:
    groups = {name: table.index_list(name, length=length) for name in names}
    table.finish()
    return groups


def _check_indices(count: int, tables: list[tuple[Table, dict[str, tuple[int, ...]]]]) -> None:
    """Every LED index on the strip and used by one group only."""
    owner: dict[int, str] = {}
    for table, groups in tables:
        for name, indices in groups.items():
            for index in indices:
                if index >= count:
                    raise table.error(name, f"LED {index} is past the end of the strip", f"0..{count - 1} (count = {count})")
                if index in owner:
                    raise table.error(name, f"LED {index} is also used by {owner[index]}", "each LED in one group only")
                owner[index] = table.key_path(name)


def load_led_config(path: Path | str) -> LedConfig:
    """Read and check the `[leds]` tables of the board file at `path`; other tables are ignored."""
    return parse_led_config(read_board_file(path), Path(path))


def parse_led_config(document: dict[str, Any], path: Path | str) -> LedConfig:
    """The `[leds]` tables of a parsed board file; errors name `path` (the file it came from, or
    the one whose settings were merged into it)."""
    table = Table.of(path, document, "leds")
    data_line = read_led_data_line(table)
    count = table.integer("count", minimum=1, maximum=MAX_LEDS)
    pixel_order = table.choice("pixel_order", PIXEL_ORDERS, default="GRB")
    brightness = table.number("brightness", default=0.3, minimum=0.01, maximum=1.0)
    max_current_ma = table.number("max_current_ma", default=2000.0, minimum=100.0, maximum=100_000.0)
    palette = table.choice("palette", PALETTES, default="standard")
    dice_style = table.choice("dice_style", DICE_FACES, default="pips")
    names = {"locations": LOCATIONS, "dice": ("1", "2"), "turn": SIDES, "score": SIDES}
    tables = {section: table.table(section) for section in names}
    table.finish()
    groups = {
        section: _read_groups(tables[section], names[section], length=DICE_LEDS[dice_style] if section == "dice" else None)
        for section in names
    }
    _check_indices(count, [(tables[section], groups[section]) for section in names])
    layout = LedLayout(
        count=count,
        locations=MappingProxyType(groups["locations"]),
        dice=(groups["dice"]["1"], groups["dice"]["2"]),
        dice_style=dice_style,
        turn=MappingProxyType(groups["turn"]),
        score=MappingProxyType(groups["score"]),
    )
    return LedConfig(data_line, pixel_order, brightness, max_current_ma, palette, layout)
