"""Loads the MCU firmware's plain-Python package (hardware/firmware/tavli_mcu) into this process.

The simulator runs the firmware itself rather than an imitation of it, so it cannot drift from
what the Pico runs. The firmware lives beside the package in the source tree (the Pi and the HIL
rig run from a checkout); it is not part of an installed wheel.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "hardware" / "firmware"
PACKAGE = "tavli_mcu"


def firmware_module(name: str) -> ModuleType:
    """`firmware_module("node")` is tavli_mcu.node, loaded from FIRMWARE_DIR on first use."""
    if PACKAGE not in sys.modules:
        init = FIRMWARE_DIR / PACKAGE / "__init__.py"
        if not init.is_file():
            raise RuntimeError(f"the MCU firmware is not at {init.parent}: the simulator runs it from a "
                               "source checkout of tavli-board")
        spec = importlib.util.spec_from_file_location(PACKAGE, init, submodule_search_locations=[str(init.parent)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.{name}")
