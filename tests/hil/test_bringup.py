"""`tavli-board bringup` end to end on the simulated board: the simulated MCU (the real firmware
logic) on a pseudo-terminal, mock pins and captured LED frames, with the person's part played by
`SimulatedBringUpOperator`; and the same run on a board built with faults."""
import queue

import pytest

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.leds.render import OFF
from firmware_host.leds.scene import LOCATIONS
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.bringup import BringUp, SimulatedBringUpOperator, known_checkers
from firmware_host.service.hardware import Hardware
from firmware_host.service.selftest import Outcome, Timings


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'hardware = "simulated"\n[sensors]\nquiet_ms = 100\n[button]\nhold_ms = 500\n[journal]\npath = "{tmp_path}/j.sqlite3"\n'
                    f'[logging]\nfile = "{tmp_path}/log/t.log"\nraw_frames_dir = "{tmp_path}/raw"\n')
    return path


def test_every_location_gets_a_known_layout_within_the_checkers_of_a_set():
    layouts = [known_checkers(location, number) for number, location in enumerate(LOCATIONS)]
    assert all(1 <= white + black <= 5 and 0 in (white, black) for white, black in layouts)
    assert {white > 0 for white, _ in layouts} == {True, False}      # both colours are asked for
    assert known_checkers("bar:black", 25)[0] == 0 and known_checkers("off:white", 26)[1] == 0


def test_a_good_board_passes_the_whole_bring_up(config_file, capsys):
    assert main(["bringup", "--config", str(config_file), "--timeout", "10", "--dwell-ms", "0"]) == 0
    out = capsys.readouterr().out
    assert "BRING-UP PASSED" in out
    for line in ("PASS  calibration", "PASS  each LED     all 200 LEDs seen lit", "PASS  locations    all 28 locations",
                 "all 30 checkers read alone in their colour",
                 "PASS  leds", "PASS  counts", "PASS  press", "PASS  hold"):
        assert line in out, line
    assert "put 1 black checker on point 6 (simulated)" in out


def test_bad_options_are_a_usage_error(config_file, capsys):
    assert main(["bringup", "--config", str(config_file), "--timeout", "0"]) == 2
    assert "bringup: --dwell-ms must be 0 or more and --timeout more than 0" in capsys.readouterr().err


def test_a_dead_led_and_two_swapped_sensors_are_named(config_file):
    config = load_config(config_file)
    events = queue.SimpleQueue()
    hardware = Hardware.open(config, events.put, board=BoardReading())
    show = hardware.strip.show
    hardware.strip.show = lambda frame: show(tuple(OFF if index == 37 else pixel for index, pixel in enumerate(frame)))
    board = hardware.simulation.board
    counts = board.channel_counts
    # points 3 and 4 wired to each other's channels
    hardware.simulation.board.channel_counts = \
        lambda channels, *scheme: (lambda c: c[:2] + [c[3], c[2]] + c[4:])(counts(channels, *scheme))
    try:
        results = BringUp(hardware, events, SimulatedBringUpOperator(hardware), Timings(led_dwell_s=0, person_timeout_s=3)).run()
    finally:
        hardware.close()
    by_step = {}
    for result in results:
        by_step.setdefault(result.step, result)
    assert by_step["each LED"].outcome is Outcome.FAIL and by_step["each LED"].detail == "1 not seen lit: 37 (point 7 2/6)"
    locations = by_step["locations"]
    assert locations.outcome is Outcome.FAIL
    # point 3 was asked for 3 white, point 4 for 4 black: each read on the other
    assert "point 3: nothing (wanted 3 white checkers); point 4: 3 white checkers (wanted nothing)" in locations.detail
    assert "point 3: 4 black checkers (wanted nothing); point 4: nothing (wanted 4 black checkers)" in locations.detail
    assert "point 5" not in locations.detail
    assert by_step["self-test"].outcome is Outcome.INFO and by_step["counts"].outcome is Outcome.PASS


def test_a_checker_whose_magnet_is_of_the_other_kind_or_missing_is_named(config_file):
    config = load_config(config_file)
    events = queue.SimpleQueue()
    hardware = Hardware.open(config, events.put, board=BoardReading())
    # white checker 7 reads black (a diametric magnet in it); black checker 3 reads nothing (no magnet)
    operator = SimulatedBringUpOperator(hardware, faulty_checkers={("white", 7): "black", ("black", 3): None})
    try:
        results = BringUp(hardware, events, operator, Timings(led_dwell_s=0, person_timeout_s=2)).run()
    finally:
        hardware.close()
    (checkers,) = [result for result in results if result.step == "checkers"]
    assert checkers.outcome is Outcome.FAIL
    assert checkers.detail.startswith("white checker 7 reads 1 black checker; black checker 3 reads nothing (")
    assert "white checker 6" not in checkers.detail and "black checker 4" not in checkers.detail
