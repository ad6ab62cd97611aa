"""Resuming a journaled match after a restart (a power cut, kill -9): the controller takes up the
journal's unfinished match in virtual time, in every state a game can be left in, and guides a board
that differs back to the journaled one."""
import queue
from types import SimpleNamespace

import pytest

from firmware_host.app import EventLoop
from firmware_host.config import load_config
from firmware_host.controller import Orientation
from firmware_host.hw import Beep, ScriptedDice
from firmware_host.journal import Journal, Kind
from firmware_host.leds.scene import DiceSignal, Mark
from firmware_host.rules import BLACK, WHITE, GameResult, Position, Turn
from firmware_host.rules.match import MatchRules, opening_roll
from firmware_host.referee import Step
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.events import BoardChanging, BoardStable, LinkLost, LinkUp

from controller_kit import Board, Rig

PORTES = Position.start("portes")
# White wins the opening 6-5 and rolls 6-5 again; Black then rolls 3-1.
OPENING_AND_TWO_ROLLS = (6, 5, 6, 5, 3, 1)


@pytest.fixture
def rig(tmp_path):
    return Rig(tmp_path, OPENING_AND_TWO_ROLLS)


def moves_of(record: dict) -> list[tuple[str, str]]:
    return [(move["from"], move["to"]) for move in record["moves"]]


def white_opening_play(position: Position = PORTES.with_turn(WHITE)):
    """White's 6-5 from the start: 24/18/13."""
    return next(play for play in Turn(position, (6, 5)).plays()
                if [(m.origin, m.destination) for m in play.moves] == [("24", "18"), ("18", "13")])


# -- a roll under way -------------------------------------------------------------------------------

def test_a_partial_play_on_the_board_goes_on_with_the_journaled_dice_and_no_new_match(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "18", "white"))
    rig.restart(dice=(3, 1))
    assert rig.state == "resuming"
    assert (rig.scene.turn, rig.scene.dice) == ("white", (6, 5))   # the journaled roll, before the board is read
    rig.show()
    assert (rig.state, rig.controller.dice, rig.controller.verdict.kind) == ("moving", (6, 5), "partial")
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "rolling_too_early"
    rig.show(rig.board.move("18", "13", "white"))
    rig.wait(rig.timings.refusal_s)
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))
    (play,) = rig.records(Kind.PLAY)
    assert moves_of(play) == [("24", "18"), ("18", "13")]
    assert len(rig.records(Kind.MATCH_STARTED)) == 1 and len(rig.records(Kind.GAME_STARTED)) == 1
    assert all(event.match_id == rig.controller.match_id for event in rig.journal.tail(5) if event.kind is Kind.PLAY)


@pytest.mark.parametrize("board_shows", ["untouched", "complete"])
def test_the_journaled_position_or_a_complete_play_of_the_roll_goes_on_moving(rig, board_shows):
    rig.to_moving()
    if board_shows == "complete":
        rig.show(rig.board.move("24", "13", "white"))
    rig.restart(dice=(3, 1))
    rig.show()
    assert rig.state == "moving" and rig.beeps == []
    rig.press()
    if board_shows == "complete":
        assert (rig.state, rig.scene.turn) == ("moving", "black")
    else:
        assert rig.records(Kind.REFUSAL)[-1]["reason"] == "rolling_too_early"


def test_after_a_commit_the_other_side_goes_on_with_its_journaled_roll_and_the_last_play_can_be_replayed(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "13", "white"))
    rig.press()
    rig.restart()
    rig.show()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))
    rig.hold()
    assert rig.state == "referee"
    assert rig.marked(Mark.LAST_PLAY_ORIGIN) == {"24"} and rig.marked(Mark.LAST_PLAY_DESTINATION) == {"18"}
    assert (rig.scene.turn, rig.scene.dice) == ("white", (6, 5))
    # The restore page leads back to the position the play was made from, read from the journal.
    assert rig.controller.last_play.before == PORTES.with_turn(WHITE)


def test_a_play_journaled_before_the_next_roll_was_awaits_that_roll(rig):
    journal = rig.journal
    journal.start_match(rig.match_rules)
    journal.start_game("portes", rig.controller.rules, position=PORTES, orientation="as-wired")
    journal.record_opening_roll(6, 5, opening_roll(6, 5, "reroll"))
    journal.record_roll(WHITE, (6, 5))
    play = white_opening_play()
    journal.record_play(WHITE, (6, 5), play)
    rig.restart(dice=(2, 1))
    rig.show(Board.of(play.position))
    assert (rig.state, rig.scene.turn, rig.scene.dice_signal) == ("awaiting_roll", "black", DiceSignal.WAITING)
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (2, 1))
    assert rig.records(Kind.ROLL)[-1] == {"side": "black", "dice": [2, 1]}


def test_a_game_whose_opening_roll_was_not_decided_goes_on_with_the_opening_roll(rig):
    rig.start_game()
    rig.restart(dice=(3, 3, 2, 6, 4, 1))
    rig.show()
    assert rig.state == "opening_roll" and rig.scene.dice_signal is DiceSignal.WAITING
    rig.press()   # 3-3: a tie
    rig.press()   # 2-6: Black starts
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (4, 1))
    assert len(rig.records(Kind.GAME_STARTED)) == 1


def test_between_games_the_next_game_is_set_up_with_the_score_and_the_winner_starting(tmp_path):
    rig = Rig(tmp_path, match=None)
    journal = rig.journal
    match_id = journal.start_match(rig.match_rules)
    journal.start_game("portes", rig.controller.rules, position=PORTES, orientation="as-wired")
    journal.record_opening_roll(2, 5, opening_roll(2, 5, "reroll"))
    journal.end_game(GameResult(BLACK, 2, "gammon"), BLACK, "resigned")
    rig.restart(dice=(6, 4))
    assert rig.state == "setup"
    assert (rig.scene.score.white, rig.scene.score.black, rig.scene.score.target) == (0, 2, 3)
    rig.start_game()
    assert (rig.state, rig.scene.turn) == ("awaiting_roll", "black")
    games = [event for event in rig.journal.tail(100) if event.kind is Kind.GAME_STARTED]
    assert [(event.match_id, event.game, event.data["starter"]) for event in games] == \
        [(match_id, 1, None), (match_id, 2, "black")]
    assert len(rig.records(Kind.MATCH_STARTED)) == 1


# -- a board that differs ---------------------------------------------------------------------------

def test_a_board_that_no_play_of_the_roll_explains_is_guided_back_one_step_at_a_time(rig):
    rig.to_moving()
    rig.restart(dice=(3, 1))
    rig.show(rig.board.move("8", "4", "white"))   # no 4 in 6-5: the nearest legal board is 8/3
    assert rig.state == "correcting"
    assert rig.marked(Mark.TAKE_FROM) == {"4"} and rig.marked(Mark.PUT_ON) == {"3"}
    assert rig.beeps == [Beep.ILLEGAL_BOARD]
    refusal = rig.records(Kind.REFUSAL)[-1]
    assert refusal["reason"] == "board_differs_from_journal" and refusal["state"] == "resuming"
    assert [(step["from"], step["to"]) for step in refusal["steps"]] == [("4", "3")]
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "board_being_corrected"
    rig.show(rig.board.move("4", "3", "white"))
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "white", (6, 5))
    assert rig.controller.verdict.kind == "partial"


def test_a_board_set_up_afresh_is_guided_back_to_the_journaled_game(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "13", "white"))
    rig.press()                                    # Black to play 3-1
    rig.restart()
    rig.show(Board.of(PORTES))                     # someone set the board up for a new game
    assert rig.state == "correcting"
    assert rig.controller.view().guidance == (Step(WHITE, "24", "13"),)
    rig.show(Board.of(PORTES).move("24", "13", "white"))
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (3, 1))


def test_the_lights_follow_the_journaled_orientation(tmp_path):
    rig = Rig(tmp_path, OPENING_AND_TWO_ROLLS, orientation=Orientation.ROTATED)
    rig.to_moving()
    assert rig.records(Kind.GAME_STARTED)[0]["orientation"] == "rotated"
    rig.restart()
    rig.show()
    assert rig.state == "moving" and rig.controller.orientation is Orientation.ROTATED
    rig.board.lift("24", "white")
    rig.changing()
    rotated = Orientation.ROTATED.point
    assert rig.marked(Mark.LIFTED_ORIGIN) == {str(rotated(24))}
    assert rig.marked(Mark.LEGAL_DESTINATION) == {str(rotated(18)), str(rotated(13))}


def test_a_journal_without_the_orientation_finds_it_from_the_board(tmp_path):
    rig = Rig(tmp_path, orientation=Orientation.MIRRORED)
    journal = rig.journal
    journal.start_match(rig.match_rules)
    journal.start_game("portes", rig.controller.rules, position=PORTES)   # as journals before it did
    journal.record_opening_roll(6, 5, opening_roll(6, 5, "reroll"))
    journal.record_roll(WHITE, (6, 5))
    play = white_opening_play()
    journal.record_play(WHITE, (6, 5), play)
    journal.record_roll(BLACK, (3, 1))
    rig.restart()
    rig.lay_out(play.position)
    assert rig.state == "moving" and rig.controller.orientation is Orientation.MIRRORED


# -- what the referee set, faults, presses while resuming ------------------------------------------

def test_after_a_referee_restore_the_same_side_plays_the_same_dice_again(rig):
    rig.to_moving()
    rig.show(rig.board.move("24", "13", "white"))
    rig.press()
    rig.hold()
    while rig.controller.referee_pages[rig.controller.referee_page].kind != "restore":
        rig.press()
    rig.show(rig.board.move("13", "24", "white"))
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "white", (6, 5))
    rig.restart()
    rig.show()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "white", (6, 5))
    assert rig.controller.last_play is None   # the undone play is not the last play any more


def test_a_press_while_resuming_is_refused_and_a_lost_link_comes_back_to_resuming(rig):
    rig.to_moving()
    rig.restart(dice=(3, 1))
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "resuming"
    assert rig.scene.dice_signal is DiceSignal.ROLL_REFUSED
    rig.send(LinkLost("unplugged"))
    assert rig.state == "link_lost"
    rig.send(LinkUp(hello=None))
    assert rig.state == "resuming"
    rig.show()
    assert rig.state == "moving"


def test_the_event_loop_resumes_from_the_config_and_a_journal(tmp_path):
    rig = Rig(tmp_path, OPENING_AND_TWO_ROLLS)
    rig.to_moving()
    rig.journal.close()
    journal = Journal.open(rig.journal_path)
    events = queue.Queue()
    hardware = SimpleNamespace(strip=None, button=None)
    loop = EventLoop.from_config(load_config(None), journal, hardware, events=events, dice=ScriptedDice((3, 1)),
                                 clock=ManualClock(), judge_in_background=False, resume=journal.resume())
    reading = rig.board.sensed()
    loop.post(BoardChanging(reading))
    loop.post(BoardStable(reading))
    loop.turn()
    assert (loop.controller.state, loop.controller.dice) == ("moving", (6, 5))


def test_the_kept_opening_die_survives_a_restart_before_the_starters_first_roll(tmp_path):
    rig = Rig(tmp_path, (6, 2), match=MatchRules(sequence=("portes",), target=3, opening_roll="keep_own_die"))
    rig.start_game()
    rig.press()                       # White 6, Black 2: White starts and keeps the 6
    assert rig.state == "awaiting_roll"
    rig.restart(dice=(4,))
    rig.show()
    assert rig.state == "awaiting_roll"
    rig.press()
    assert (rig.state, rig.scene.dice) == ("moving", (6, 4))
    assert rig.records(Kind.ROLL) == [{"side": "white", "dice": [6, 4]}]


# -- a journal that lost records ------------------------------------------------------------------

def test_a_journal_that_lost_records_shows_it_until_a_press_and_goes_on_from_the_proven_position(rig):
    from firmware_host.journal.proof import Mark, MarkWriter

    rig.to_moving()
    rig.show(rig.board.move("24", "13", "white"))
    rig.press()                                   # White's play committed, Black's 3-1 rolled
    rig.journal.close()
    marks = MarkWriter(rig.journal_path)          # the card lost records after this mark was written
    marks.write(Mark(10 ** 6, "0" * 32))
    marks.close()
    rig.restart(dice=(4, 2))
    assert rig.journal.damage and rig.journal.moved_aside is not None
    assert rig.scene.dice_signal is DiceSignal.JOURNAL_DAMAGED
    rig.show()
    assert rig.scene.dice_signal is DiceSignal.JOURNAL_DAMAGED    # the signal stays until someone has seen it
    rolls = len(rig.records(Kind.ROLL))
    rig.press()
    assert rig.scene.dice_signal is not DiceSignal.JOURNAL_DAMAGED and len(rig.records(Kind.ROLL)) == rolls
    cleared = rig.records(Kind.FAULT_CLEARED)[-1]
    assert cleared["fault"] == "journal_damaged" and "lost committed records" in cleared["damage"]
