"""The self-test end to end on the simulated board: sim MCU over a real pty, mock pins, captured LEDs."""
import dataclasses
import queue

import pytest

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.leds.render import OFF
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.hardware import Hardware
from firmware_host.service.rawlog import recent_frames
from firmware_host.service.selftest import (ConsoleOperator, Outcome, SelfTest, SimulatedOperator, Timings,
                                            counts_frame, shown_counts, summary)

QUICK = Timings(led_dwell_s=0.0, link_timeout_s=10.0, person_timeout_s=10.0)


@pytest.fixture
def config(tmp_path):
    config = load_config()
    pins = dataclasses.replace(config.pins, button=dataclasses.replace(config.pins.button, hold_s=0.3))
    logging = dataclasses.replace(config.logging, raw_frames_dir=tmp_path / "raw")
    return dataclasses.replace(config, pins=pins, logging=logging)


def run(config, make_operator=SimulatedOperator, timings=QUICK, before=lambda hardware: None):
    events = queue.SimpleQueue()
    hardware = Hardware.open(config, events.put)
    before(hardware)
    try:
        results = SelfTest(hardware, events, make_operator(hardware), timings).run()
    finally:
        hardware.close()
    return {result.step: result for result in results}, hardware


def test_a_good_board_passes_every_step(config):
    results, hardware = run(config)
    assert [step for step, result in results.items() if result.outcome is not Outcome.PASS] == ["link errors"]
    assert "firmware" in results["link"].detail and "frames dropped (corrupt) 0" in results["link errors"].detail
    assert results["leds"].detail == "200 LEDs lit in turn; captured frames (simulated board)"  # the driver used
    frames = list(hardware.strip.frames)
    walk = [[i for i, pixel in enumerate(frame) if pixel != OFF] for frame in frames[:config.leds.layout.count]]
    assert walk == [[index] for index in range(config.leds.layout.count)]
    assert any(" rx " in line for line in recent_frames(config.logging.raw_frames_dir))
    assert summary(list(results.values()))[1] is True


class FaultyPerson(SimulatedOperator):
    """Saw a dark LED, and never presses the button."""

    def confirm(self, step, question):
        return False if step == "leds" else super().confirm(step, question)

    def tell(self, step, message):
        if step not in ("press", "hold"):
            super().tell(step, message)


def test_faults_are_reported_step_by_step(config):
    fail_channel = lambda hardware: hardware.simulation.mcu.fail_self_test([("point:3", 2)])  # noqa: E731
    results, _ = run(config, FaultyPerson, dataclasses.replace(QUICK, person_timeout_s=0.5), fail_channel)
    assert results["leds"].outcome is Outcome.FAIL and results["leds"].detail == "the person saw a fault"
    assert results["sensors"].outcome is Outcome.FAIL and "point:3" in results["sensors"].detail
    assert results["counts"].outcome is Outcome.PASS and results["link"].outcome is Outcome.PASS
    assert results["press"].outcome is Outcome.FAIL and "BCM 17" in results["press"].detail
    assert results["hold"].outcome is Outcome.SKIP
    text, passed = summary(list(results.values()))
    assert not passed and text.endswith("SELF-TEST FAILED") and "FAIL  sensors" in text


def test_a_silent_mcu_fails_the_link_and_skips_what_needs_it(config):
    results, _ = run(config, timings=dataclasses.replace(QUICK, link_timeout_s=1.0),
                     before=lambda hardware: hardware.simulation.mcu.go_silent())
    assert results["link"].outcome is Outcome.FAIL and "check the cable and [serial] port" in results["link"].detail
    assert results["sensors"].outcome is Outcome.SKIP and results["counts"].outcome is Outcome.SKIP
    assert results["press"].outcome is Outcome.PASS  # the button does not need the link


def test_counts_are_shown_as_amber_and_blue_leds_and_read_back(config):
    layout = config.leds.layout
    reading = BoardReading.from_json({"white": {"points": {"24": 2, "7": 9}, "bar": 1},
                                      "black": {"points": {"7": 1, "1": 3}, "off": 4}})
    shown = shown_counts(layout, counts_frame(layout, reading, 0.3, 2000))
    assert shown["24"] == (2, 0) and shown["1"] == (0, 3) and shown["bar:white"] == (1, 0)
    assert shown["off:black"] == (0, 4)
    assert shown["7"] == (6, 0)  # 9 white and 1 black on a 6-LED point: the first 6 LEDs, white first


def test_the_console_operator_asks_until_it_gets_an_answer():
    answers = iter(["maybe", "Y"])
    said = []
    operator = ConsoleOperator(read=lambda prompt: next(answers), write=said.append)
    assert operator.confirm("leds", "All lit?") is True and said == ["please answer y or n"]

    def closed(prompt):
        raise EOFError
    assert ConsoleOperator(read=closed, write=said.append).confirm("leds", "All lit?") is None


def test_the_selftest_command_on_the_simulated_board(capsys, tmp_path, monkeypatch):
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'[logging]\nraw_frames_dir = "{tmp_path / "raw"}"\n[button]\nhold_ms = 300\n')
    assert main(["selftest", "--config", str(config_file), "--dwell-ms", "0", "--timeout", "10"]) == 0
    assert capsys.readouterr().out.strip().endswith("SELF-TEST PASSED")
