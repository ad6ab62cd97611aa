import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


class VirtualClock:
    """A clock that only moves when the test says so."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def mock_pins(monkeypatch) -> MockFactory:
    """gpiozero's mock pins as the default pin factory, fresh for each test."""
    factory = MockFactory()
    monkeypatch.setattr(Device, "pin_factory", factory)
    yield factory
    factory.reset()
