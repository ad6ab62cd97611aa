"""The scenario library (tests/hil/scenarios/, docs/hil.md), each file run by `tavli-board hil run`
against the whole application in virtual time; and what a failing or unreadable scenario reports."""
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware_host.cli import main

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))

# Scenarios that show a defect of the application, kept failing on purpose until it is mended.
KNOWN_DEFECTS: dict[str, str] = {}


def _params():
    for path in SCENARIOS:
        marks = [pytest.mark.xfail(reason=KNOWN_DEFECTS[path.name], strict=True)] if path.name in KNOWN_DEFECTS else []
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("scenario", list(_params()))
def test_the_scenario_passes_on_the_whole_application(scenario, tmp_path, capsys):
    junit = tmp_path / "hil.xml"
    code = main(["hil", "run", str(scenario), "--junit", str(junit)])
    out = capsys.readouterr().out
    assert code == 0, out
    suite = ET.parse(junit).getroot()
    assert (suite.tag, suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("testsuite", "1", "0", "0")
    assert suite.find("testcase").get("name") == str(scenario)


FIRST_TURN = """
title = "white's first turn"
[match]
sequence = "portes"
target = 1
[dice]
values = [6, 5, 6, 5]

[[step]]
do = ["press", "press"]
expect = { state = "moving", dice = [6, 5] }

[[step]]
do = "lift 13"
expect.verdict = "in_hand"
expect.leds = { "13" = "lifted-origin", "7" = "legal-destination", "9" = "legal-destination" }
"""


def test_a_wrong_expectation_fails_with_what_was_expected_and_what_the_leds_showed(tmp_path, capsys):
    scenario = tmp_path / "wrong.toml"
    scenario.write_text(FIRST_TURN)
    junit = tmp_path / "hil.xml"
    assert main(["hil", "run", str(scenario), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert "failed at step 2 of 2: lift 13" in out
    # 13 - 9 = 4: no die of 6-5 goes there; 8 (a 5) and 7 (a 6) are lit.
    assert "LED 9: expected legal-destination, got dark" in out
    assert "the LEDs show: 2=legal-destination 7=legal-destination 8=legal-destination 13=lifted-origin" in out
    assert "the last 5 frames, decoded:" in out
    case = ET.parse(junit).getroot().find("testcase")
    failure = case.find("failure")
    assert failure.get("message").startswith("step 2 (lift 13): LED 9: expected legal-destination, got dark")
    assert "LED 9: expected legal-destination, got dark" in failure.text
    assert ET.parse(junit).getroot().get("failures") == "1"


def test_the_same_scenario_with_the_right_expectation_passes(tmp_path, capsys):
    scenario = tmp_path / "right.toml"
    scenario.write_text(FIRST_TURN.replace('"9" = "legal-destination"', '"8" = "legal-destination", "9" = "dark"'))
    assert main(["hil", "run", str(scenario)]) == 0, capsys.readouterr().out


def test_a_bad_scenario_is_refused_before_anything_runs_with_every_problem_by_step(tmp_path, capsys):
    scenario = tmp_path / "bad.toml"
    scenario.write_text("""
[match]
sequence = "portez"
[[step]]
do = "lift 25"
expect = { state = "mooving" }
[[step]]
do = ["press", "jump 3"]
expect.leds = { "13" = "blue" }
""")
    junit = tmp_path / "hil.xml"
    assert main(["hil", "run", str(scenario), "--junit", str(junit)]) == 2
    out = capsys.readouterr().out
    assert "unknown game 'portez'" in out
    assert "step 1: 'lift 25': unknown location '25'" in out
    assert "step 1: expect.state: 'mooving'; allowed: " in out
    assert "step 2: unknown action 'jump'" in out
    assert "step 2: expect.leds.13: 'blue'; allowed: legal-destination" in out
    assert ET.parse(junit).getroot().get("errors") == "1"


def test_running_out_of_exact_dice_is_named(tmp_path, capsys):
    scenario = tmp_path / "short.toml"
    scenario.write_text(FIRST_TURN.replace("values = [6, 5, 6, 5]", "values = [6, 5, 6]"))
    assert main(["hil", "run", str(scenario)]) == 1
    assert "the dice script ran out" in capsys.readouterr().out


def test_a_scenario_runs_in_real_time_on_the_service_threads(tmp_path, capsys):
    """--realtime: the MCU, the sensor link and the event loop (with its judging thread) on their threads."""
    scenario = tmp_path / "realtime.toml"
    scenario.write_text(FIRST_TURN.replace('"9" = "legal-destination"', '"8" = "legal-destination"'))
    assert main(["hil", "run", "--realtime", str(scenario)]) == 0, capsys.readouterr().out


def test_a_scenario_runs_with_the_simulated_sensors_weighing(capsys):
    scenario = Path(__file__).parent / "scenarios" / "rule_bar_first.toml"
    assert main(["hil", "run", str(scenario), "--physics"]) == 0, capsys.readouterr().out


MAGNET_SCENARIOS = ("game_neverfinishing", "game_plakoto", "game_tapa", "rule_pinned", "refusals",
                    "referee_replay_restore", "hands", "rule_opponent_checker")


@pytest.mark.parametrize("name", MAGNET_SCENARIOS)
def test_the_scenario_passes_with_sensors_that_see_only_the_bottom_colour(name):
    """[sensors.mcu] colour_by = "magnet": the count in the bottom checker's colour, pins judged from the play."""
    from dataclasses import replace

    from firmware_host.hil.runner import run_scenario
    from firmware_host.hil.scenario import load_scenario

    scenario = load_scenario(Path(__file__).parent / "scenarios" / f"{name}.toml")
    sensing = scenario.config.sensing
    magnet = replace(sensing.sensors, mcu=replace(sensing.sensors.mcu, colour_by="magnet"))
    outcome = run_scenario(replace(scenario, config=replace(scenario.config, sensing=replace(sensing, sensors=magnet))))
    assert outcome.passed, outcome.report
