"""House-rule options (rules.md "House-rule options", dossier §5): names, defaults, errors, and for
each option not already exercised by a dossier case a position of our own where it changes the
outcome, derived by hand in the comment above it.

Where the dossier cases already show an option both ways, they are the test:
higher_die_rule T06/T41, no_hit_and_run_in_home T09, pinned_blocks_bearoff T19/T20, mother_rule
T24/T27, mother_exception/mother_check/mother_deferred_win/mother_loss_points T11-T14,
entry_may_trap T28, first_checker_release_at T40, first_checker_release_timing T32/T35, start_rule
T42, start_table_scope own/none T36, prime_rule T37/T39/T43/T57, cascading_doubles and
gulbara_protected_turns/scope T44-T47, gulbara_cascade_maximize T48, gulbara_remainder T49.
"""
import pytest

from firmware_host.rules import WHITE, GameResult, Position, Rules, RulesError, legal_plays
from rules_kit import describe, finals, outcomes, pos

# -- defaults: the flag table of dossier §5 ------------------------------------------------------------

DEFAULTS = [
    ("portes", "higher_die_rule", True),
    ("narde", "higher_die_rule", True),
    ("gulbara", "higher_die_rule", True),
    ("portes", "no_hit_and_run_in_home", False),
    ("tavla", "no_hit_and_run_in_home", True),
    ("plakoto", "pinned_blocks_bearoff", True),
    ("neverfinishing", "pinned_blocks_bearoff", True),
    ("plakoto", "mother_rule", True),
    ("tapa", "mother_rule", True),
    ("neverfinishing", "mother_rule", False),
    ("plakoto", "mother_exception", "any_checker_on_own_start"),
    ("tapa", "mother_deferred_win", True),
    ("plakoto", "mother_check", "end_of_turn"),
    ("plakoto", "mother_loss_points", 2),
    ("neverfinishing", "entry_may_trap", True),
    ("fevga", "start_rule", "first_checker"),
    ("moultezim", "start_rule", "first_checker"),
    ("narde", "start_rule", "head_rule"),
    ("gulbara", "start_rule", "none"),
    ("fevga", "first_checker_release_at", "past_start"),
    ("fevga", "first_checker_release_timing", "immediate"),
    ("narde", "head_rule_first_roll_doubles", frozenset({3, 4, 6})),
    ("fevga", "start_table_scope", "own"),
    ("fevga", "start_table_check", "end_of_turn"),
    ("fevga", "prime_rule", "unblock_all_on_one_point"),
    ("moultezim", "prime_rule", "opp_start_table_max4"),
    ("narde", "prime_rule", "no_prime_without_opponent_ahead"),
    ("gulbara", "prime_rule", "none"),
    ("fevga", "unblock_precedence", "max_dice_first"),
    ("gulbara", "cascading_doubles", True),
    ("gulbara", "gulbara_protected_turns", 3),
    ("gulbara", "gulbara_protected_scope", "game"),
    ("gulbara", "gulbara_remainder", "lost"),
    ("gulbara", "gulbara_cascade_maximize", "per_stage"),
    ("narde", "koks", False),
    ("tapa", "mutual_no_move_draw", False),
]


@pytest.mark.parametrize("variant, option, default", DEFAULTS)
def test_option_defaults_follow_the_flag_table(variant, option, default):
    assert getattr(Rules.for_variant(variant), option) == default


@pytest.mark.parametrize("variant, key", [
    ("tapa", "tapa.MOTHER_RULE"), ("tapa", "MOTHER_RULE"), ("tapa", "Mother_Rule"),
    ("neverfinishing", "nf.mother_rule"), ("neverfinishing", "neverfinishing.mother_rule"),
])
def test_option_names_are_case_insensitive_and_may_carry_the_variant(variant, key):
    default = Rules.for_variant(variant).mother_rule
    assert Rules.for_variant(variant, {key: not default}).mother_rule is (not default)


@pytest.mark.parametrize("variant, options", [
    ("portes", {"no_such_rule": True}),
    ("fevga", {"mother_rule": True}),               # a plakoto-family option
    ("plakoto", {"entry_may_trap": False}),         # neverfinishing only
    ("gulbara", {"koks": True}),                    # narde only
    ("portes", {"pinned_blocks_bearoff": False}),   # no pins in portes
    ("tapa", {"plakoto.mother_rule": False}),       # prefix of another game
    ("tapa", {"chess.mother_rule": False}),         # prefix that is no game
    ("fevga", {"prime_rule": "sometimes"}),
    ("fevga", {"start_table_scope": "mine"}),
    ("gulbara", {"gulbara_remainder": "kept"}),
    ("portes", {"higher_die_rule": "maybe"}),
    ("plakoto", {"mother_loss_points": 7}),
    ("narde", {"head_rule_first_roll_doubles": [7]}),
])
def test_unknown_inapplicable_or_bad_options_raise(variant, options):
    with pytest.raises(RulesError):
        Rules.for_variant(variant, options)


def test_unknown_variant_raises():
    with pytest.raises(RulesError):
        Rules.for_variant("backgammon")


def test_legal_plays_takes_a_rules_object_or_a_dict():
    p = pos("portes", {10: 1}, {1: 2, 24: 13})
    by_dict = outcomes(p, (6, 3), {"higher_die_rule": False})
    by_rules = {describe(x) for x in legal_plays(p, (6, 3),
                                                 Rules.for_variant("portes", {"higher_die_rule": False}))}
    assert by_dict == by_rules == finals(p, "10/4", "10/7")
    with pytest.raises(RulesError):
        legal_plays(p, (6, 3), Rules.for_variant("tavla"))


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3,), (1, 2, 3), (True, 2)])
def test_bad_dice_raise(dice):
    with pytest.raises(RulesError):
        legal_plays(Position.start("portes"), dice)


# -- fevga: starting-table scope "both" and check "every_move" -----------------------------------
# BOTH: W{24:9, 13:1, 11:1, 10:1, 9:1, 8:1, 7:1}; Black all on 5 (his start 12 is empty); 2-1.
# White holds 7-11 of Black's starting table 7-12; the only way to take 12 is 13/12 with the 1,
# and the 2 then keeps 7-12 full only as 24/22 (every other 2 moves a checker off 7-12). So scope
# "both" removes exactly {13/12, 24/22}; "own" (19-24, where White holds only 24) removes nothing.
# EVERY_MOVE (the dossier's A4 example): W{24:3, 23:1, 22:1, 21:1, 20:1, 8:1, 1:7}; B{18:1,
# 12:14}; 6-5. 24/13 can only go 24/19/13 (18 is Black's), touching down on 19 while White holds
# all of 19-24, and ends with 19 empty. Every other play using 24/19 can play its 6 first (23/17,
# 22/16, 21/15, 20/14), emptying a point before 19 is taken; plays ending with the table full are
# illegal both ways. So every_move removes exactly {24/13}.
BOTH = ("fevga", {24: 9, 13: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1}, {5: 15})
EVERY_MOVE = ("fevga", {24: 3, 23: 1, 22: 1, 21: 1, 20: 1, 8: 1, 1: 7}, {18: 1, 12: 14})


@pytest.mark.parametrize("setup, dice, option, removed", [
    (BOTH, (2, 1), {"start_table_scope": "both"}, "13/12 24/22"),
    (EVERY_MOVE, (6, 5), {"start_table_check": "every_move"}, "24/13"),
], ids=["scope-both", "check-every-move"])
def test_starting_table_option_removes_exactly_one_play(setup, dice, option, removed, generate):
    p = pos(*setup)
    default = outcomes(p, dice)
    assert finals(p, removed) <= default
    assert generate(p, dice, option) == default - finals(p, removed)


def test_starting_table_scope_own_ignores_the_opponents_table():
    p = pos(*BOTH)
    assert outcomes(p, (2, 1)) == outcomes(p, (2, 1), {"start_table_scope": "none"})


def test_each_rule_set_keeps_its_own_options_turn_after_turn():
    # The search reads a rule set's options once and keeps what they say (`plays._frame_facts`):
    # rule sets of one variant taken in turn, more of them than are kept at once, each still
    # play by their own options.
    p = pos(*BOTH)
    expected = {"both": outcomes(p, (2, 1)) - finals(p, "13/12 24/22"), "own": outcomes(p, (2, 1))}
    rule_sets = [(scope, Rules.for_variant("fevga", {"start_table_scope": scope}))
                 for _ in range(50) for scope in ("both", "own")]
    for scope, rules in rule_sets + rule_sets[::-1]:
        assert {describe(x) for x in legal_plays(p, (2, 1), rules)} == expected[scope], scope


# -- fevga: unblock precedence ------------------------------------------------------------------------
# W{13:1, 6:1, 5:1, 4:1, 3:1, 2:1, 1:2}; Black's 5 checkers left on the board all on 7, just behind
# White's 6-1 (Black goes 7 -> 6 -> ... -> 1). White 6-5: the only two-dice play is 13/8/2 (13/7 is
# Black's; nothing bears off while 13 is out; nothing in the home board moves 6), which keeps
# 1-6. Opening a point costs a die: 6/1 with the 5, after which the 6 cannot move.
# max_dice_first: the maximal play keeps the prime, the duty lapses -> {13/2};
# unblock_first: opening comes first -> {6/1}.
UNBLOCK = ("fevga", {13: 1, 6: 1, 5: 1, 4: 1, 3: 1, 2: 1, 1: 2}, {7: 5})


@pytest.mark.parametrize("options, expected", [
    (None, "13/2"),
    ({"unblock_precedence": "unblock_first"}, "6/1"),
])
def test_unblock_precedence(options, expected, generate):
    p = pos(*UNBLOCK)
    assert generate(p, (6, 5), options) == finals(p, expected)


# -- start rule "none" and "first_checker" outside their default games ------------------------------

@pytest.mark.parametrize("variant, options, expected", [
    ("narde", None, ["24/13"]),                                     # one checker off the head
    ("narde", {"start_rule": "none"}, ["24/13", "24/18 24/19"]),
    ("gulbara", {"start_rule": "first_checker"}, ["24/13"]),
    ("fevga", {"start_rule": "none"}, ["24/13", "24/18 24/19"]),
])
def test_start_rule_on_an_opening_6_5(variant, options, expected, generate):
    p = Position.start(variant)
    assert generate(p, (6, 5), options) == finals(p, *expected)


# -- narde: which first-roll doubles take two off the head ------------------------------------------
# Igor's {4, 6}: 3-3 takes one checker; 24/21/18/15 then 12 is Black's, so one 3 is lost.

@pytest.mark.parametrize("options, expected", [
    (None, ["24/18(2)", "24/21 24/15"]),
    ({"head_rule_first_roll_doubles": [4, 6]}, ["24/15"]),
])
def test_head_rule_first_roll_doubles(options, expected, generate):
    p = Position.start("narde")
    assert generate(p, (3, 3), options) == finals(p, *expected)


# -- narde: koks ---------------------------------------------------------------------------------------
# White bears off his last checker; Black has borne off none. With a Black checker still in
# White's home board (3) koks scores 3 when the option is on; without one it stays a gammon.

@pytest.mark.parametrize("black, options, result", [
    ({3: 1, 18: 14}, None, GameResult(WHITE, 2, "gammon")),
    ({3: 1, 18: 14}, {"narde.koks": True}, GameResult(WHITE, 3, "koks")),
    ({18: 15}, {"koks": True}, GameResult(WHITE, 2, "gammon")),
])
def test_koks(black, options, result):
    plays = legal_plays(pos("narde", {1: 1}, black), (2, 1), options)
    assert [x.result for x in plays] == [result]


# -- mutual no-move draw -------------------------------------------------------------------------------
# Portes: both sides have a checker on the bar and the other's home board is closed (two or more on
# each of 1-6 / 19-24): neither side can move with any of the 21 rolls, nothing can change.

BOTH_STUCK = ({6: 4, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2}, {19: 4, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})


@pytest.mark.parametrize("options, result", [
    (None, None),
    ({"mutual_no_move_draw": True}, GameResult(None, 0, "tie")),
])
def test_mutual_no_move_draw(options, result):
    plays = legal_plays(pos("portes", *BOTH_STUCK, bar=(1, 1)), (6, 5), options)
    assert [(x.moves, x.result) for x in plays] == [((), result)]


def test_no_draw_while_the_other_side_can_move():
    white, black = BOTH_STUCK
    p = pos("portes", white, {**black, 19: 5}, bar=(1, 0))       # Black is free to play
    plays = legal_plays(p, (6, 5), {"mutual_no_move_draw": True})
    assert [(x.moves, x.result) for x in plays] == [((), None)]


# -- prime rule "opponent must be able to move" as a prohibition ---------------------------------------
# Dossier A5, form 3: "completely blocking all opponent's checkers is prohibited; at least one of
# their checkers must be able to move" [S:MASTERS-NARDE]. W{20:1, 1:14}: the 14 on 1 cannot move
# (not all home, so no bearing off), the runner on 20 needs one of 19-14 open; Black holds 19, 18,
# 16, 15, 14 and has a checker on 21. With 4-1, 21/17 closes 17, and the 1 keeps all six closed
# only as 12/11 (every other 1 moves a checker off 14-19, and 21/20 is White's). So exactly
# {21/17 12/11} leaves White without a move and is illegal under the option; plays that keep
# White mobile exist, so the prohibition can be obeyed. (Fevga's default unblock duty does not
# apply - White's checkers stand on two points - and in narde White's checkers on 1 are ahead of
# Black's block, so narde's default allows it too.)
BLOCKER = ({20: 1, 1: 14}, {21: 1, 19: 1, 18: 1, 16: 1, 15: 1, 14: 1, 12: 9})


@pytest.mark.parametrize("variant", ["fevga", "narde"])
def test_opponent_must_be_able_to_move_forbids_closing_him_in(variant, generate):
    p = pos(variant, *BLOCKER, turn="black", rolls=(3, 3))
    free = outcomes(p, (4, 1), {"prime_rule": "none"})
    closing = finals(p, "21/17 12/11")
    assert closing <= free and outcomes(p, (4, 1)) == free
    assert generate(p, (4, 1), {"prime_rule": "opponent_must_be_able_to_move"}) == free - closing
