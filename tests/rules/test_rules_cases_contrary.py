"""Dossier §6 test situations for the contrary games: portes, tavla, plakoto, tapa, neverfinishing.

Every expected set is the dossier's outcome list, written in its own notation and applied by
rules_kit.after(); positions give every checker (off is filled up to 15 a side).
"""
import pytest

from firmware_host.rules import BLACK, WHITE, GameResult, legal_plays
from rules_kit import after, describe, finals, outcomes, pos


def play_to(position, notation, dice, options=None):
    """The engine's play that ends where `notation` ends (the dossier names plays by their moves)."""
    target = describe(after(position, notation))
    found = [p for p in legal_plays(position, dice, options) if describe(p) == target]
    assert found, f"{notation} with {dice} is not among {outcomes(position, dice, options)}"
    return found[0]


# -- Portes: bar, entering, higher die, bearing off, hit-and-run ----------------------------------

# T02-T03: W{bar:1, 13:4, 6:10}; B{24:2, 22:2, 21:2, 20:2, 19:2, 1:5}
ENTRY = dict(white={13: 4, 6: 10}, black={24: 2, 22: 2, 21: 2, 20: 2, 19: 2, 1: 5}, bar=(1, 0))
# T04-T05: W{bar:2, 13:4, 6:9}; B{23:1, 22:2, 20:2, 19:2, 1:8}
TWO_ON_BAR = dict(white={13: 4, 6: 9}, black={23: 1, 22: 2, 20: 2, 19: 2, 1: 8}, bar=(2, 0))


@pytest.mark.parametrize("variant", ["portes", "tavla"])
def test_t02_closed_entry_points_leave_no_move(variant, generate):
    # 6 enters on 19 and 5 on 20, both closed; nothing else may move while a checker is on the bar.
    p = pos(variant, **ENTRY)
    assert generate(p, (6, 5)) == finals(p, "")


def test_t03_partial_entry_then_any_checker(generate):
    p = pos("portes", **ENTRY)
    assert generate(p, (6, 2)) == finals(p, "bar/23/17", "bar/23 13/7")


@pytest.mark.parametrize("dice, expected", [
    ((4, 1), ["bar/21 bar/24"]),
    ((4, 3), ["bar/21"]),          # the 3 (-> 22) is closed: one stays on the bar, the 3 is lost
])
def test_t04_two_on_the_bar_enter_first(dice, expected, generate):
    p = pos("portes", **TWO_ON_BAR)
    assert generate(p, dice) == finals(p, *expected)


def test_t05_double_entry_with_hit_has_eight_outcomes(generate):
    p = pos("portes", **TWO_ON_BAR)
    expected = finals(p, *("bar/23* bar/23 " + rest for rest in (
        "23/21(2)", "23/21 13/11", "23/21 6/4", "13/11(2)", "13/11 6/4", "13/9", "6/4(2)", "6/2")))
    assert len(expected) == 8
    result = generate(p, (2, 2))
    assert result == expected
    assert all(" bar0/1 " in r for r in result)            # the blot on 23 went to the bar


@pytest.mark.parametrize("options, expected", [
    (None, ["10/4"]),
    ({"higher_die_rule": False}, ["10/4", "10/7"]),
])
def test_t06_higher_die_rule_when_only_one_die_plays(options, expected, generate):
    # W{10:1} Woff=14; B{1:2, 24:13}: 10/4/1 and 10/7/1 are blocked on 1.
    p = pos("portes", {10: 1}, {1: 2, 24: 13})
    assert generate(p, (6, 3), options) == finals(p, *expected)


def test_t07_large_die_bears_off_from_the_highest_point(generate):
    p = pos("portes", {5: 1, 3: 1}, {24: 15})
    assert generate(p, (6, 2)) == finals(p, "5/off 3/1", "5/3 3/off")


def test_t08_smaller_roll_cannot_bear_off_past_a_higher_checker(generate):
    p = pos("portes", {6: 1, 5: 1}, {24: 15})
    assert generate(p, (4, 1)) == finals(p, "6/2 5/4", "6/1", "5/off")


@pytest.mark.parametrize("variant, options, expected", [
    ("portes", None, ["9/5*/3", "9/7/3"]),
    ("portes", {"no_hit_and_run_in_home": True}, ["9/7/3"]),
    ("tavla", None, ["9/7/3"]),
    ("tavla", {"no_hit_and_run_in_home": False}, ["9/5*/3", "9/7/3"]),
])
def test_t09_hit_and_run_in_the_home_board(variant, options, expected, generate):
    # W{9:1} Woff=14; B{5:1, 24:14}; 4-2: hitting on 5 (White's home) and running on is the issue.
    p = pos(variant, {9: 1}, {5: 1, 24: 14})
    assert generate(p, (4, 2), options) == finals(p, *expected)


def test_t64_hit_while_bearing_off_stops_bearing_off(generate):
    # White (all home, Woff=5) was hit: bar 1. 6-5: the 6 would enter on 19 (closed), the 5 enters
    # on 20; the 6 may then not bear off (not all 15 home) - 20/14. The 5 borne off stay off.
    p = pos("portes", {6: 5, 5: 4}, {3: 1, 19: 14}, bar=(1, 0), off=(5, 0))
    assert generate(p, (6, 5)) == finals(p, "bar/20/14")
    assert all(" off5/0" in r for r in generate(p, (6, 5)))


# -- scoring: T10 / T22 (1 point, 2 when the loser has borne off none; never 3) --------------------

LOSERS = {   # Black positions (every game), with a checker on the bar / in White's home where possible
    "portes": {"black": {24: 13, 3: 1}, "bar": (0, 1)},
    "tavla": {"black": {24: 13, 3: 1}, "bar": (0, 1)},
    "plakoto": {"black": {24: 14, 3: 1}},
    "tapa": {"black": {24: 14, 3: 1}},
    "neverfinishing": {"black": {24: 13, 3: 1}, "bar": (0, 1)},
    "fevga": {"black": {18: 14, 3: 1}},
    "moultezim": {"black": {18: 14, 3: 1}},
    "gulbara": {"black": {18: 14, 3: 1}},
    "narde": {"black": {18: 14, 3: 1}},
}


@pytest.mark.parametrize("variant", list(LOSERS))
@pytest.mark.parametrize("black_off, points, reason", [(0, 2, "gammon"), (1, 1, "bear-off")])
def test_t10_t22_last_checker_off_scores_two_for_a_gammon_never_three(variant, black_off, points,
                                                                      reason):
    # W{1:1} Woff=14; Black still far back (bar / White's home board) - no triple game anywhere.
    setup = dict(LOSERS[variant])
    black = dict(setup.pop("black"))
    black[24 if variant in ("portes", "tavla", "plakoto", "tapa", "neverfinishing") else 18] -= black_off
    p = pos(variant, {1: 1}, black, **setup)
    plays = legal_plays(p, (6, 5))
    assert [describe(x) for x in plays] == [describe(after(p, "1/off"))]
    assert plays[0].result == GameResult(WHITE, points, reason)


# -- Plakoto / Tapa: pins and the mother -----------------------------------------------------------

T11 = dict(white={24: 1, 6: 14}, black={20: 1, 19: 14}, turn="black")


@pytest.mark.parametrize("variant", ["plakoto", "tapa"])
def test_t11_mother_pin_outcomes(variant, generate):
    p = pos(variant, **T11)
    assert generate(p, (4, 1)) == finals(p, "20/off", "19/23 19/20", "19/23 20/21", "20/24 19/20")


@pytest.mark.parametrize("variant", ["plakoto", "tapa"])
def test_t11_pinning_the_mother_with_own_start_empty_wins_two(variant):
    p = pos(variant, **T11)
    results = {describe(x): x.result for x in legal_plays(p, (4, 1))}
    assert results == {
        describe(after(p, "20/off")): None,             # end_of_turn: the touch-down on 24 pins nothing
        describe(after(p, "19/23 19/20")): None,
        describe(after(p, "19/23 20/21")): None,
        describe(after(p, "20/24 19/20")): GameResult(BLACK, 2, "mother"),
    }


def test_t11_mother_check_every_move_counts_the_touch_down_on_the_mother():
    # "Route 20/24/off in (i): every_move -> game over, Black +2." So besides (iv), Black has a way
    # through the touch-down on 24 that wins at once (the text does not say where the checker ends
    # once the game is over, so only the win is asserted); every landing on 24 pins the mother.
    p = pos("plakoto", **T11)
    end_of_turn = outcomes(p, (4, 1))
    plays = legal_plays(p, (4, 1), {"mother_check": "every_move"})
    assert end_of_turn <= {describe(x) for x in plays}
    on_mother = [x for x in plays if any(m.destination == "24" for m in x.moves)]
    assert all(x.result == GameResult(BLACK, 2, "mother") for x in on_mother)
    pinned_at_end = describe(after(p, "20/24 19/20"))
    assert [x for x in on_mother if describe(x) != pinned_at_end], \
        "the route 20/24/off does not win under every_move"


T12 = dict(white={24: 1, 6: 14}, black={1: 1, 20: 1, 19: 13}, turn="black")


def test_t12_mother_pinned_while_the_pinner_keeps_his_start_plays_on():
    p = pos("plakoto", **T12)
    play = play_to(p, "20/24 19/20", (4, 1))
    assert play.result is None
    assert play.position.pinned_points() == {24: WHITE}
    # White's pinned checker on 24 is frozen: none of White's plays moves it
    for reply in legal_plays(play.position, (6, 5)):
        assert all(m.origin != "24" for m in reply.moves)


def test_mother_exception_none_ends_the_game_at_once():
    # MOTHER_EXCEPTION=none (Ludii's reading): the same pin wins although Black still has 1 checker
    # on his start.
    p = pos("plakoto", **T12)
    assert play_to(p, "20/24 19/20", (4, 1), {"mother_exception": "none"}).result == \
        GameResult(BLACK, 2, "mother")


@pytest.mark.parametrize("variant", ["plakoto", "tapa"])
def test_t13_both_mothers_pinned_is_a_tie(variant):
    p = pos(variant, {24: 1, 6: 14}, {24: 1, 1: 1, 20: 1, 19: 12}, pinned={24: "white"})
    play = play_to(p, "6/1 6/4", (5, 2))
    assert play.position.pinned_points() == {24: WHITE, 1: BLACK}
    assert play.result == GameResult(None, 0, "tie")


@pytest.mark.parametrize("options, result", [
    (None, GameResult(BLACK, 2, "mother")),
    ({"mother_deferred_win": False}, None),
])
def test_t14_pinner_clearing_his_start_wins_later(options, result):
    after_t12 = play_to(pos("plakoto", **T12), "20/24 19/20", (4, 1)).position
    white_turn = play_to(after_t12, "6/3 6/5", (3, 1)).position
    assert white_turn.turn is BLACK
    assert play_to(white_turn, "1/4 19/21", (3, 2), options).result == result


@pytest.mark.parametrize("on_start", [2, 4], ids=["two-on-24", "t63-one-plus-three-in-hand"])
def test_t15_t63_two_or_more_on_the_start_are_a_block_not_a_mother(on_start, generate):
    # T63: one checker on the physical 24 and 3 in hand count as 4 on the start (rules.md "On the
    # physical board": reserve checkers count as standing on their start point).
    p = pos("plakoto", {24: on_start, 6: 15 - on_start}, {20: 1, 19: 14}, turn="black")
    assert generate(p, (4, 1)) == finals(p, "20/off", "19/23 19/20", "19/23 20/21")


@pytest.mark.parametrize("variant", ["plakoto", "tapa", "neverfinishing"])
def test_t16_t23_t26_a_pinning_checker_cannot_be_pinned_or_hit(variant, generate):
    # W{24:10, 10:[B,W], 3:4}; B{1:13, 7:1} + the pinned one. 7/10 is never legal: White owns 10
    # (T26 for neverfinishing: White's checker on 10 cannot be hit either).
    p = pos(variant, {24: 10, 10: 1, 3: 4}, {1: 13, 7: 1, 10: 1}, pinned={10: "black"}, turn="black")
    assert generate(p, (3, 1)) == finals(p, "1/4 1/2", "1/5", "7/8 1/4", "7/11")


def test_t17_stacking_on_a_pin_keeps_it_until_both_leave():
    p = pos("plakoto", {24: 13, 13: 1, 10: 1}, {1: 14, 10: 1}, pinned={10: "black"})
    stacked = play_to(p, "13/10 24/23", (3, 1)).position
    assert (stacked.count(WHITE, 10), stacked.pinned_points()) == (2, {10: BLACK})
    stacked = stacked.with_turn(WHITE)
    one_left = play_to(stacked, "10/7 24/23", (3, 1)).position
    assert one_left.pinned_points() == {10: BLACK}
    both_left = play_to(stacked, "10/7 10/9", (3, 1)).position
    assert both_left.pinned_points() == {} and both_left.count(BLACK, 10) == 1


def test_t18_a_touch_down_on_a_blot_pins_nothing(generate):
    p = pos("plakoto", {24: 14, 20: 1}, {1: 14, 16: 1})
    result = generate(p, (4, 3))
    assert result == finals(p, "24/21 24/20", "24/17", "24/21 20/16", "20/13")
    assert sum("pin{16:b}" in r for r in result) == 1         # only 24/21 20/16 ends with a pin


# W{4:[W,B], 2:1 or 3:1, 1:1} Woff=12; B{20:14} + the pinner on 4. The highest occupied point, 4,
# holds the pinned checker, so no die may bear off from below it by being larger.
T19 = ({4: 1, 2: 1, 1: 1}, (6, 1))      # 6-1: the 6 never plays
T20 = ({4: 1, 3: 1, 1: 1}, (3, 2))      # 3-2: one die either way, the higher wins


@pytest.mark.parametrize("white, dice, options, expected", [
    (*T19, None, ["2/1"]),
    (*T19, {"pinned_blocks_bearoff": False}, ["2/1", "1/off"]),
    (*T20, None, ["3/1"]),
    (*T20, {"pinned_blocks_bearoff": False}, ["3/off"]),
], ids=["t19-blocks", "t19-does-not-block", "t20-blocks", "t20-does-not-block"])
def test_t19_t20_pinned_checker_in_the_home_board_and_bearing_off(white, dice, options, expected,
                                                                  generate):
    p = pos("plakoto", white, {4: 1, 20: 14}, pinned={4: "white"})
    assert generate(p, dice, options) == finals(p, *expected)


@pytest.mark.parametrize("variant", ["plakoto", "tapa", "neverfinishing"])
def test_t21_pinned_outside_home_means_no_bearing_off(variant, generate):
    p = pos(variant, {8: 1, 6: 14}, {8: 1, 20: 14}, pinned={8: "white"})
    assert generate(p, (6, 6)) == finals(p, "")


@pytest.mark.parametrize("variant, options, result", [
    ("tapa", None, GameResult(BLACK, 2, "mother")),             # T24: tapa.MOTHER_RULE=true
    ("tapa", {"tapa.MOTHER_RULE": False}, None),
    ("plakoto", {"mother_rule": False}, None),
])
def test_t24_mother_rule_flag(variant, options, result):
    p = pos(variant, **T11)
    assert play_to(p, "20/24 19/20", (4, 1), options).result == result


@pytest.mark.parametrize("points", [1, 3])
def test_mother_loss_points_option(points):
    play = play_to(pos("plakoto", **T11), "20/24 19/20", (4, 1), {"mother_loss_points": points})
    assert play.result == GameResult(BLACK, points, "mother")


# -- NeverFinishing: hit or trap --------------------------------------------------------------------

def test_t25_hit_or_trap_gives_six_outcomes(generate):
    p = pos("neverfinishing", {24: 14, 20: 1}, {1: 14, 16: 1})
    assert generate(p, (4, 1)) == finals(
        p, "24/23 24/20", "24/19", "24/23 20/16^", "24/23 20/16*", "20/16*/15", "20/15")


@pytest.mark.parametrize("variant, options, result", [
    ("neverfinishing", None, None),                                  # T27: no mother rule
    ("neverfinishing", {"nf.mother_rule": True}, GameResult(WHITE, 2, "mother")),
    ("plakoto", None, GameResult(WHITE, 2, "mother")),
])
def test_t27_trapping_the_last_checker_on_the_start(variant, options, result):
    # W{6:14, 3:1}; B{1:1, 19:14}: White traps Black's last checker on his start point 1 (3/1)
    # while White's own start (24) is empty.
    p = pos(variant, {6: 14, 3: 1}, {1: 1, 19: 14})
    notation = "3/1^ 6/5" if variant == "neverfinishing" else "3/1 6/5"
    assert play_to(p, notation, (2, 1), options).result == result


@pytest.mark.parametrize("options, expected", [
    # bar/22 with the 3 hits or traps; bar/24 with the 1 then 24/21 equals trapping then 22/21
    (None, ["bar/22* 22/21", "bar/22* 6/5", "bar/24/21", "bar/22^ 6/5", "bar/24 6/3"]),
    ({"entry_may_trap": False}, ["bar/22* 22/21", "bar/22* 6/5", "bar/24/21", "bar/24 6/3"]),
])
def test_t28_entering_onto_a_blot_may_trap(options, expected, generate):
    p = pos("neverfinishing", {6: 14}, {22: 1, 1: 14}, bar=(1, 0))
    assert generate(p, (3, 1), options) == finals(p, *expected)


# -- no legal move: one play without moves ------------------------------------------------------------

@pytest.mark.parametrize("position, dice", [
    (pos("portes", **ENTRY), (6, 5)),
    (pos("plakoto", {8: 1, 6: 14}, {8: 1, 20: 14}, pinned={8: "white"}), (6, 6)),
], ids=["t02", "t21"])
def test_no_legal_move_is_one_play_without_moves(position, dice):
    plays = legal_plays(position, dice)
    assert len(plays) == 1 and plays[0].moves == ()
    assert plays[0].position.board_key() == position.board_key()
    assert plays[0].position.turn is position.turn.opponent
