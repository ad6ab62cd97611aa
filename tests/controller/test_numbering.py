"""One numbering per job (docs/position-format.md, "Which numbering where"): what a person must find on
the board is named by the board's labels, the numbers of the LEDs' locations, however the board lies."""
import pytest
from controller_kit import Rig

from firmware_host.controller import Orientation
from firmware_host.controller.numbering import BoardLabels
from firmware_host.referee import Step
from firmware_host.rules import BLACK, WHITE
from firmware_host.sensing.events import BoardSettled
from firmware_host.service.verdict_words import verdict_words


@pytest.mark.parametrize("orientation", list(Orientation), ids=lambda o: o.value)
def test_a_points_label_is_the_led_that_lights_it(orientation):
    labels = BoardLabels(orientation)
    for point in map(str, range(1, 25)):
        for colour in (WHITE, BLACK):
            assert labels.label(point) == labels.led(point, colour)


def test_issue_28s_step_on_a_mirrored_board_names_the_point_labelled_12():
    """Mirrored, left and right swap: the position format's point 1 (White's home, right of the near
    edge as wired) lies at the near edge's left end, the point labelled 12."""
    step = BoardLabels(Orientation.MIRRORED).step(Step(BLACK, "1", "bar"))
    assert str(step) == "take one black checker from 12 to the bar"
    assert BoardLabels(Orientation.MIRRORED).place("1") == "point 12"
    assert BoardLabels(Orientation.AS_WIRED).place("bar") == "the bar"


def test_an_illegal_board_is_named_the_same_before_and_after_the_lights_call_it(tmp_path):
    """Issue 28: on a mirrored board the steps read "from 1" while moving and "from 12" once
    correcting. Both must be the board's labels, the LEDs' locations that guide the correction."""
    rig = Rig(tmp_path, dice=[6, 5, 6, 5], orientation=Orientation.MIRRORED)
    rig.to_moving()
    rig.board.move("13", "12", "white")            # onto black's five checkers: illegal
    rig.show()
    moving = verdict_words(rig.controller.view())
    assert rig.state == "moving" and moving["kind"] == "illegal"
    rig.send(BoardSettled(rig.board.sensed()))
    assert rig.state == "correcting"
    correcting = verdict_words(rig.controller.view())
    mirrored = {point: Orientation.MIRRORED.point(point) for point in (12, 13)}
    assert moving["steps"] == correcting["steps"] == [
        f"take one white checker from {mirrored[12]} to {mirrored[13]}"]
    assert rig.scene.marks[str(mirrored[12])].value == "take-from"
    assert rig.scene.marks[str(mirrored[13])].value == "put-on"


def test_why_a_board_is_illegal_names_the_point_the_lights_mark(tmp_path):
    """The reasons name the held point by the board's label too: on a mirrored board, the point the
    words tell the checker to leave."""
    rig = Rig(tmp_path, dice=[6, 5, 6, 5], orientation=Orientation.MIRRORED)
    rig.to_moving()
    rig.board.move("13", "12", "white")            # onto black's five checkers
    rig.show(settle=True)
    said = verdict_words(rig.controller.view())
    labelled = Orientation.MIRRORED.point(12)
    assert said["why"] == [f"Point {labelled} is held by black (5 checkers): white may not land there."]
    assert said["steps"][0].startswith(f"take one white checker from {labelled} ")
