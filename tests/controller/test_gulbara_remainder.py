"""Gulbara with gulbara_remainder = opponent_plays (rules.md, dossier T49): the dice a cascade leaves
unplayed go to the opponent, who plays them before his own roll; with the default (`lost`) they
are lost. From the dossier's T48 position, White to roll 3-3 on a later turn."""
import dataclasses
import random

from firmware_host.journal import Kind
from firmware_host.rules import BLACK, Owed, Play, Position, Rules, Turn
from firmware_host.rules.match import MatchRules

from controller_kit import Board, Rig, journal_game_at

T48 = Position.from_json({
    "variant": "gulbara", "turn": "white", "rolls": {"white": 3, "black": 3},
    "white": {"points": {"22": 1, "18": 1, "12": 13}, "bar": 0, "off": 0},
    "black": {"points": {"23": 1, "9": 1, "8": 1, "7": 1, "6": 11}, "bar": 0, "off": 0},
})
LEFT_OVER = (4, 4, 5, 5, 5, 5, 6, 6, 6, 6)   # after 22/10 with four 3s and 18/10 with two 4s


def white_plays_six_of_the_cascade(tmp_path, remainder: str) -> Rig:
    rig = Rig(tmp_path, match=MatchRules(sequence=("gulbara",), target=3))
    journal_game_at(rig, T48, (3, 3), Rules.for_variant("gulbara", {"gulbara_remainder": remainder}))
    rig.restart(dice=(2, 1, 5, 3))
    rig.show()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "white", (3, 3))
    rig.show(rig.board.move("22", "10", "white").move("18", "10", "white"))
    rig.press()
    return rig


def test_the_dice_a_cascade_leaves_are_played_by_the_opponent_before_his_own_roll(tmp_path):
    rig = white_plays_six_of_the_cascade(tmp_path, "opponent_plays")
    controller = rig.controller
    assert (rig.state, rig.scene.turn, controller.dice) == ("moving", "black", LEFT_OVER)
    assert isinstance(controller.dice, Owed) and rig.scene.dice == (4, 4)
    assert rig.records(Kind.PLAY)[-1]["remainder"] == list(LEFT_OVER)
    assert [r["side"] for r in rig.records(Kind.ROLL)] == ["white"]          # Black has not rolled yet
    answer = Turn(controller.position, controller.dice, controller.rules).pick_play(random.Random(3).choice)
    assert answer.moves
    rig.show(Board.of(answer.position))
    rig.press()
    owed_play = rig.records(Kind.PLAY)[-1]
    assert owed_play["side"] == "black" and owed_play["dice"] == list(LEFT_OVER) and "remainder" not in owed_play
    # Still Black's turn, and not one of its turns played: now its own roll.
    assert Position.from_json(owed_play["position"]).turn is BLACK
    assert Position.from_json(owed_play["position"]).rolls == (4, 3)
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (2, 1))
    assert rig.records(Kind.ROLL)[-1] == {"side": "black", "dice": [2, 1]}


def test_by_default_the_left_over_dice_are_lost_and_the_opponent_rolls(tmp_path):
    rig = white_plays_six_of_the_cascade(tmp_path, "lost")
    assert "remainder" not in rig.records(Kind.PLAY)[-1]
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "black", (2, 1))


def test_owed_dice_survive_a_restart(tmp_path):
    rig = white_plays_six_of_the_cascade(tmp_path, "opponent_plays")
    rig.restart(dice=(6, 2))
    rig.show()
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "black", LEFT_OVER)
    assert isinstance(rig.controller.dice, Owed)


def test_a_restart_between_the_owed_play_and_the_own_roll_awaits_that_roll(tmp_path):
    rig = white_plays_six_of_the_cascade(tmp_path, "opponent_plays")
    controller = rig.controller
    answer = Turn(controller.position, controller.dice, controller.rules).pick_play(random.Random(3).choice)
    # The owed play as the controller journals it (still Black to move), and then the power cut.
    still_black = dataclasses.replace(answer.position, turn=BLACK, rolls=controller.position.rolls)
    rig.journal.record_play(BLACK, controller.dice, Play(answer.moves, still_black))
    rig.restart(dice=(6, 2))
    rig.show(Board.of(answer.position))
    assert (rig.state, rig.scene.turn) == ("awaiting_roll", "black")
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (6, 2))


def test_owed_dice_blink_one_at_a_time_on_both_faces_then_pause_and_begin_again(tmp_path):
    """Two faces cannot show ten owed dice: each blinks in turn (as many blinks as dice owed)."""
    rig = white_plays_six_of_the_cascade(tmp_path, "opponent_plays")
    shown = [rig.scene.dice]
    while shown.count((4, 4)) < 3:   # the two 4s, then the first 4 of the next round
        rig.wait(rig.controller.next_deadline() - rig.now)
        if rig.scene.dice != shown[-1]:
            shown.append(rig.scene.dice)
    blinks = [(die, die) for die in LEFT_OVER]
    assert shown == [faces for blink in blinks for faces in (blink, None)] + [(4, 4)]
    assert rig.state == "moving" and rig.controller.dice == LEFT_OVER


def test_a_roll_is_shown_steady(tmp_path):
    rig = white_plays_six_of_the_cascade(tmp_path, "lost")
    assert rig.scene.dice == (2, 1) and rig.controller.next_deadline() is None
