"""Gul Bara's cascading doubles, on a few fixed positions (judging deep cascades is slow).

rules.md: "the first three turns of the game play doubles normally. From the fourth turn on, n-n is
played four times, then four times each higher number up to 6. A stage that cannot be played in
full is played as far as possible and ends the turn. Each stage is maximised on its own."
`CascadeModel` (referee_kit) plays those stages with its own move rules; its readings are the
legal readings of the turn.
"""
import random

import pytest

from firmware_host.referee import Referee
from firmware_host.rules import BLACK, WHITE, Turn
from referee_kit import (LOCATIONS, CascadeModel, changed, count, describe, distance,
                         follow_guidance, moved, pos, reading_of)

# Small enough that every reading of every cascade can be judged: bearing off, blocked points, a
# runner, and Black moving.
BEARING_OFF = pos("gulbara", {6: 3, 5: 2, 4: 2}, {14: 4, 16: 4, 18: 2}, rolls=(9, 9))
BLOCKED = pos("gulbara", {8: 2, 3: 2, 2: 1}, {14: 4, 5: 1, 7: 1}, rolls=(5, 5))
TWO_RUNNERS = pos("gulbara", {10: 1, 8: 1}, {14: 13, 16: 2}, rolls=(2, 2))
BLACK_HOME = pos("gulbara", {2: 4, 7: 4, 9: 2}, {15: 2, 14: 3, 17: 2}, turn="black", rolls=(4, 3))
# Bearing off by the rule text (rules.md: when all 15 are in the home board; a larger die only
# from the highest occupied point), which bounds the referee's search: a larger die wasting pips,
# and a last checker outside the home board holding every other back.
LARGER_DICE = pos("gulbara", {6: 1, 3: 2, 2: 1, 1: 1}, {14: 4, 16: 4, 18: 2}, rolls=(9, 9))
LAST_OUTSIDE = pos("gulbara", {9: 1, 5: 2, 2: 2}, {14: 4, 16: 4, 18: 2}, rolls=(9, 9))
POSITIONS = {"bearing_off": BEARING_OFF, "blocked": BLOCKED, "two_runners": TWO_RUNNERS,
             "black_home": BLACK_HOME, "larger_dice": LARGER_DICE, "last_outside": LAST_OUTSIDE}
ROLLS = [(d, d) for d in range(1, 7)]


def cases():
    return [pytest.param(position, id=name) for name, position in POSITIONS.items()]


def stage_dice(low: int) -> list[int]:
    return [d for d in range(low, 7) for _ in range(4)]


@pytest.mark.parametrize("position", cases())
def test_every_reading_of_a_cascade_is_judged_as_the_model_says(position):
    for dice in ROLLS:
        model, referee = CascadeModel(position, dice), Referee(position, dice)
        for reading in model.readings:
            verdict = referee.judge(reading)
            where = f"{dice} {describe(reading)}"
            assert verdict.kind == model.expected_kind(reading), where
            if verdict.kind == "complete":
                replayed = reading_of(position)
                for move in verdict.play.moves:
                    replayed = moved(replayed, position.turn, move.origin, move.destination)
                assert replayed == reading, where
                assert reading_of(verdict.play.position) == reading
                dice_played = [m.die for m in verdict.play.moves]
                assert dice_played == stage_dice(dice[0])[:len(dice_played)], where
            elif verdict.kind == "partial":
                assert verdict.remaining in model.remainders(reading), where


@pytest.mark.parametrize("position", cases())
def test_destinations_in_a_cascade_are_every_place_the_checker_may_reach(position):
    """As in any roll, a checker may go on with the next dice: at the end of one stage into the
    next stage's dice too (one die, or several by the same checker in a row)."""
    for dice in ROLLS:
        model, referee = CascadeModel(position, dice), Referee(position, dice)
        for reading in model.readings:
            verdict = referee.judge(reading)
            if verdict.kind in ("partial", "unchanged"):
                assert dict(verdict.destinations) == model.destinations(reading), \
                    f"{dice} {describe(reading)}"


def test_a_runner_may_go_on_from_the_last_ones_into_the_twos():
    """One white checker on 10, 1-1 from the fourth turn: 10/9/8/7/6 with the ones, then 6/4/2/off
    with the twos. With the checker on 7 (three ones played) it may go to 6, and on to 4, 2 and off:
    the referee itself calls 7 -> 4 partial and 7 -> off complete."""
    runner = pos("gulbara", {10: 1}, {14: 13, 16: 2}, rolls=(2, 2))
    referee = Referee(runner, (1, 1))
    on_seven = moved(reading_of(runner), WHITE, "10", "7")
    assert referee.judge(moved(on_seven, WHITE, "7", "4")).kind == "partial"
    assert referee.judge(moved(on_seven, WHITE, "7", "off")).kind == "complete"
    verdict = referee.judge(on_seven)
    assert verdict.kind == "partial" and verdict.remaining == (1,) + tuple(stage_dice(2))
    assert verdict.destinations == {"7": ("6", "4", "2", "off")}


@pytest.mark.parametrize("position", cases())
def test_a_lifted_checker_in_a_cascade_shows_every_place_the_cascade_takes_it(position):
    for dice in ROLLS:
        model, referee = CascadeModel(position, dice), Referee(position, dice)
        mover = position.turn
        for origin in LOCATIONS:
            if origin == "off" or not count(model.start_reading, mover, origin):
                continue
            verdict = referee.judge(changed(model.start_reading, mover, origin, -1))
            assert verdict.kind == "in_hand" and verdict.origin == origin, (dice, origin)
            assert set(verdict.destinations[origin]) == model.lifted_destinations(origin), (dice, origin)


@pytest.mark.parametrize("position", cases())
def test_guidance_in_a_cascade_reaches_a_legal_board_within_the_announced_steps(position):
    rng = random.Random(f"cascade guidance {describe(reading_of(position))}")
    places = [loc for loc in LOCATIONS if loc != "bar"]
    for dice in ROLLS:
        model, referee = CascadeModel(position, dice), Referee(position, dice)
        legal = sorted(model.readings, key=describe)
        for _ in range(25):
            reading = rng.choice(legal)
            for _ in range(rng.randint(1, 3)):
                color = position.turn if rng.random() < 0.8 else position.turn.opponent
                origin = rng.choice([p for p in places if count(reading, color, p)])
                reading = moved(reading, color, origin, rng.choice(places))
            verdict = referee.judge(reading)
            if reading in model.readings:
                assert verdict.kind == model.expected_kind(reading)
                continue
            assert verdict.kind == "illegal", describe(reading)
            final, followed, trail = follow_guidance(referee, reading, limit=len(verdict.steps))
            assert final.legal and followed <= len(verdict.steps), "\n".join(trail)


def test_guidance_in_a_cascade_leads_to_the_nearest_legal_board():
    """3-3 cascade for checkers on 10 and 8 (13 off): 10/7/4/1 8/5 with the threes, then 5/1 and
    1/off with the fours leave W{1:1} with 14 off, a legal reading on the way. Move that checker
    to 6: the nearest legal board is one step away (6 -> 1), so the guidance is one step."""
    referee = Referee(TWO_RUNNERS, (3, 3))
    legal = moved(moved(reading_of(TWO_RUNNERS), WHITE, "10", "1"), WHITE, "8", "off")
    assert referee.judge(legal).kind == "partial"
    misplaced = moved(legal, WHITE, "1", "6")
    verdict = referee.judge(misplaced)
    assert verdict.kind == "illegal"
    assert distance(misplaced, legal) == 1
    assert len(verdict.steps) == 1, [str(s) for s in verdict.steps]


def test_when_the_next_stage_cannot_move_at_all_the_turn_is_complete():
    """A lone white checker on 10, Black holding 4, 1-1 from the fourth turn: the ones take it to
    6; every two is blocked (6 -> 4 is Black's, bearing off needs an exact or a larger die), so the
    twos are played as far as possible - not at all - and the turn ends: 10/9/8/7/6 is the only
    legal play and its final reading is complete."""
    blocked = pos("gulbara", {10: 1}, {4: 1, 13: 14}, rolls=(2, 2))
    plays = Turn(blocked, (1, 1)).plays()
    assert [str(p) for p in plays] == ["10/9 9/8 8/7 7/6"]
    referee = Referee(blocked, (1, 1))
    final = moved(reading_of(blocked), WHITE, "10", "6")
    verdict = referee.judge(final)
    assert verdict.kind == "complete", verdict.to_json()
    assert verdict.play.position.board_key() == plays[0].position.board_key()


@pytest.mark.parametrize("rolls, remaining_after_ones", [((1, 1), ()), ((2, 1), tuple(stage_dice(2)))])
def test_the_first_three_turns_of_the_game_play_doubles_normally(rolls, remaining_after_ones):
    runner = pos("gulbara", {20: 1, 19: 14}, {5: 13, 3: 2}, rolls=rolls)
    referee = Referee(runner, (1, 1))
    after_ones = moved(reading_of(runner), WHITE, "20", "16")
    verdict = referee.judge(after_ones)
    if remaining_after_ones:
        assert verdict.kind == "partial" and verdict.remaining == remaining_after_ones
    else:
        assert verdict.kind == "complete"


@pytest.mark.parametrize("low", [4, 5])
@pytest.mark.parametrize("seed", range(3))
def test_a_whole_cascade_played_move_by_move(low, seed):
    """An open middle game, Black to move: each move of a cascade chosen stage by stage leaves one
    die fewer to play, and the last one completes the turn with the same play."""
    open_game = pos("gulbara", {24: 6, 20: 2, 16: 3, 9: 2, 3: 2}, {12: 5, 10: 3, 7: 2, 22: 3, 15: 2},
                    turn="black", rolls=(6, 6))
    play = Turn(open_game, (low, low)).pick_play(random.Random(seed).choice)
    referee = Referee(open_game, (low, low))
    reading = reading_of(open_game)
    rolled = len(stage_dice(low))
    for index, move in enumerate(play.moves, 1):
        reading = moved(reading, BLACK, move.origin, move.destination)
        verdict = referee.judge(reading)
        if index < len(play.moves):
            assert verdict.kind == "partial", (str(play), index)
            assert len(verdict.remaining) == rolled - index
    assert verdict.kind == "complete"
    assert verdict.play.position.board_key() == play.position.board_key()


def test_the_final_of_a_long_low_cascade_is_complete():
    """An open middle game, Black to move with 1-1 from the fourth turn: a legal play chosen stage
    by stage by the engine itself (Turn.pick_play) uses all 24 dice. Its final board is the final
    position of a legal play, so it is complete, however many stage paths the referee has to try
    before it finds this one."""
    open_game = pos("gulbara", {24: 6, 20: 2, 16: 3, 9: 2, 3: 2}, {12: 5, 10: 3, 7: 2, 22: 3, 15: 2},
                    turn="black", rolls=(6, 6))
    play = Turn(open_game, (1, 1)).pick_play(random.Random(2).choice)
    final = reading_of(open_game)
    for move in play.moves:
        final = moved(final, BLACK, move.origin, move.destination)
    assert len(play.moves) == 24 and final == reading_of(play.position)
    assert describe(final) == ("W{24:6 20:2 16:3 9:2 3:2} "
                               "B{22:1 19:1 18:1 15:3 13:1 10:1 8:1 6:2 5:1 4:3} bar0/0 off0/0")
    verdict = Referee(open_game, (1, 1)).judge(final)
    assert verdict.kind == "complete", [str(s) for s in verdict.steps]
    assert verdict.play.position.board_key() == play.position.board_key()


def test_a_long_bearing_off_cascade_is_complete_as_moves_lists_it():
    """Issue 11's reproducer: Black bears off 14 with 1-1 and its cascade, one left on 15. `moves`
    lists the play; the referee once gave up its search and called the board illegal."""
    position = pos("gulbara", {4: 5, 5: 5, 6: 5}, {15: 3, 16: 5, 17: 5, 20: 2}, turn="black", rolls=(40, 40))
    final = pos("gulbara", {4: 5, 5: 5, 6: 5}, {15: 1}, turn="black", rolls=(40, 40))
    assert final.board_key() in {play.position.board_key() for play in Turn(position, (1, 1)).plays()}
    verdict = Referee(position, (1, 1)).judge(reading_of(final))
    assert verdict.kind == "complete"
    assert reading_of(verdict.play.position) == reading_of(final)


def test_whole_cascade_maximisation_is_the_referees_too():
    """Issue 11's reproducer: under gulbara_cascade_maximize = whole_cascade, a board that ends a
    stage-by-stage play but not one of the most dice is not a play `moves` lists: not complete."""
    rules = {"gulbara_cascade_maximize": "whole_cascade"}
    position = pos("gulbara", {11: 4, 12: 3, 13: 2, 6: 1, 7: 1, 8: 2, 9: 2},
                   {1: 1, 2: 4, 24: 1, 3: 1, 4: 5, 5: 3}, rolls=(4, 0))
    board = pos("gulbara", {11: 3, 6: 2, 7: 6, 8: 2, 9: 2}, {1: 1, 2: 4, 24: 1, 3: 1, 4: 5, 5: 3}, rolls=(4, 0))
    referee = Referee(position, (5, 5), rules)
    finals = {reading_of(play.position) for play in Turn(position, (5, 5), rules).plays()}
    assert reading_of(board) not in finals
    assert referee.judge(reading_of(board)).kind not in ("complete", "partial")
    assert {referee.judge(final).kind for final in finals} == {"complete"}
    # Stage by stage (the default), the same board ends a play.
    assert Referee(position, (5, 5)).judge(reading_of(board)).kind == "complete"


def test_a_whole_cascade_of_which_only_22_dice_can_be_played_move_by_move():
    """Under whole_cascade, a 1-1 cascade whose 24 dice cannot all be played (White's checker on 22
    never moves: Black holds the six points ahead of it; tests/rules proves 22 the most): every
    move of a play of 22 dice chosen stage by stage is partial with one die fewer to play, and the
    last one completes that play."""
    rules = {"gulbara_cascade_maximize": "whole_cascade"}
    stuck = pos("gulbara", {1: 1, 2: 1, 3: 1, 4: 1, 5: 3, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 15: 1, 22: 1},
                {13: 2, 14: 5, 16: 2, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 23: 1}, rolls=(25, 26))
    play = Turn(stuck, (1, 1), rules).pick_play(random.Random(0).choice)
    assert len(play.moves) == 22
    referee = Referee(stuck, (1, 1), rules)
    reading = reading_of(stuck)
    for index, move in enumerate(play.moves, 1):
        reading = moved(reading, WHITE, move.origin, move.destination)
        verdict = referee.judge(reading)
        if index < len(play.moves):
            assert verdict.kind == "partial", (str(play), index)
            assert len(verdict.remaining) == 24 - index
    assert verdict.kind == "complete"
    assert verdict.play.position.board_key() == play.position.board_key()


def test_a_board_of_a_stage_by_stage_play_off_every_whole_cascade_way_is_illegal_at_once():
    """The same 1-1 cascade: a play chosen stage by stage (the default) may end after 17 dice
    with White's checkers on 1-5 and 22, from where no 5 or 6 can be played (nothing borne off
    while 22 is held in), so the 22 dice of a whole-cascade play cannot be made up: illegal under
    whole_cascade, complete under the default. The referee sees that from the board alone (its
    verdict once took 24-68 s of searching stage ends), and guides to a legal board."""
    rules = {"gulbara_cascade_maximize": "whole_cascade"}
    black = {13: 2, 14: 5, 16: 2, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 23: 1}
    stuck = pos("gulbara", {1: 1, 2: 1, 3: 1, 4: 1, 5: 3, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 15: 1, 22: 1},
                black, rolls=(25, 26))
    board = reading_of(pos("gulbara", {1: 4, 2: 1, 3: 2, 4: 1, 5: 6, 22: 1}, black))
    assert Referee(stuck, (1, 1)).judge(board).kind == "complete"
    referee = Referee(stuck, (1, 1), rules)
    verdict = referee.judge(board)
    assert verdict.kind == "illegal"
    assert referee.judge(reading_of(verdict.target)).legal
    final, followed, trail = follow_guidance(referee, board, limit=len(verdict.steps))
    assert final.legal and followed <= len(verdict.steps), "\n".join(trail)
