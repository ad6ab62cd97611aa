"""Simulated pins keep a bounded history: a simulated board's button pressed for days, and its buzzer
beeping, must not grow the service's memory (issue 11: nothing grows with uptime)."""
from firmware_host.hw.gpio import PIN_HISTORY, simulated_pin_factory


def test_a_simulated_pin_driven_for_long_keeps_only_its_newest_states():
    pin = simulated_pin_factory().pin(17)
    for _ in range(50 * PIN_HISTORY):
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    assert len(pin.states) == PIN_HISTORY
    assert [state.state for state in pin.states[-3:]] == [False, True, False]   # the newest, in order
    assert pin.state is False


def test_an_output_pin_keeps_a_bounded_history_too():
    pin = simulated_pin_factory().pin(18)
    pin.function = "output"
    for n in range(10 * PIN_HISTORY):
        pin.state = n % 2
    assert len(pin.states) == PIN_HISTORY
