"""A board whose sensors report a point's count in its bottom checker's colour ([sensors.mcu] colour_by =
"magnet"): the controller judges the board the report stands for, pins included."""
import pytest

from firmware_host.referee import Reading
from firmware_host.rules import Position
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.events import BoardChanging, BoardStable
from firmware_host.sensing.reading import BoardReading, SideReading

from controller_kit import Rig, journal_game_at

# White to play 2 and 6 in plakoto: 22/20 pins Black's blot on 20, 24/18.
BEFORE = Position.from_json({"variant": "plakoto", "turn": "white",
                             "white": {"points": {"24": 14, "22": 1}}, "black": {"points": {"1": 14, "20": 1}}})
AFTER = Position.from_json({"variant": "plakoto", "turn": "white",
                            "white": {"points": {"24": 13, "20": 1, "18": 1}}, "black": {"points": {"1": 14, "20": 1}},
                            "pinned": {"20": "black"}})


def sensed(white: dict[int, int], black: dict[int, int]) -> BoardReading:
    return BoardReading(*(SideReading(tuple(side.get(point, 0) for point in range(1, 25)), 0, 0)
                          for side in (white, black)))


# What magnet sensors report after the play: point 20 holds two checkers, the bottom one black.
SEEN_AFTER = sensed({24: 13, 18: 1}, {1: 14, 20: 2})


def rig_at_the_roll(tmp_path, sensing):
    rig = Rig(tmp_path, match=MatchRules(sequence=("plakoto",), target=3), sensing=sensing)
    journal_game_at(rig, BEFORE, roll=(2, 6))
    rig.restart()
    rig.show()
    assert rig.state == "moving"
    return rig


def show(rig, reading):
    rig.send(BoardChanging(reading))
    rig.send(BoardStable(reading))


def test_a_pin_seen_by_magnet_sensors_is_judged_as_the_pinned_board(tmp_path):
    rig = rig_at_the_roll(tmp_path, "magnet")
    show(rig, SEEN_AFTER)
    assert rig.controller.board_reading == Reading.of(AFTER)
    assert rig.controller.verdict.kind == "complete"


def test_sensors_that_count_both_colours_would_call_the_same_report_wrong(tmp_path):
    rig = rig_at_the_roll(tmp_path, "mass")
    show(rig, SEEN_AFTER)
    assert rig.controller.board_reading != Reading.of(AFTER)
    assert rig.controller.verdict.kind != "complete"


def test_an_unknown_sensing_scheme_is_refused(tmp_path):
    with pytest.raises(ValueError):
        Rig(tmp_path, sensing="colour")
