"""Which Raspberry Pi this is, from the device tree's model string (as install.sh reads it too).

The LEDs' default driver depends on it: a Pi 5 drives the data pin through the RP1's PIO, a Pi 1-4
through SPI0 (both without root, both on GPIO10).
"""
from __future__ import annotations

from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def read_model(path: Path = MODEL_FILE) -> str:
    """The model string ("Raspberry Pi 5 Model B Rev 1.0"), or "" off a Pi or without a device tree."""
    try:
        return path.read_bytes().rstrip(b"\0").decode("ascii", "replace").strip()
    except OSError:
        return ""


def is_pi5(model: str) -> bool:
    """A board with the RP1 I/O chip: the Pi 5, the Pi 500 and the Compute Module 5."""
    return model.startswith(("Raspberry Pi 5", "Raspberry Pi 500", "Raspberry Pi Compute Module 5"))
