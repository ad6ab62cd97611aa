"""bench/bench_pips_lost.py, which says where a parallel game's pips go: the pips of a roll that a
play does not move, counted from the rules ("use as many dice as possible"; a Gul Bara cascade stage
that cannot be played in full ends the turn), and a game's tally for each side."""
import random
import sys
from pathlib import Path

from firmware_host.bot import HeuristicPlayer, RandomPlayer
from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_pips_lost import cascade_before_home, game, pips_lost  # noqa: E402


def gul_bara(black: dict, rolls: int = 0) -> Position:
    # White (24 -> 1) has all 15 on 24; Black holds the points in `black` with single checkers.
    return Position.from_json({"variant": "gulbara", "turn": "white",
                               "white": {"points": {"24": 15}},
                               "black": {"points": {**{str(p): 1 for p in black}, "12": 15 - len(black)}},
                               "rolls": {"white": rolls, "black": rolls}})


def best(turn: Turn):
    return turn.pick_play(lambda items: items[0])


def test_a_roll_the_blocks_leave_no_move_for_loses_all_its_pips():
    turn = Turn(gul_bara({18, 19, 20, 21, 22, 23}), (6, 1))
    assert pips_lost(turn, best(turn)) == 7


def test_only_the_die_that_cannot_be_played_is_lost():
    # 22 is open: the 2 moves 24 -> 22, and the 1 from 24 or from 22 lands on Black's points.
    turn = Turn(gul_bara({18, 19, 20, 21, 23}), (2, 1))
    assert pips_lost(turn, best(turn)) == 1


def test_a_cascade_cut_short_loses_every_stage_after_the_one_it_stopped_in():
    # 2-2 after the protected turns cascades 2, 3, 4, 5, 6 (80 pips): four checkers move 24 -> 22,
    # then no 3 can be played (21 and 19 are Black's) and the turn ends.
    turn = Turn(gul_bara({18, 19, 20, 21, 23}, rolls=3), (2, 2))
    assert len(turn.stages) == 5 and cascade_before_home(turn)
    assert pips_lost(turn, best(turn)) == 80 - 8
    assert not cascade_before_home(Turn(gul_bara({18, 19, 20, 21, 23}), (2, 2)))   # not yet a cascade


def test_a_game_tallies_both_sides_and_names_its_winner():
    rules = Rules.for_variant("fevga")
    lost, winner = game(rules, {WHITE: HeuristicPlayer(rules), BLACK: RandomPlayer()}, WHITE, random.Random(3))
    assert winner in (WHITE, BLACK)
    assert all(side["all"] >= side["cascades_before_home"] == 0 for side in lost.values())
    assert lost[BLACK]["all"] > 0
