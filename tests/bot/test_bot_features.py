"""What the bot reads off a board (features.board_terms), checked against counts made by hand from
the rules' geometry: pip counts, blots within a shot, points made, blocks, the bar, pins and the
mothers, always from the view of the side that has just played."""
import numpy as np
import pytest

from firmware_host.bot.features import Boards, GameShape, board_terms, encode, input_size
from firmware_host.rules import BLACK, VARIANTS, WHITE, Position, Rules
from firmware_host.rules.plays import Frame


def terms(position: Position, side=WHITE) -> dict:
    rules = Rules.for_variant(position.variant)
    boards = Boards.of([Frame(position, side, rules).node])
    return {name: float(value[0]) for name, value in board_terms(boards, GameShape.of(rules)).items()}


def position(variant, white, black, **more):
    data = {"variant": variant, "turn": "black",
            "white": {"points": {str(p): n for p, n in white.items()}},
            "black": {"points": {str(p): n for p, n in black.items()}}}
    for key, value in more.items():
        side, field = key.split("_")
        data[side][field] = value
    return Position.from_json(data)


def pips(checkers: dict, distance) -> int:
    return sum(n * distance(p) for p, n in checkers.items())


def test_pip_counts_in_a_contrary_game_follow_each_sides_direction():
    white = {24: 2, 13: 5, 8: 3, 6: 5}
    black = {1: 2, 12: 5, 17: 3, 19: 5}
    seen = terms(position("portes", white, black))
    assert seen["my_pips"] == pips(white, lambda p: p) == 167       # White runs 24 -> 1
    assert seen["opp_pips"] == pips(black, lambda p: 25 - p) == 167   # Black runs 1 -> 24
    assert terms(position("portes", white, black), BLACK)["my_pips"] == 167


def test_pip_counts_in_a_parallel_game_follow_the_shared_direction():
    # Black runs 12 -> 1, then 24 -> 13: a checker on p <= 12 has p + 12 pips to go, else p - 12.
    white = {24: 10, 3: 5}
    black = {12: 10, 20: 5}
    seen = terms(position("fevga", white, black))
    assert seen["my_pips"] == 10 * 24 + 5 * 3
    assert seen["opp_pips"] == 10 * 24 + 5 * 8
    assert seen["pip_lead"] == seen["opp_pips"] - seen["my_pips"]


def test_the_bar_counts_25_pips_and_a_checker_on_it():
    seen = terms(position("portes", {6: 14}, {19: 14}, white_bar=1, black_bar=1))
    assert seen["my_pips"] == 14 * 6 + 25 and seen["opp_pips"] == 14 * 6 + 25
    assert seen["my_bar"] == 1 and seen["opp_bar"] == 1


def test_blots_in_a_direct_and_an_indirect_shot():
    # White blots on 10 and 20; Black (running 1 -> 24) shoots from 7 (3 away from 10) and
    # 2 (8 away from 10; 18 away from 20: no shot).
    seen = terms(position("portes", {10: 1, 20: 1, 6: 13}, {7: 1, 2: 14}))
    assert seen["my_blots"] == 2
    assert seen["my_blots_hit_direct"] == 1        # 7 -> 10
    assert seen["my_blots_hit_indirect"] == 1      # 2 -> 10
    assert seen["opp_blots_direct"] == 1           # White's 10 -> 7 (the 6s and 20 are out of reach)
    # Black's blot on 4: White's 10 (6 away) and 6 (2 away) both shoot at it.
    assert terms(position("portes", {10: 1, 20: 1, 6: 13}, {4: 1, 2: 14}))["opp_blots_direct"] == 2


def test_points_made_and_the_longest_block():
    contrary = terms(position("portes", {6: 2, 5: 2, 4: 2, 2: 2, 13: 7}, {24: 15}))
    assert contrary["my_points"] == 5 and contrary["my_block"] == 3 and contrary["my_home_points"] == 4
    # In a parallel game one checker holds a point.
    parallel = terms(position("fevga", {20: 1, 19: 1, 18: 1, 17: 1, 24: 11}, {12: 15}))
    assert parallel["my_points"] == 5 and parallel["my_block"] == 4
    assert parallel["my_on_start"] == 11 and parallel["opp_on_start"] == 15


def test_a_parallel_block_is_counted_along_the_opponents_route():
    # White's start (24) and home points 5..1 are six points in a row on Black's route
    # (... 13 -> 1 is White's home, then 24): a full block, though White runs 24 -> 1 himself.
    home_and_start = terms(position("fevga", {24: 10, 5: 1, 4: 1, 3: 1, 2: 1, 1: 1}, {12: 15}))
    assert home_and_start["my_block"] == 6
    # 13 and 12 follow each other on White's route but are Black's last and first points: for
    # Black they are no block.
    assert terms(position("fevga", {13: 1, 12: 1, 24: 13}, {20: 15}))["my_block"] == 1
    # For White, Black's 14, 13 (the end of Black's route) and 12 (his start) are one block.
    assert terms(position("fevga", {24: 15}, {14: 1, 13: 1, 12: 13}))["opp_block"] == 3


def test_the_checkers_behind_each_sides_longest_block_in_a_parallel_game():
    # White holds 20..16, a block of five on Black's way from 12 round to 13: Black's checkers on
    # 12..9 and the two on 21 have it ahead; the three on 14 are past it. Black's longest block,
    # 12..9, is ahead of White's nine on 24 and five on 20..16; White's one on 8 is past it.
    white = {20: 1, 19: 1, 18: 1, 17: 1, 16: 1, 24: 9, 8: 1}
    black = {12: 7, 11: 1, 10: 1, 9: 1, 21: 2, 14: 3}
    seen = terms(position("fevga", white, black))
    assert seen["my_block"] == 5 and seen["opp_behind_my_block"] == 7 + 1 + 1 + 1 + 2
    assert seen["opp_block"] == 4 and seen["my_behind_opp_block"] == 9 + 5
    # At the start each side's one point, its start, is ahead of all the other's checkers.
    start = terms(position("fevga", {24: 15}, {12: 15}))
    assert start["my_behind_opp_block"] == start["opp_behind_my_block"] == 15
    # A side with no checker left on the board holds no block: nothing is behind it.
    assert terms(position("fevga", {}, {12: 15}, white_off=15))["opp_behind_my_block"] == 0


def test_pins_and_the_mothers():
    # White pins Black's mother (Black's start is point 1) and Black pins a White checker on 20.
    pinned = Position.from_json({
        "variant": "plakoto", "turn": "black",
        "white": {"points": {"1": 1, "20": 1, "24": 13}},
        "black": {"points": {"1": 1, "20": 1, "10": 13}},
        "pinned": {"1": "black", "20": "white"}})
    seen = terms(pinned)
    assert seen["opp_pinned"] == 1 and seen["my_pinned"] == 1
    assert seen["opp_mother_pinned"] == 1 and seen["my_mother_pinned"] == 0
    black_view = terms(pinned, BLACK)
    assert black_view["my_mother_pinned"] == 1 and black_view["opp_mother_pinned"] == 0
    assert terms(position("plakoto", {24: 1, 6: 14}, {1: 15}))["my_mother_alone"] == 1


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_inputs_of_every_game_have_one_fixed_size_and_are_scaled(variant):
    rules = Rules.for_variant(variant)
    shape = GameShape.of(rules)
    start = Position.start(variant)
    x = encode(Boards.of([Frame(start, WHITE, rules).node]), shape)
    assert x.shape == (1, input_size(shape)) and x.dtype == np.float32
    assert np.all(np.abs(x) <= 6.0)  # the most: a stack of 15, TD-Gammon's (15 - 3) / 2
    assert (shape.pinning, shape.hitting) == (variant in ("plakoto", "tapa", "neverfinishing"),
                                              variant in ("portes", "tavla", "neverfinishing"))
