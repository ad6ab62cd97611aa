"""tavli-board: a Raspberry Pi referee for a physical Tavli board."""
import importlib
import sys
import types
from importlib.util import find_spec

__version__ = "0.1.0"


def _defer_importlib_metadata() -> None:
    """gpiozero imports `importlib_metadata` (else the standard library's importlib.metadata, which
    brings email, zipfile and csv: 1.2 MB of the service's memory, whose goal is 40 MB on a Pi Zero
    2 W) only to look pin factories up by name, which this package never asks of it (hw/gpio.py names
    the factory's class). Unless that backport is installed, its name is given to a stand-in that
    loads the standard library's module on first use."""
    if "importlib_metadata" in sys.modules or find_spec("importlib_metadata") is not None:
        return
    stand_in = types.ModuleType("importlib_metadata", "importlib.metadata, loaded on first use")

    def entry_points(**selection):
        return importlib.import_module("importlib.metadata").entry_points(**selection)

    def __getattr__(name: str):
        if name.startswith("__"):    # the import system's questions (`__path__`...): not a package
            raise AttributeError(name)
        return getattr(importlib.import_module("importlib.metadata"), name)

    stand_in.entry_points = entry_points
    stand_in.__getattr__ = __getattr__
    sys.modules["importlib_metadata"] = stand_in


_defer_importlib_metadata()
