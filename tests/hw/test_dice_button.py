"""The dice button in virtual time on gpiozero's mock pins: press, hold, bounce, stuck, release."""
import pytest
from gpiozero.pins.mock import MockPin

from firmware_host.hw import (
    ButtonConfig,
    DiceButton,
    DiceButtonFreed,
    DiceButtonStuck,
    DiceHeld,
    DicePressed,
)

PIN = 17
CONFIG = ButtonConfig(pin=PIN, debounce_s=0.02, hold_s=2.0, stuck_s=30.0)


class Rig:
    """A dice button on a mock pin, driven at chosen virtual times."""

    def __init__(self, mock_pins, clock, config=CONFIG):
        self.clock = clock
        self.events = []
        self.pin = mock_pins.pin(config.pin)
        self.button = DiceButton(config, self.events.append, clock)

    def down(self, t):
        self.clock.now = t
        self.pin.drive_low()

    def up(self, t):
        self.clock.now = t
        self.pin.drive_high()

    def poll(self, t):
        self.clock.now = t
        self.button.poll()


@pytest.fixture
def rig(mock_pins, clock):
    return Rig(mock_pins, clock)


def test_a_short_press_rolls_at_its_release(rig):
    rig.down(1.0)
    rig.poll(1.5)
    assert rig.events == []  # a press might still become a hold
    rig.up(1.6)
    rig.poll(1.61)
    assert rig.events == []  # the release has not lasted the debounce time yet
    rig.poll(1.7)
    assert rig.events == [DicePressed(at=1.6)]


def test_a_hold_is_reported_once_at_the_hold_time_and_its_release_does_not_roll(rig):
    rig.down(1.0)
    for tick in range(10, 60):
        rig.poll(tick / 10)
    rig.up(6.0)
    rig.poll(7.0)
    assert rig.events == [DiceHeld(at=3.0)]


def test_a_chattering_contact_gives_one_press(rig):
    for edge in range(6):  # closing: the contact bounces for 5 ms
        (rig.down if edge % 2 == 0 else rig.up)(1.0 + edge * 0.001)
    rig.down(1.006)
    rig.poll(1.2)
    for edge in range(6):  # opening: bounces again
        (rig.up if edge % 2 == 0 else rig.down)(1.5 + edge * 0.001)
    rig.up(1.506)
    rig.poll(1.6)
    assert rig.events == [DicePressed(at=1.506)]


def test_a_glitch_shorter_than_the_debounce_time_is_ignored(rig):
    rig.down(1.0)
    rig.up(1.01)
    rig.poll(1.5)
    assert rig.events == []


def test_a_press_on_the_hold_boundary(mock_pins, clock):
    just_short = Rig(mock_pins, clock)
    just_short.down(1.0)
    just_short.up(2.999)
    just_short.poll(4.0)
    assert just_short.events == [DicePressed(at=2.999)]
    just_short.button.close()

    exactly = Rig(mock_pins, clock)
    exactly.down(5.0)
    exactly.up(7.0)
    exactly.poll(8.0)
    assert exactly.events == [DiceHeld(at=7.0)]


def test_a_release_still_settling_at_the_hold_time_is_not_a_hold(rig):
    rig.down(1.0)
    rig.up(2.99)
    rig.poll(3.001)  # past the hold time, but the release edge before it has not settled yet
    assert rig.events == []
    rig.poll(3.05)
    assert rig.events == [DicePressed(at=2.99)]


@pytest.mark.parametrize("polls", [[100.0], [tick / 4 for tick in range(400)]])
def test_events_do_not_depend_on_how_often_the_loop_polls(rig, polls):
    rig.down(1.0)
    rig.up(1.5)
    rig.down(10.0)
    rig.up(13.0)
    for t in polls:
        rig.poll(t)
    assert rig.events == [DicePressed(at=1.5), DiceHeld(at=12.0)]


def test_a_stuck_button_is_reported_once_and_freed_at_release(rig):
    rig.down(1.0)
    for second in range(2, 120):
        rig.poll(float(second))
    assert rig.events == [DiceHeld(at=3.0), DiceButtonStuck(at=31.0)]
    rig.up(120.0)
    rig.poll(121.0)
    assert rig.events == [DiceHeld(at=3.0), DiceButtonStuck(at=31.0), DiceButtonFreed(at=120.0)]
    rig.down(130.0)
    rig.up(130.5)
    rig.poll(131.0)
    assert rig.events[-1] == DicePressed(at=130.5)  # works normally again


class HeldDownPin(MockPin):
    """A pin whose button is held down: setting the pull-up cannot raise it (MockPin's would)."""

    def _set_pull(self, value):
        self._pull = value


def test_a_button_already_down_at_start_does_not_roll(mock_pins, clock):
    mock_pins.pin(PIN, pin_class=HeldDownPin).drive_low()
    rig = Rig(mock_pins, clock)
    assert rig.button.next_deadline() == CONFIG.stuck_s  # it counts as held since the start
    rig.up(1.0)
    rig.poll(2.0)
    assert rig.events == []


def test_a_button_stuck_down_from_the_start_is_reported(mock_pins, clock):
    mock_pins.pin(PIN, pin_class=HeldDownPin).drive_low()
    clock.now = 5.0
    rig = Rig(mock_pins, clock)
    rig.poll(40.0)
    assert rig.events == [DiceButtonStuck(at=35.0)]


def test_next_deadline_tells_the_loop_when_to_poll(rig):
    assert rig.button.next_deadline() is None
    rig.down(1.0)
    assert rig.button.next_deadline() == pytest.approx(1.02)  # the press settles
    rig.poll(1.5)
    assert rig.button.next_deadline() == 3.0  # it becomes a hold
    rig.poll(3.0)
    assert rig.button.next_deadline() == 31.0  # it becomes stuck
    rig.poll(31.0)
    assert rig.button.next_deadline() is None
    rig.up(40.0)
    assert rig.button.next_deadline() == pytest.approx(40.02)


def test_a_button_wired_to_3v3_presses_on_a_high_level(mock_pins, clock):
    rig = Rig(mock_pins, clock, ButtonConfig(pin=22, pull_up=False))
    rig.up(1.0)  # drive_high: pressed
    rig.down(1.2)
    rig.poll(2.0)
    assert rig.events == [DicePressed(at=1.2)]
