"""Dossier §6 test situations for the parallel games: fevga, moultezim, gulbara, narde (T29-T57)."""
import random

import pytest

from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn, legal_plays, side_can_move
from rules_kit import after, describe, finals, outcomes, pos, replay

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
LATER = (3, 3)          # roll counts of a later turn: no first-roll exceptions, no gulbara protection


# -- Fevga / Moultezim: the first checker -----------------------------------------------------------

@pytest.mark.parametrize("variant", ["fevga", "moultezim"])
@pytest.mark.parametrize("dice, expected", [
    ((6, 6), ["24/18"]),           # T29: 18/12 blocked, no second checker may leave
    ((4, 4), ["24/16"]),           # T30: 16/12 blocked
    ((3, 3), ["24/15"]),           # T31: the fourth 3 would land on 12
    ((2, 2), ["24/16"]),
    ((1, 1), ["24/20"]),
    ((5, 5), ["24/4", "24/9 24/19"]),   # T32: 24/19/14/9 passes 12, the fourth 5 is free
    ((6, 5), ["24/13"]),           # T33: the dice may not be split
])
def test_t29_to_t33_first_checker_on_the_opening_roll(variant, dice, expected, generate):
    p = Position.start(variant)
    assert generate(p, dice) == finals(p, *expected)


@pytest.mark.parametrize("options, expected", [
    ({"first_checker_release_timing": "immediate"}, ["24/4", "24/9 24/19"]),
    ({"first_checker_release_timing": "next_turn"}, ["24/4"]),
])
def test_t32_release_timing_on_5_5(options, expected, generate):
    p = Position.start("fevga")
    assert generate(p, (5, 5), options) == finals(p, *expected)


@pytest.mark.parametrize("variant", ["gulbara"])
def test_t33_t50_gulbara_has_no_start_restriction(variant, generate):
    p = Position.start(variant)
    assert generate(p, (6, 5)) == finals(p, "24/13", "24/18 24/19")


def test_t34_forced_order_of_the_runner(generate):
    p = pos("fevga", {24: 14, 14: 1}, {12: 14, 3: 1})
    assert generate(p, (2, 1)) == finals(p, "14/11")


@pytest.mark.parametrize("options, expected", [
    (None, ["13/5", "13/11 24/18", "13/7 24/22"]),
    ({"first_checker_release_timing": "next_turn"}, ["13/5"]),
])
def test_t35_release_in_mid_turn(options, expected, generate):
    p = pos("fevga", {24: 14, 13: 1}, {12: 14, 3: 1})
    assert generate(p, (6, 2), options) == finals(p, *expected)


# -- Fevga: starting table and the unblock obligation -----------------------------------------------

T36 = (("fevga", {24: 3, 23: 1, 22: 1, 21: 1, 20: 1, 8: 1, 1: 7},
        {18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 13: 1, 12: 9}))
T36_LEGAL = ["24/19 23/22", "24/19 22/21", "24/19 21/20", "24/19 20/19", "24/23 8/3",
             "23/22 8/3", "22/21 8/3", "21/20 8/3", "20/19 8/3", "8/2"]
T36_FULL_TABLE = ["24/19 24/23", "24/19 8/7"]   # would hold all of 19-24


def test_t36_starting_table_rule_leaves_ten_outcomes(generate):
    p = pos(*T36)
    assert generate(p, (5, 1)) == finals(p, *T36_LEGAL)


def test_t36_without_the_starting_table_rule_twelve_outcomes(generate):
    p = pos(*T36)
    assert generate(p, (5, 1), {"start_table_scope": "none"}) == finals(p, *T36_LEGAL, *T36_FULL_TABLE)


T37_WHITE = {7: 2, 6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 3}


@pytest.mark.parametrize("black, options, expected", [
    ({8: 15}, None, ["7/1 7/2"]),                                   # T37: must open 7
    ({8: 15}, {"prime_rule": "none"}, ["7/1 7/2", "7/1 6/1"]),
    ({8: 14, 9: 1}, None, ["7/1 7/2", "7/1 6/1"]),                 # T38: not all on one point
], ids=["t37-unblock", "t37-prime-rule-none", "t38-two-points"])
def test_t37_t38_unblock_when_all_wait_behind_the_prime(black, options, expected, generate):
    p = pos("fevga", T37_WHITE, black)
    assert generate(p, (6, 5), options) == finals(p, *expected)


T39 = ("fevga", {24: 14, 16: 1}, {15: 1, 14: 1, 13: 1, 12: 10, 11: 1, 10: 1})


@pytest.mark.parametrize("dice", ROLLS)
def test_t39_runner_stuck_behind_a_block_cannot_move_with_any_roll(dice, generate):
    p = pos(*T39)
    assert generate(p, dice) == finals(p, "")


def test_t39_side_can_move_agrees():
    assert not side_can_move(pos(*T39), Rules.for_variant("fevga"))
    assert side_can_move(pos(*T39, turn="black"), Rules.for_variant("fevga"))


# Black to move in T39 with 6-5 (derivation: 12, 11, 10 can move 5 or 6; 15-13 cannot bear off yet;
# 0 and below wraps to 24.., where 24 is White's). Two of the nine plays keep 10-15 closed.
T39_BLACK = ["12/6 12/7", "12/1", "12/6 11/6", "12/6 10/5", "11/5 12/7", "11/5 10/5",
             "10/4 12/7", "10/4 11/6", "10/23"]


@pytest.mark.parametrize("options, expected", [
    (None, T39_BLACK),                          # default: White's checkers are on two points, no duty
    ({"prime_rule": "opponent_must_be_able_to_move"}, T39_BLACK[2:]),
])
def test_t39_black_owes_nothing_unless_the_opponent_must_be_able_to_move(options, expected,
                                                                          generate):
    p = pos(*T39, turn="black")
    assert generate(p, (6, 5), options) == finals(p, *expected)


@pytest.mark.parametrize("options, expected", [
    (None, ["14/6", "14/8 24/22"]),
    ({"first_checker_release_at": "start_quarter"}, ["14/6", "14/8 24/22", "14/12 24/18"]),
])
def test_t40_opponents_start_vacated(options, expected, generate):
    p = pos("fevga", {24: 14, 14: 1}, {5: 15})
    assert generate(p, (6, 2), options) == finals(p, *expected)


@pytest.mark.parametrize("options, expected", [
    (None, ["10/4"]),
    ({"higher_die_rule": False}, ["10/4", "10/7"]),
])
def test_t41_higher_die_in_fevga(options, expected, generate):
    p = pos("fevga", {10: 1, 2: 14}, {1: 1, 18: 14})
    assert generate(p, (6, 3), options) == finals(p, *expected)


@pytest.mark.parametrize("options, expected", [
    (None, ["16/13"]),
    ({"start_rule": "head_rule"}, ["24/20", "24/21 16/15", "24/23 16/13"]),
])
def test_t42_first_checker_versus_head_rule(options, expected, generate):
    p = pos("fevga", {24: 14, 16: 1}, {12: 14, 3: 1}, rolls=(1, 1))
    assert generate(p, (3, 1), options) == finals(p, *expected)


# -- Moultezim: at most four points of the opponent's starting table ---------------------------------

T43 = ({24: 9, 20: 1, 11: 1, 10: 2, 9: 1, 8: 1}, {12: 14, 3: 1})
T43_FIVE_POINTS = ["10/7 20/19", "10/7 24/23"]          # would hold 7, 8, 9, 10, 11


def test_t43_fevga_rules_give_34_outcomes():
    assert len(outcomes(pos("fevga", *T43), (3, 1))) == 34


@pytest.mark.parametrize("variant, options, removed", [
    ("moultezim", None, T43_FIVE_POINTS),
    ("moultezim", {"prime_rule": "none"}, []),
    ("fevga", {"prime_rule": "opp_start_table_max4"}, T43_FIVE_POINTS),
])
def test_t43_four_point_limit_removes_exactly_two_plays(variant, options, removed, generate):
    fevga = outcomes(pos("fevga", *T43), (3, 1))
    p = pos(variant, *T43)
    assert finals(p, *removed) <= fevga
    assert generate(p, (3, 1), options) == fevga - finals(p, *removed)


# -- Gul Bara: cascading doubles ---------------------------------------------------------------------

# A single White runner on 24, the other 14 on point 1 (they cannot move until all are home) and
# Black out of the way on 13: every stage of a cascade is forced, so each roll has one play.
RUNNER = ({24: 1, 1: 14}, {13: 15})


def only_play(position, dice, options=None):
    plays = legal_plays(position, dice, options)
    assert len(plays) == 1, [str(p) for p in plays]
    return plays[0]


def test_t44_six_six_after_the_protected_turns_is_four_sixes():
    # 24/18/12/6 (all home now), then 6/off; "nothing follows" 6-6.
    play = only_play(pos("gulbara", *RUNNER, rolls=LATER), (6, 6))
    assert [m.die for m in play.moves] == [6] * 4
    assert describe(play) == describe(pos("gulbara", {1: 14}, {13: 15}))


def test_t44_six_six_is_the_same_with_or_without_cascades(generate):
    p = pos("gulbara", {24: 8, 20: 2, 17: 2, 9: 3}, {12: 8, 5: 3, 22: 2, 14: 2}, rolls=LATER)
    assert generate(p, (6, 6)) == outcomes(p, (6, 6), {"cascading_doubles": False})


@pytest.mark.parametrize("rolls, dice_played, expected", [
    ((1, 1), [3] * 4, ({1: 14, 12: 1}, {13: 15})),               # turn 3: doubles normally
    # turn 4: 3s 24/12, 4s 12/8/4 then 4/off and one from 1, four 5s and four 6s from 1
    ((2, 1), [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4, ({1: 5}, {13: 15})),
], ids=["t45-turn-3-protected", "turn-4-cascades"])
def test_t45_protected_turns(rolls, dice_played, expected):
    play = only_play(pos("gulbara", *RUNNER, rolls=rolls), (3, 3))
    assert [m.die for m in play.moves] == dice_played
    assert describe(play) == describe(pos("gulbara", *expected))


# Black's runner on 12, 14 Black on 13: 2s 12/10/8/6/4, 3s 4/1/22/19/16 (home now), 4s 16/off and
# three from 13, then four 5s and four 6s from 13 - three Black checkers stay on 13.
BLACK_RUNNER = ({24: 15}, {12: 1, 13: 14})


@pytest.mark.parametrize("options, dice_played, black_left", [
    (None, [2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6], {13: 3}),
    ({"gulbara_protected_scope": "per_player"}, [2, 2, 2, 2], {4: 1, 13: 14}),
])
def test_t46_whose_turns_are_protected(options, dice_played, black_left):
    # White started: turn 4 is Black's second roll (White has rolled twice, Black once).
    p = pos("gulbara", *BLACK_RUNNER, turn="black", rolls=(2, 1))
    play = only_play(p, (2, 2), options)
    assert [m.die for m in play.moves] == dice_played
    assert describe(play) == describe(pos("gulbara", BLACK_RUNNER[0], black_left))


def test_t47_one_one_cascades_through_every_number():
    # 1s 24/20, 2s 20/12, 3s 12/6 (home) 6/3 3/off, then four each of 4, 5, 6 bear off from 1.
    play = only_play(pos("gulbara", *RUNNER, rolls=LATER), (1, 1))
    assert [m.die for m in play.moves] == [d for d in range(1, 7) for _ in range(4)]
    assert describe(play) == describe(pos("gulbara", {1: 2}, {13: 15}))


def test_cascading_doubles_off_plays_one_one_as_four_ones():
    play = only_play(pos("gulbara", *RUNNER, rolls=LATER), (1, 1), {"cascading_doubles": False})
    assert describe(play) == describe(pos("gulbara", {20: 1, 1: 14}, {13: 15}))


@pytest.mark.parametrize("protected, moves", [(3, 4), (0, 24)])
def test_gulbara_protected_turns_option_on_the_first_turn(protected, moves):
    play = only_play(pos("gulbara", *RUNNER), (1, 1), {"gulbara_protected_turns": protected})
    assert len(play.moves) == moves


T48 = ("gulbara", {22: 1, 18: 1, 12: 13}, {23: 1, 9: 1, 8: 1, 7: 1, 6: 11})


@pytest.mark.parametrize("options, expected", [
    (None, [{12: 13, 10: 2}, {12: 13, 13: 1, 11: 1}, {12: 15}]),
    ({"gulbara_cascade_maximize": "whole_cascade"}, [{12: 13, 10: 2}]),
])
def test_t48_cascade_stops_and_maximisation(options, expected, generate):
    p = pos(*T48, rolls=LATER)
    black = T48[2]
    assert generate(p, (3, 3), options) == {describe(pos("gulbara", w, black)) for w in expected}


def test_t49_remainder_is_lost_by_default():
    assert all(play.remainder == () for play in legal_plays(pos(*T48, rolls=LATER), (3, 3)))


def test_t49_remainder_goes_to_the_opponent():
    # The unplayed dice: 2 fours (after 6 dice) or 3 fours (after 5), then four 5s and four 6s.
    p = pos(*T48, rolls=LATER)
    remainders = {describe(play): tuple(sorted(play.remainder))
                  for play in legal_plays(p, (3, 3), {"gulbara_remainder": "opponent_plays"})}
    rest = (5,) * 4 + (6,) * 4
    assert remainders == {
        describe(pos("gulbara", {12: 13, 10: 2}, T48[2])): (4, 4) + rest,
        describe(pos("gulbara", {12: 13, 13: 1, 11: 1}, T48[2])): (4, 4, 4) + rest,
        describe(pos("gulbara", {12: 15}, T48[2])): (4, 4, 4) + rest,
    }


WHOLE = {"gulbara_cascade_maximize": "whole_cascade"}
# A later turn's 1-1 cascade of which White can play only 22 of the 24 dice (from bench_bot's
# gulbara/whole_cascade series: proving that no play uses more once searched all 39,008 stage ends).
STUCK = ("gulbara", {1: 1, 2: 1, 3: 1, 4: 1, 5: 3, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 15: 1, 22: 1},
         {13: 2, 14: 5, 16: 2, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 23: 1})


@pytest.mark.parametrize("seed", range(3))
def test_whole_cascade_of_which_only_22_dice_can_be_played(seed):
    """White's checker on 22 has Black on each of the six points ahead of it (21 down to 16): no
    die ever moves it (nothing is hit in gulbara), so White never has all 15 in the home board and
    bears nothing off (rules.md). The others can travel 77 pips down to White's last point, 1; the
    cascade's first 23 dice (four each of 1 to 5, then three 6s) are 78 pips, so no play uses more
    than 22 dice. A play chosen stage by stage uses 22, every move legal on the board before it:
    22 is the most, and the play a chooser gets under whole_cascade uses it."""
    white, black = STUCK[1], STUCK[2]
    assert all(22 - die in black for die in range(1, 7))
    pips = sum((point - 1) * n for point, n in white.items() if point != 22)
    assert pips == 77 < 4 * (1 + 2 + 3 + 4 + 5) + 3 * 6
    p = pos(*STUCK, rolls=(25, 26))
    turn = Turn(p, (1, 1), WHOLE)
    assert turn.whole_cascade.most == 22
    play = turn.pick_play(random.Random(seed).choice)
    assert len(play.moves) == 22
    _, final = replay(p, play, WHOLE)
    assert final.key() == play.position.board_key()


def test_a_board_from_which_the_whole_cascades_most_cannot_be_made_up():
    """The same cascade: after 17 dice (45 pips: four each of 1 to 4 and a 5) a play chosen
    stage by stage may leave White on 1-5 and 22; no 5 or 6 can move from there (no checker is more
    than 4 pips from 1, and none bears off while 22 is held in), so 22 dice cannot be made up: that
    board lies on no play of the whole cascade; the final board of a 22-dice play may show."""
    p = pos(*STUCK, rolls=(25, 26))
    whole = Turn(p, (1, 1), WHOLE).whole_cascade
    off_the_way = pos("gulbara", {1: 4, 2: 1, 3: 2, 4: 1, 5: 6, 22: 1}, STUCK[2])
    assert not whole.may_show(Turn(off_the_way, (1, 1)).start.me)
    play = Turn(p, (1, 1), WHOLE).pick_play(random.Random(0).choice)
    assert whole.may_show(Turn(play.position.with_turn(WHITE), (1, 1)).start.me)


# -- Long Nardy: head rule and prime rule ------------------------------------------------------------

@pytest.mark.parametrize("dice, expected", [
    ((6, 6), ["24/18(2)"]),                 # T51
    ((4, 4), ["24/16(2)"]),                 # T52
    ((3, 3), ["24/18(2)", "24/21 24/15"]),  # T53
    ((5, 5), ["24/4"]),                     # T54
])
def test_t51_to_t54_narde_first_roll(dice, expected, generate):
    p = Position.start("narde")
    assert generate(p, dice) == finals(p, *expected)


def test_t55_one_checker_off_the_head_on_later_turns(generate):
    p = pos("narde", {24: 14, 18: 1}, {12: 14, 7: 1}, rolls=LATER)
    assert generate(p, (5, 5)) == finals(p, "24/9 18/13", "24/14 18/8", "24/4", "24/19 18/3")


@pytest.mark.parametrize("dice, expected", [((6, 6), "12/6(2)"), ((4, 4), "12/4(2)")])
def test_t56_second_players_first_roll_takes_two(dice, expected, generate):
    p = pos("narde", {24: 14, 13: 1}, {12: 15}, turn="black", rolls=(1, 0))
    assert generate(p, dice) == finals(p, expected)


T57_WHITE = {24: 9, 11: 1, 10: 2, 9: 1, 8: 1, 7: 1}


@pytest.mark.parametrize("variant, black, options, legal", [
    ("narde", {12: 15}, None, False),          # 11-6 with no Black checker ahead
    ("narde", {12: 14, 3: 1}, None, True),     # Black's checker on 3 is past the prime
    ("narde", {12: 15}, {"prime_rule": "none"}, True),
    ("fevga", {12: 15}, None, True),
    ("fevga", {12: 15}, {"prime_rule": "no_prime_without_opponent_ahead"}, False),
])
def test_t57_prime_without_an_opponent_ahead(variant, black, options, legal, generate):
    p = pos(variant, T57_WHITE, black, rolls=LATER)
    result = generate(p, (4, 1), options)
    assert (describe(after(p, "10/6 24/23")) in result) is legal
    assert len(result) > 1


def test_t57_fevga_prime_must_be_opened_next_turn():
    # After 10/6 24/23 in Fevga all Black checkers stand on 12, just behind White's 11-6: Black
    # cannot move, and on White's next turn every maximal play must vacate one of 6-11 (any one
    # checker moved from there vacates its point, so some play always can).
    p = pos("fevga", T57_WHITE, {12: 15}, rolls=LATER)
    white_again = legal_plays(legal_plays(after(p, "10/6 24/23").with_turn(BLACK), (2, 1))[0]
                              .position, (2, 1))
    free = legal_plays(after(p, "10/6 24/23"), (2, 1), {"prime_rule": "none"})
    keeps = [x for x in free if all(x.position.count(WHITE, q) for q in range(6, 12))]
    assert keeps, "the derivation needs plays that keep the prime"
    assert {describe(x) for x in white_again} == {describe(x) for x in free} - {describe(x) for x in keeps}
