"""The buzzer on a mock pin. gpiozero plays beeps on its own thread, so the test waits for the
pin's last state change (with a generous limit) and then checks the sequence of levels."""
import time

import pytest

from firmware_host.hw import Beep, Buzzer, BuzzerConfig


def beep_levels(buzzer, pin, meaning, changes: int) -> list[bool]:
    """The pin's level before `buzzer.beep(meaning)` and after each of its next `changes` changes."""
    before = len(pin.states)
    buzzer.beep(meaning)
    deadline = time.monotonic() + 5.0
    while len(pin.states) < before + changes and time.monotonic() < deadline:
        time.sleep(0.005)
    return [state.state for state in pin.states[before - 1 :]]


@pytest.mark.parametrize("meaning, beeps", [(Beep.ROLL_REFUSED, 1), (Beep.ILLEGAL_BOARD, 2)])
def test_each_meaning_beeps_its_number_of_times(mock_pins, meaning, beeps):
    buzzer = Buzzer(BuzzerConfig(pin=27, beep_s=0.01))
    pin = mock_pins.pin(27)
    assert beep_levels(buzzer, pin, meaning, 2 * beeps) == [False] + [True, False] * beeps
    buzzer.close()


def test_an_active_low_buzzer_beeps_by_pulling_its_pin_low(mock_pins):
    buzzer = Buzzer(BuzzerConfig(pin=27, active_high=False, beep_s=0.01))
    pin = mock_pins.pin(27)
    assert beep_levels(buzzer, pin, Beep.ROLL_REFUSED, 2) == [True, False, True]
    buzzer.close()


def test_without_a_pin_the_buzzer_uses_no_gpio_and_stays_silent(mock_pins):
    buzzer = Buzzer(BuzzerConfig(pin=None))
    buzzer.beep(Beep.ILLEGAL_BOARD)
    buzzer.close()
    assert mock_pins.pins == {}
