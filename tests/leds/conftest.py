import pytest

from firmware_host.leds.layout import load_led_config
from firmware_host.leds.render import Renderer


@pytest.fixture(scope="session")
def shipped_config(shipped_board_file):
    return load_led_config(shipped_board_file)


@pytest.fixture(scope="session")
def layout(shipped_config):
    """The shipped 200-LED layout: 6 LEDs per point, 7-LED pip dice, 7 score lights a side."""
    return shipped_config.layout


@pytest.fixture(scope="session")
def renderer(shipped_config):
    return Renderer.from_config(shipped_config)
