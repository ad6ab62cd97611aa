"""Choosing gpiozero's pin factory for the Pi this runs on.

RPi.GPIO (the rpi-lgpio drop-in, see pyproject's `pi` extra) on a Pi 1-4 and lgpio on a Pi 5, whose
GPIO RPi.GPIO cannot drive. Off a Pi there is no real GPIO: tests and the simulator set gpiozero's
`MockFactory` themselves, so asking for real pins there is an error rather than a silent mock.
"""
from __future__ import annotations

from pathlib import Path

DEVICE_TREE_MODEL = Path("/proc/device-tree/model")


class NotARaspberryPi(RuntimeError):
    """Real GPIO pins were asked for on a machine that is not a Raspberry Pi."""


def pin_factory_name(model: str) -> str:
    """gpiozero's factory name for a board model string such as "Raspberry Pi 4 Model B Rev 1.4"."""
    if not model.startswith("Raspberry Pi"):
        raise NotARaspberryPi(
            f"this machine is {model!r}, not a Raspberry Pi: no real GPIO pins here"
            " (tests and the simulator use gpiozero's MockFactory)"
        )
    return "lgpio" if model.startswith("Raspberry Pi 5") else "rpigpio"


def open_pin_factory(model_file: Path = DEVICE_TREE_MODEL):
    """A gpiozero pin factory for this Pi, chosen from its device-tree model string."""
    try:
        # The device tree stores the model NUL-terminated.
        model = model_file.read_text(errors="replace").rstrip("\x00\n")
    except FileNotFoundError:
        raise NotARaspberryPi(f"{model_file} does not exist: not a Raspberry Pi, no real GPIO pins here") from None
    name = pin_factory_name(model)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    from gpiozero.pins.rpigpio import RPiGPIOFactory

    return RPiGPIOFactory()
