"""Two ways a game can stall, each with a state of its own: a permanent mutual blockade (dossier A20),
shown and ended as a draw, and a stuck dice button, an overlay that keeps the game under it."""
import pytest

from firmware_host.controller.faults import EPISODE_QUIET_S
from firmware_host.hw import DiceButtonFreed, DiceButtonStuck
from firmware_host.journal import Kind
from firmware_host.leds.scene import DiceSignal, Mark
from firmware_host.rules import Rules
from firmware_host.sensing.events import LinkLost, LinkUp, SensorFault, SensorFaultCleared, FaultKind

from controller_kit import BEFORE_THE_BLOCKADE, NEVERFINISHING, Rig, journal_game_at


def blockade_rig(tmp_path, **rules) -> Rig:
    rig = Rig(tmp_path, match=NEVERFINISHING)
    journal_game_at(rig, BEFORE_THE_BLOCKADE, (1, 2), Rules.for_variant("neverfinishing", rules or None))
    rig.restart(dice=(4, 4))
    rig.show()
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "black", (1, 2))
    rig.show(rig.board.move("23", "24", "black"))
    rig.press()
    return rig


# -- a permanent mutual blockade ----------------------------------------------------------------------

def test_a_play_that_blocks_both_sides_for_good_shows_the_blockade_and_rolls_nothing(tmp_path):
    rig = blockade_rig(tmp_path)
    assert rig.state == "blockade"
    assert rig.scene.dice_signal is DiceSignal.BLOCKADE and rig.scene.turn is None
    assert rig.records(Kind.REFEREE)[-1]["action"] == "blocked_for_good"
    assert [record["side"] for record in rig.records(Kind.ROLL)] == ["black"]   # no roll for White
    assert rig.records(Kind.PLAY)[-1]["side"] == "black"


def test_a_press_ends_the_blockaded_game_as_a_draw_and_the_match_goes_on(tmp_path):
    rig = blockade_rig(tmp_path)
    rig.press()
    assert rig.state == "game_over"
    (ended,) = rig.records(Kind.GAME_ENDED)
    assert ended["reason"] == "blocked_for_good"
    assert ended["result"] == {"winner": None, "points": 0, "reason": "tie"}
    assert (rig.scene.score.white, rig.scene.score.black, rig.scene.turn) == (0, 0, None)
    rig.wait(rig.timings.game_over_s)
    assert rig.state == "setup" and rig.controller.variant == "neverfinishing"
    assert rig.records(Kind.MATCH_ENDED) == []


def test_under_the_mutual_no_move_draw_house_rule_the_blocking_play_itself_ends_the_game(tmp_path):
    rig = blockade_rig(tmp_path, mutual_no_move_draw=True)
    assert rig.state == "game_over"
    (ended,) = rig.records(Kind.GAME_ENDED)
    assert ended["reason"] == "played" and ended["result"]["reason"] == "tie"
    assert not [r for r in rig.records(Kind.REFEREE) if r["action"] == "blocked_for_good"]


def test_the_blocking_play_can_be_replayed_from_the_blockade(tmp_path):
    rig = blockade_rig(tmp_path)
    rig.hold()
    assert rig.state == "referee"
    assert rig.marked(Mark.LAST_PLAY_ORIGIN) == {"23"} and rig.marked(Mark.LAST_PLAY_DESTINATION) == {"24"}
    rig.hold()
    assert rig.state == "blockade"


# -- a stuck dice button ------------------------------------------------------------------------------

@pytest.fixture
def moving(tmp_path):
    rig = Rig(tmp_path, (6, 5, 6, 5, 3, 1))
    rig.to_moving()
    return rig


def test_a_stuck_button_shows_its_own_signal_over_the_game_and_leaves_when_released(moving):
    rig = moving
    rig.send(DiceButtonStuck(rig.now))
    assert rig.state == "button_stuck"
    assert rig.scene.dice_signal is DiceSignal.BUTTON_STUCK
    assert rig.scene.turn == "white"                      # the game stays shown under it
    rig.board.lift("24", "white")
    rig.changing()
    assert rig.marked(Mark.LIFTED_ORIGIN) == {"24"}
    assert rig.records(Kind.FAULT)[-1]["fault"] == "button_stuck"
    rig.board.place("24", "white")
    rig.send(DiceButtonFreed(rig.now))
    assert (rig.state, rig.scene.dice) == ("moving", (6, 5))
    rig.wait(EPISODE_QUIET_S)   # its end is journaled once it has stayed away (an episode)
    assert rig.records(Kind.FAULT_CLEARED)[-1]["fault"] == "button_stuck"


def test_a_lost_link_or_a_sensor_fault_hides_a_stuck_button_which_shows_again_after_them(moving):
    rig = moving
    rig.send(DiceButtonStuck(rig.now))
    rig.send(LinkLost("unplugged"))
    assert rig.state == "link_lost"
    rig.send(LinkUp(hello=None))
    assert rig.state == "button_stuck"
    fault = SensorFault("point:7", FaultKind.FLICKER, "seven flickers")
    rig.send(fault)
    assert rig.state == "sensor_fault"
    rig.send(SensorFaultCleared("point:7", FaultKind.FLICKER))
    assert rig.state == "button_stuck"
    rig.send(DiceButtonFreed(rig.now))
    assert rig.state == "moving"


def test_a_button_freed_under_a_lost_link_leaves_only_the_lost_link(moving):
    rig = moving
    rig.send(DiceButtonStuck(rig.now))
    rig.send(LinkLost("unplugged"))
    rig.send(DiceButtonFreed(rig.now))
    assert rig.state == "link_lost"
    rig.send(LinkUp(hello=None))
    assert rig.state == "moving"


def test_a_button_stuck_during_setup_returns_to_setup(tmp_path):
    rig = Rig(tmp_path)
    rig.send(DiceButtonStuck(0.0))
    assert rig.state == "button_stuck" and rig.scene.dice_signal is DiceSignal.BUTTON_STUCK
    rig.send(DiceButtonFreed(1.0))
    assert rig.state == "setup"


def test_a_restart_in_a_blockade_goes_on_in_the_blockade_and_a_disturbed_board_is_guided_back(tmp_path):
    rig = blockade_rig(tmp_path)
    rig.restart()
    rig.show(rig.board.move("1", "2", "white"))
    assert rig.state == "correcting"
    rig.show(rig.board.move("2", "1", "white"))
    assert rig.state == "blockade" and rig.scene.dice_signal is DiceSignal.BLOCKADE
    rig.press()
    assert rig.state == "game_over" and rig.records(Kind.GAME_ENDED)[-1]["reason"] == "blocked_for_good"
