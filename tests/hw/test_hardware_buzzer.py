"""`Hardware.open` opens the optional buzzer from the config, and the event loop beeps on it."""
import dataclasses
import queue
import time

from firmware_host.app import EventLoop
from firmware_host.config import load_config
from firmware_host.hw import Beep, ScriptedDice
from firmware_host.journal import Journal
from firmware_host.service.hardware import Hardware



def test_the_configured_buzzer_is_opened_on_the_boards_pins_and_released_at_close():
    config = load_config(None)
    pin_number = config.pins.buzzer.pin
    assert pin_number is not None   # the reference board has one
    hardware = Hardware.open(config, queue.Queue().put)
    try:
        pin = hardware.simulation.pins.pin(pin_number)
        before = len(pin.states)
        hardware.buzzer.beep(Beep.ROLL_REFUSED)
        deadline = time.monotonic() + 5.0
        while len(pin.states) < before + 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert [state.state for state in pin.states[before:before + 2]] == [True, False]
    finally:
        hardware.close()
    assert pin.function == "input"   # released: gpiozero puts a closed output back to input


def test_without_a_buzzer_pin_the_buzzer_is_silent_and_uses_no_pin():
    config = load_config(None)
    silent = dataclasses.replace(config, pins=dataclasses.replace(config.pins, buzzer=dataclasses.replace(
        config.pins.buzzer, pin=None)))
    hardware = Hardware.open(silent, queue.Queue().put)
    try:
        hardware.buzzer.beep(Beep.ILLEGAL_BOARD)
        assert [info.name for info in hardware.simulation.pins.pins] == [f"GPIO{config.pins.button.pin}"]
    finally:
        hardware.close()


def test_the_event_loop_beeps_on_the_hardwares_buzzer(tmp_path):
    config = load_config(None)
    hardware = Hardware.open(config, queue.Queue().put)
    try:
        loop = EventLoop.from_config(config, Journal.open(tmp_path / "journal.sqlite3"), hardware,
                                     events=queue.Queue(), dice=ScriptedDice(()), judge_in_background=False)
        assert loop.controller.beep == hardware.buzzer.beep
    finally:
        hardware.close()
