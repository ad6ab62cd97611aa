"""Choosing gpiozero's pin factory for the Pi this runs on.

RPi.GPIO (the rpi-lgpio drop-in, see pyproject's `pi` extra) on a Pi 1-4 and lgpio on a Pi 5, whose
GPIO RPi.GPIO cannot drive. Off a Pi there is no real GPIO: tests and the simulator ask for
`simulated_pin_factory` themselves, so asking for real pins there is an error rather than a silent mock.
"""
from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPin

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


PIN_HISTORY = 16   # the newest state changes a simulated pin keeps for a test or a person to look at


class RecentStatesPin(MockPin):
    """gpiozero's mock pin remembering only its newest `PIN_HISTORY` states: the stock one keeps every
    change since it was made, so a simulated board's button pressed for days grows without bound."""

    def _change_state(self, value: bool) -> bool:
        changed = super()._change_state(value)
        if len(self.states) > PIN_HISTORY:
            del self.states[0]
        return changed


def simulated_pin_factory() -> MockFactory:
    """Mock pins for the simulated board, the demo and the HIL rigs: driven from code, bounded in memory."""
    return MockFactory(pin_class=RecentStatesPin)
