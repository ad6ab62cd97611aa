"""The maker's documents, generated from the board file: `tavli-board maker-docs` writes
hardware/docs/ (`--check` compares instead; a test does the same), so they never drift from it.

- bom.md: the bill of materials (part, supplier part number, quantity, unit and total cost);
- netlist.json and schematic.svg: every part and net of the Pi side and the sensor side;
- location.svg: one location's mechanics, dimensioned from `[mechanics]`;
- layout.svg: the board from above, each location with its LED indices, for wiring the strip.

The assembly and bring-up guide, hardware/ASSEMBLY.md, is written by hand around these pictures and
docs/wiring/ (`tavli-board wiring`).
"""
from __future__ import annotations

import json
from pathlib import Path

from firmware_host.maker import bom, mechanics, netlist, schematic
from firmware_host.sensing.config import DEFAULT_BOARD_FILE
from firmware_host.wiring import BoardFacts, stale_in, write_into

DOCS_DIR = Path(__file__).resolve().parents[2] / "hardware" / "docs"
BOM, NETLIST, SCHEMATIC, LOCATION, LAYOUT = "bom.md", "netlist.json", "schematic.svg", "location.svg", "layout.svg"


def generate(board_file: Path = DEFAULT_BOARD_FILE) -> dict[str, str]:
    """File name -> contents of the maker's documents for the board file."""
    facts = BoardFacts.load(board_file)
    parts = netlist.build(facts)
    dimensions = mechanics.load_mechanics(board_file, facts.sensing, facts.leds.layout)
    return {
        BOM: bom.table(facts, parts, dimensions),
        NETLIST: json.dumps(netlist.as_json(parts), indent=1, ensure_ascii=False) + "\n",
        SCHEMATIC: schematic.drawing(parts, f"tavli-board schematic: the Pi side and the sensor side "
                                            f"({len(facts.sensing.sensors.channels.locations)} locations)"),
        LOCATION: mechanics.drawing(dimensions, facts.sensing, facts.leds.layout),
        LAYOUT: mechanics.layout_drawing(dimensions, facts.leds.layout),
    }


def stale_files(folder: Path = DOCS_DIR, board_file: Path = DEFAULT_BOARD_FILE) -> list[str]:
    return stale_in(folder, generate(board_file))


def write(folder: Path = DOCS_DIR, board_file: Path = DEFAULT_BOARD_FILE) -> list[Path]:
    return write_into(folder, generate(board_file))
