"""The scene vocabulary: immutable values, checked when built."""
import pytest

from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark, Scene, Score


def test_locations_are_the_points_and_each_sides_bar_and_tray():
    assert LOCATIONS[:24] == tuple(str(point) for point in range(1, 25))
    assert set(LOCATIONS[24:]) == {"bar:white", "bar:black", "off:white", "off:black"}


def test_a_scene_is_an_immutable_value():
    marks = {"13": Mark.LIFTED_ORIGIN}
    scene = Scene(marks, dice=[6, 5], turn="white", score=Score(1, 0, target=5))
    marks["8"] = Mark.ILLEGAL  # the caller's dict is copied, not kept
    assert dict(scene.marks) == {"13": Mark.LIFTED_ORIGIN}
    with pytest.raises(TypeError):
        scene.marks["8"] = Mark.ILLEGAL
    assert scene.dice == (6, 5)
    same = Scene({"13": Mark.LIFTED_ORIGIN}, dice=(6, 5), turn="white", score=Score(1, 0, 5))
    assert scene == same and hash(scene) == hash(same)
    assert scene != Scene({"13": Mark.LIFTED_ORIGIN}, dice=(6, 5), turn="black", score=Score(1, 0, 5))


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"marks": {"25": Mark.ILLEGAL}}, "unknown location '25'; allowed: \"1\"..\"24\", \"bar:white\""),
        ({"marks": {"bar": Mark.ILLEGAL}}, "unknown location 'bar'"),
        ({"marks": {"3": "illegal"}}, "mark at 3 is 'illegal'; allowed: a Mark"),
        ({"dice": (0, 5)}, r"Scene.dice is \(0, 5\); allowed: two integers 1..6"),
        ({"dice": (6, 5, 4)}, "allowed: two integers 1..6"),
        ({"dice_signal": "waiting"}, "allowed: a DiceSignal or None"),
        ({"dice_signal": DiceSignal.NO_LEGAL_MOVE}, "NO_LEGAL_MOVE needs the dice"),
        ({"turn": "red"}, "Scene.turn is 'red'; allowed: \"white\", \"black\" or None"),
        ({"score": (1, 2)}, r"Scene.score is \(1, 2\); allowed: a Score or None"),
    ],
)
def test_a_wrong_scene_is_refused_saying_what_is_allowed(arguments, message):
    with pytest.raises(ValueError, match=message):
        Scene(**arguments)


@pytest.mark.parametrize(
    "arguments, message",
    [((-1, 0, 5), "Score.white is -1"), ((0, 1.5, 5), "Score.black is 1.5"), ((0, 0, 0), "Score.target is 0; allowed: an integer from 1")],
)
def test_a_wrong_score_is_refused(arguments, message):
    with pytest.raises(ValueError, match=message):
        Score(*arguments)
