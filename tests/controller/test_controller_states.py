"""The state machine driven by event sequences in virtual time: every state, every refusal, the scenes
it shows and the journal records it writes."""
import pytest

from firmware_host.controller import Orientation, Timings
from firmware_host.controller.controller import Controller, Judged
from firmware_host.controller.faults import EPISODE_QUIET_S
from firmware_host.hw.dice import SeededDice
from firmware_host.hw import Beep, DiceButtonFreed, DiceButtonStuck
from firmware_host.journal import Kind
from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark
from firmware_host.rules import Position
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.events import (BoardStable, FaultKind, LinkLost, LinkSilent, LinkUp, McuReset,
                                          SensorFault, SensorFaultCleared)

from firmware_host.controller.scenes import step_marks
from firmware_host.referee import Step
from firmware_host.referee.steps import HAND
from firmware_host.rules import WHITE

from controller_kit import Board, Rig, play_whole_match

PORTES = Position.start("portes")
# White wins the opening 6-5 and rolls 6-5 again; Black then rolls 3-1.
OPENING_AND_TWO_ROLLS = (6, 5, 6, 5, 3, 1)


@pytest.fixture
def rig(tmp_path):
    return Rig(tmp_path, OPENING_AND_TWO_ROLLS)


# -- setup ------------------------------------------------------------------------------------------

def test_setup_lights_where_checkers_must_go_and_where_they_must_leave(rig):
    board = Board.of(PORTES).move("6", "7", "white").move("19", "18", "black")
    rig.show(board)
    assert rig.state == "setup"
    assert rig.marked(Mark.PUT_ON) == {"6", "19"}
    assert rig.marked(Mark.TAKE_FROM) == {"7", "18"}
    assert rig.scene.dice_signal is DiceSignal.WAITING
    assert rig.scene.score.target == 3


def test_a_press_during_setup_is_refused_with_the_pattern_a_beep_and_a_record(rig):
    rig.show(Board.of(PORTES).move("6", "7", "white"))
    rig.press()
    assert rig.state == "setup"
    assert rig.scene.dice_signal is DiceSignal.ROLL_REFUSED
    assert rig.beeps == [Beep.ROLL_REFUSED]
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_not_set_up"


def test_the_refusal_pattern_goes_out_after_its_time(tmp_path):
    rig = Rig(tmp_path, timings=Timings(refusal_s=1.0, game_over_s=5.0))
    rig.show(Board.of(PORTES).move("6", "7", "white"))
    rig.press()
    assert rig.controller.next_deadline() == pytest.approx(rig.now + 1.0)
    rig.wait(1.0)
    assert rig.scene.dice_signal is DiceSignal.WAITING
    assert rig.controller.next_deadline() is None


def test_the_game_begins_when_the_board_shows_the_start_and_the_match_is_journaled(rig):
    rig.start_game()
    assert rig.state == "opening_roll"
    (match,) = rig.records(Kind.MATCH_STARTED)
    assert match["rules"]["sequence"] == ["portes"] and match["rules"]["target"] == 3
    (game,) = rig.records(Kind.GAME_STARTED)
    assert game["variant"] == "portes" and game["starter"] is None


@pytest.mark.parametrize("orientation", list(Orientation))
def test_the_orientation_is_found_from_the_setup_and_the_lights_follow_it(tmp_path, orientation):
    rig = Rig(tmp_path, OPENING_AND_TWO_ROLLS, orientation=orientation)
    rig.to_moving()
    assert rig.controller.orientation is orientation
    rig.board.lift("24", "white")
    rig.changing()
    assert rig.marked(Mark.LIFTED_ORIGIN) == {str(orientation.point(24))}
    # 6-5 from 24: 18 with the six, 13 with both (19 is Black's).
    assert rig.marked(Mark.LEGAL_DESTINATION) == {str(orientation.point(18)), str(orientation.point(13))}


# -- the opening roll --------------------------------------------------------------------------------

def test_a_tied_opening_roll_shows_both_dice_and_rolls_again(tmp_path):
    rig = Rig(tmp_path, (4, 4, 2, 5, 6, 1))
    rig.start_game()
    rig.press()
    assert rig.state == "opening_roll"
    assert rig.scene.dice == (4, 4)
    rig.press()
    assert rig.state == "awaiting_roll"
    assert rig.scene.turn == "black" and rig.scene.dice_signal is DiceSignal.WAITING
    rolls = rig.records(Kind.OPENING_ROLL)
    assert [(r["white"], r["black"], r["starter"]) for r in rolls] == [(4, 4, None), (2, 5, "black")]
    rig.press()
    assert (rig.state, rig.scene.dice, rig.scene.turn) == ("moving", (6, 1), "black")
    assert rig.records(Kind.ROLL) == [{"side": "black", "dice": [6, 1]}]


def test_with_use_opening_dice_the_starter_plays_the_opening_dice_without_a_roll(tmp_path):
    rig = Rig(tmp_path, (3, 5), match=MatchRules(sequence=("portes",), target=3, opening_roll="use_opening_dice"))
    rig.start_game()
    rig.press()
    assert (rig.state, rig.scene.dice, rig.scene.turn) == ("moving", (3, 5), "black")
    assert rig.records(Kind.ROLL) == []


def test_with_keep_own_die_the_starter_rolls_only_the_second_die(tmp_path):
    rig = Rig(tmp_path, (6, 2, 4), match=MatchRules(sequence=("portes",), target=3, opening_roll="keep_own_die"))
    rig.start_game()
    rig.press()
    rig.press()
    assert (rig.state, rig.scene.dice) == ("moving", (6, 4))
    assert rig.records(Kind.ROLL) == [{"side": "white", "dice": [6, 4]}]


def test_the_opening_press_is_refused_while_the_board_is_changing(rig):
    rig.start_game()
    rig.changing()
    rig.press()
    assert rig.state == "opening_roll" and rig.scene.dice_signal is DiceSignal.ROLL_REFUSED
    assert rig.records(Kind.OPENING_ROLL) == []
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_changing"


def test_a_board_disturbed_before_the_first_roll_is_guided_back(rig):
    rig.start_game()
    rig.press()
    assert rig.state == "awaiting_roll"
    rig.show(rig.board.move("8", "4", "white"), settle=True)
    assert rig.state == "correcting"
    assert rig.marked(Mark.TAKE_FROM) == {"4"} and rig.marked(Mark.PUT_ON) == {"8"}
    assert rig.beeps == [Beep.ILLEGAL_BOARD]
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_being_corrected"
    rig.show(rig.board.move("4", "8", "white"))
    assert rig.state == "awaiting_roll"


# -- a turn ------------------------------------------------------------------------------------------

def test_a_lift_lights_its_legal_destinations_at_once_without_waiting_for_a_stable_board(rig):
    rig.to_moving()
    rig.board.lift("13", "white")
    rig.changing()
    assert rig.marked(Mark.LIFTED_ORIGIN) == {"13"}
    assert rig.marked(Mark.LEGAL_DESTINATION) == {"7", "8", "2"}


@pytest.mark.parametrize("handling, reason", [
    ("in_hand", "checker_in_hand"),
    ("changing", "board_changing"),
    ("unchanged", "rolling_too_early"),
    ("partial", "rolling_too_early"),
    ("illegal", "illegal_board"),
])
def test_a_press_before_the_play_is_complete_does_not_roll(rig, handling, reason):
    rig.to_moving()
    if handling == "in_hand":
        rig.board.lift("24", "white")
        rig.show()
    elif handling == "changing":
        rig.board.move("24", "18", "white")
        rig.changing()
    elif handling == "partial":
        rig.show(rig.board.move("24", "18", "white"))
    elif handling == "illegal":
        rig.show(rig.board.move("24", "20", "white"))
    rig.press()
    assert (rig.state, rig.scene.turn) == ("moving", "white")
    assert rig.scene.dice_signal is DiceSignal.ROLL_REFUSED
    assert rig.records(Kind.ROLL) == [{"side": "white", "dice": [6, 5]}]   # no roll for Black
    refusal = rig.records(Kind.REFUSAL)[-1]
    assert refusal == {"reason": reason, "state": "moving", "side": "white", "dice": [6, 5]}
    assert rig.beeps == [Beep.ROLL_REFUSED]


def test_the_press_commits_a_complete_play_and_rolls_for_the_other_side(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "18", "white"))
    rig.show(rig.board.move("18", "13", "white"))
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))
    (play,) = rig.records(Kind.PLAY)
    assert play["side"] == "white" and play["dice"] == [6, 5]
    assert [(m["from"], m["to"]) for m in play["moves"]] == [("24", "18"), ("18", "13")]
    assert rig.records(Kind.ROLL)[-1] == {"side": "black", "dice": [3, 1]}
    assert rig.beeps == []


def test_a_wrong_board_is_called_illegal_only_after_the_grace_then_guided_back_step_by_step(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "20", "white"))
    assert rig.state == "moving" and not rig.scene.marks    # within the grace: no error yet
    rig.show(settle=True)
    assert rig.state == "correcting"
    assert rig.beeps == [Beep.ILLEGAL_BOARD]
    (take,) = rig.marked(Mark.TAKE_FROM)
    (put,) = rig.marked(Mark.PUT_ON)
    assert take == "20"
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "illegal_board"
    rig.board.move(take, put, "white")
    rig.show()
    assert rig.state == "moving"
    assert rig.controller.verdict.legal


def test_correcting_shows_one_step_at_a_time_and_every_wrong_place(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "20", "white").move("6", "3", "white"), settle=True)
    assert rig.state == "correcting"
    steps = rig.controller.correction_steps
    assert len(steps) == 2
    first, second = steps
    # The first step lit as such, the other's places as wrong.
    assert rig.marked(Mark.TAKE_FROM) == {first.origin} and rig.marked(Mark.PUT_ON) == {first.destination}
    assert rig.marked(Mark.ILLEGAL) == {second.origin, second.destination} - {first.origin, first.destination}
    rig.board.move(steps[0].origin, steps[0].destination, "white")
    rig.show()
    assert rig.state == "correcting" and len(rig.controller.correction_steps) == 1
    step = rig.controller.correction_steps[0]
    rig.show(rig.board.move(step.origin, step.destination, "white"))
    assert rig.state == "moving"


# -- referee mode ------------------------------------------------------------------------------------

def committed_first_play(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "18", "white").move("18", "13", "white"))
    rig.press()
    assert rig.scene.turn == "black"


def test_a_long_press_replays_the_last_play_move_by_move_with_its_dice(rig):
    committed_first_play(rig)
    rig.hold()
    assert rig.state == "referee"
    assert (rig.scene.dice, rig.scene.turn) == ((6, 5), "white")
    assert rig.scene.marks == {"24": Mark.LAST_PLAY_ORIGIN, "18": Mark.LAST_PLAY_DESTINATION}
    rig.press()
    assert rig.scene.marks == {"18": Mark.LAST_PLAY_ORIGIN, "13": Mark.LAST_PLAY_DESTINATION}
    actions = [record["action"] for record in rig.records(Kind.REFEREE)]
    assert actions == ["enter", "replay_move", "replay_move"]
    assert rig.records(Kind.REFEREE)[-1]["move"] == {"from": "18", "to": "13", "die": 5, "hit": False, "pin": False}


def test_referee_mode_steps_through_every_legal_play_of_the_current_roll(rig):
    committed_first_play(rig)
    rig.hold()
    rig.press()
    rig.press()
    shown = []
    while rig.controller.referee_pages[rig.controller.referee_page].kind == "legal_play":
        assert rig.scene.turn == "black" and rig.scene.dice == (3, 1)
        shown.append(rig.records(Kind.REFEREE)[-1]["moves"])
        rig.press()
    assert len(shown) == len(rig.controller.legal_plays) == len(
        {str(play) for play in rig.controller.referee.turn.plays()})
    assert all(moves for moves in shown)


def test_a_long_press_leaves_referee_mode_and_the_turn_goes_on(rig):
    committed_first_play(rig)
    rig.hold()
    rig.hold()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))
    assert rig.records(Kind.REFEREE)[-1]["action"] == "leave"


def test_restoring_the_board_to_before_the_last_play_lets_it_be_played_again(tmp_path):
    rig = Rig(tmp_path, OPENING_AND_TWO_ROLLS + (2, 2))
    committed_first_play(rig)
    rig.hold()
    while rig.controller.referee_pages[rig.controller.referee_page].kind != "restore":
        rig.press()
    assert rig.marked(Mark.TAKE_FROM) == {"13"} and rig.marked(Mark.PUT_ON) == {"24"}
    rig.show(rig.board.move("13", "24", "white"))
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "white", (6, 5))
    restored = rig.records(Kind.REFEREE)[-1]
    assert restored["action"] == "restored" and restored["dice"] == [6, 5]
    assert Position.from_json(restored["position"]).white == PORTES.white
    rig.show(rig.board.move("13", "7", "white").move("13", "8", "white"))
    rig.press()
    assert rig.records(Kind.PLAY)[-1]["moves"][0]["from"] == "13"


def test_a_hold_outside_a_turn_does_nothing(rig):
    rig.start_game()
    rig.hold()
    assert rig.state == "opening_roll" and rig.records(Kind.REFEREE) == []


# -- overlays ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("lost", [LinkLost("unplugged"), LinkSilent(1.2)])
def test_a_lost_link_keeps_the_game_and_resumes_it_when_the_link_is_back(rig, lost):
    rig.to_moving()
    rig.send(lost)
    assert rig.state == "link_lost"
    assert set(rig.scene.marks) == set(LOCATIONS) and set(rig.scene.marks.values()) == {Mark.SENSOR_FAULT}
    assert (rig.scene.turn, rig.scene.dice) == ("white", (6, 5))
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "link_lost"
    assert rig.records(Kind.FAULT)[-1]["fault"] == "link_lost"
    rig.send(LinkUp(hello=None))
    rig.wait(rig.controller.timings.refusal_s)   # the refusal pattern hides the dice until it ends
    assert rig.state == "moving" and rig.scene.dice == (6, 5)
    rig.show(rig.board.move("24", "18", "white").move("18", "13", "white"))
    rig.press()
    assert rig.scene.turn == "black"


def test_a_sensor_fault_marks_its_place_and_the_game_resumes_when_it_clears(rig):
    rig.to_moving()
    rig.send(SensorFault("point:7", FaultKind.FLICKER, "6 changes within 1 s"))
    rig.send(SensorFault("bar", FaultKind.TOO_MANY, "16 white checkers"))
    assert rig.state == "sensor_fault"
    assert rig.marked(Mark.SENSOR_FAULT) == {"7", "bar:white", "bar:black"}
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "sensor_fault"
    rig.send(SensorFaultCleared("point:7", FaultKind.FLICKER))
    assert rig.state == "sensor_fault"
    rig.send(SensorFaultCleared("bar", FaultKind.TOO_MANY))
    assert rig.state == "moving"
    rig.wait(EPISODE_QUIET_S)   # the ends are journaled once the faults have stayed away (episodes)
    assert [r["fault"] for r in rig.records(Kind.FAULT_CLEARED)] == ["sensor_fault", "sensor_fault"]


def test_a_link_lost_during_a_sensor_fault_returns_to_the_game_not_to_the_fault(rig):
    rig.to_moving()
    rig.send(SensorFault(None, FaultKind.TOO_MANY, "16 black checkers"))
    rig.send(LinkLost("unplugged"))
    rig.send(SensorFaultCleared(None, FaultKind.TOO_MANY))   # a new link session clears the faults
    rig.send(LinkUp(hello=None))
    assert rig.state == "moving"


def test_a_correction_interrupted_by_a_lost_link_goes_on_after_it(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "20", "white"), settle=True)
    rig.send(LinkLost("unplugged"))
    rig.send(LinkUp(hello=None))
    assert rig.state == "correcting"
    rig.show(rig.board.move("20", "24", "white"))
    assert rig.state == "moving"


def test_mcu_resets_and_a_stuck_button_are_journaled_as_faults(rig):
    rig.start_game()
    rig.send(McuReset(hello=None))
    rig.send(DiceButtonStuck(1.0))
    rig.send(DiceButtonFreed(2.0))
    assert [r["fault"] for r in rig.records(Kind.FAULT)] == ["mcu_reset", "button_stuck"]
    rig.wait(EPISODE_QUIET_S)
    assert [r["fault"] for r in rig.records(Kind.FAULT_CLEARED)] == ["mcu_reset", "button_stuck"]
    assert rig.state == "opening_roll"


def test_bad_timings_are_a_clear_error():
    with pytest.raises(ValueError, match="refusal_s"):
        Timings(refusal_s=0)


def test_the_controller_starts_in_setup_showing_the_score_and_waiting(tmp_path):
    rig = Rig(tmp_path)
    assert rig.state == "setup" and rig.scene.dice_signal is DiceSignal.WAITING and not rig.scene.marks
    assert isinstance(rig.controller, Controller)


def test_in_a_cascade_of_doubles_a_lift_is_noted_without_searching_its_destinations(tmp_path):
    # Gulbara from the fourth turn: 1-1 cascades up to 6-6; a press with a checker in hand is refused.
    rig = Rig(tmp_path, (6, 5, 3, 2, 4, 1, 2, 1, 1, 1), match=MatchRules(sequence=("gulbara",), target=3))
    rig.to_moving()
    controller = rig.controller
    for _ in range(3):
        play = next(iter(controller.referee.turn.plays()))
        rig.show(Board.of(play.position))
        rig.press()
    assert len(controller.referee.turn.stages) == 6
    mover = controller.position.turn.value
    start = "24" if mover == "white" else "12"
    rig.board.lift(start, mover)
    rig.changing()
    assert controller.verdict.kind == "in_hand" and not rig.scene.marks
    rig.show()
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "checker_in_hand"


def test_a_press_before_the_board_is_read_again_after_the_link_came_back_is_refused(rig):
    rig.to_moving()
    rig.send(LinkLost("unplugged"))
    rig.send(LinkUp(hello=None))
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_not_read"
    assert rig.records(Kind.ROLL)[-1]["side"] == "white"


def test_a_press_before_the_first_roll_on_a_disturbed_board_is_refused(rig):
    rig.start_game()
    rig.press()
    rig.show(rig.board.move("8", "4", "white"))   # within the grace: not yet corrected
    rig.press()
    assert rig.state == "awaiting_roll"
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_differs_from_position"


def test_after_the_match_a_press_starts_a_new_one_from_setup(tmp_path):
    rig = Rig(tmp_path, match=MatchRules(sequence=("portes",), target=1), dice_source=SeededDice(2))
    play_whole_match(rig, 2)
    assert rig.state == "match_over"
    rig.press()
    assert rig.state == "setup" and (rig.scene.score.white, rig.scene.score.black) == (0, 0)
    assert rig.marked(Mark.PUT_ON)   # the board still shows the end of the last game
    rig.start_game()
    assert rig.state == "opening_roll" and len(rig.records(Kind.MATCH_STARTED)) == 2


# -- judging elsewhere (the event loop's judging thread) ---------------------------------------------

class Elsewhere:
    """Takes the readings the controller hands over; `answer()` posts their verdicts back in order."""

    def __init__(self):
        self.asked = []

    def __call__(self, referee, reading):
        self.asked.append((referee, reading))

    def answer(self, rig, count=None):
        for referee, reading in self.asked[:count]:
            rig.send(Judged(referee, reading, referee.judge(reading)))
        del self.asked[:count]


@pytest.fixture
def elsewhere_rig(tmp_path):
    rig = Rig(tmp_path, OPENING_AND_TWO_ROLLS)
    elsewhere = Elsewhere()
    rig.controller.judge_elsewhere = elsewhere
    return rig, elsewhere


def test_a_press_while_the_board_is_being_judged_elsewhere_is_refused_then_commits_once_judged(elsewhere_rig):
    rig, elsewhere = elsewhere_rig
    rig.to_moving()
    assert elsewhere.asked == []   # the untouched board is judged at the roll itself
    rig.show(rig.board.move("24", "18", "white").move("18", "13", "white"))
    assert rig.controller.awaiting_verdict is not None and len(elsewhere.asked) == 1
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_being_judged"
    elsewhere.answer(rig)
    assert rig.controller.awaiting_verdict is None and rig.controller.verdict.kind == "complete"
    rig.press()
    assert rig.scene.turn == "black" and rig.records(Kind.PLAY)[-1]["side"] == "white"


def test_an_illegal_board_that_settled_while_being_judged_is_corrected_when_the_verdict_comes(elsewhere_rig):
    rig, elsewhere = elsewhere_rig
    rig.to_moving()
    rig.show(rig.board.move("24", "20", "white"), settle=True)
    assert rig.state == "moving"
    elsewhere.answer(rig)
    assert rig.state == "correcting" and rig.marked(Mark.TAKE_FROM) == {"20"}


def test_a_verdict_on_a_board_that_has_moved_on_or_on_an_earlier_roll_changes_nothing(elsewhere_rig):
    rig, elsewhere = elsewhere_rig
    rig.to_moving()
    rig.show(rig.board.move("24", "20", "white"))   # wrong ...
    rig.show(rig.board.move("20", "18", "white"))   # ... then put right before the first verdict came
    elsewhere.answer(rig, 1)
    assert rig.controller.verdict is None and rig.controller.awaiting_verdict is not None
    elsewhere.answer(rig)
    assert rig.controller.verdict.kind == "partial"
    old_referee = rig.controller.referee
    rig.show(rig.board.move("18", "13", "white"))
    elsewhere.answer(rig)
    rig.press()
    assert rig.scene.turn == "black" and rig.controller.verdict.kind == "unchanged"
    board = Orientation.AS_WIRED.reading(rig.board.sensed(), "portes")
    rig.send(Judged(old_referee, board, old_referee.judge(board)))   # White's referee: "complete"
    assert rig.controller.verdict.kind == "unchanged"


def test_a_checker_too_many_is_guided_off_the_board_with_a_take_from_only():
    assert step_marks(Orientation.AS_WIRED, Step(WHITE, "5", HAND)) == {"5": Mark.TAKE_FROM}
    assert step_marks(Orientation.ROTATED, Step(WHITE, HAND, "5")) == {"17": Mark.PUT_ON}


def test_a_sensor_fault_cleared_during_a_correction_keeps_the_guidance_until_the_next_reading(rig):
    rig.to_moving()
    rig.show(rig.board.move("13", "12", "white"), settle=True)
    assert rig.state == "correcting"
    faulty = Board.of(PORTES)
    faulty.points = {colour: list(points) for colour, points in rig.board.points.items()}
    faulty.points["white"][4] += 3
    rig.send(SensorFault("point:5", FaultKind.TOO_MANY, "three too many"))
    rig.send(BoardStable(faulty.sensed()))
    rig.send(SensorFaultCleared("point:5", FaultKind.TOO_MANY))
    assert rig.state == "correcting"
    assert rig.marked(Mark.TAKE_FROM) == {"12"} and rig.marked(Mark.PUT_ON) == {"13"}
    rig.show(rig.board.move("12", "13", "white"))
    assert rig.state == "moving"
