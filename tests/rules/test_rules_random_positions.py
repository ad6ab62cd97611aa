"""Positions no random game reaches easily: arbitrary legal JSON positions (pins in home boards,
several checkers on the bar, bearing off against stragglers, ...) compared with the independent
model, plus positions that break a turn rule before the turn starts (possible from a hand-written
position or a sensor reading)."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.rules import BLACK, WHITE, PositionError, RulesError, legal_plays
from rules_kit import (ALL_VARIANTS, HITTING, PINNING, describe, model_outcomes, pos, replay, route)

OPTIONS = {
    "portes": [None, {"higher_die_rule": False}, {"no_hit_and_run_in_home": True}],
    "tavla": [None],
    "plakoto": [None, {"pinned_blocks_bearoff": False}, {"higher_die_rule": False}],
    "tapa": [None, {"pinned_blocks_bearoff": False}],
    "neverfinishing": [None, {"entry_may_trap": False}, {"pinned_blocks_bearoff": False},
                       {"no_hit_and_run_in_home": True}],
    "fevga": [None, {"first_checker_release_at": "start_quarter"},
              {"first_checker_release_timing": "next_turn"}, {"start_rule": "head_rule"},
              {"start_table_check": "every_move"}, {"prime_rule": "none"},
              {"prime_rule": "no_prime_without_opponent_ahead"}, {"unblock_precedence": "unblock_first"}],
    "moultezim": [None],
    "gulbara": [{"cascading_doubles": False}],
    "narde": [None, {"head_rule_first_roll_doubles": [4, 6]}],
}


@st.composite
def positions(draw, variant):
    """A legal position of `variant`: checkers spread over each side's path (often its last half,
    so bearing off happens), overlaps resolved into pins (pinning games) or dropped, some
    checkers on the bar (hitting games), the rest borne off; the game is not over."""
    sides = {}
    for color in (WHITE, BLACK):
        path = route(variant, color)
        where = st.one_of(st.sampled_from(path), st.sampled_from(path[12:]), st.sampled_from(path[18:]))
        points = draw(st.lists(where, min_size=1, max_size=15))
        counts = {}
        for p in points:
            counts[p] = counts.get(p, 0) + 1
        sides[color] = counts
    white, black = sides[WHITE], sides[BLACK]
    pinned = {}
    for p in sorted(set(white) & set(black)):
        if variant in PINNING and draw(st.booleans()):
            under = draw(st.sampled_from([WHITE, BLACK]))
            sides[under][p] = 1
            pinned[p] = under.value
        else:
            del sides[draw(st.sampled_from([WHITE, BLACK]))][p]
    bar = [0, 0]
    if variant in HITTING:
        for i, color in enumerate((WHITE, BLACK)):
            room = 15 - sum(sides[color].values())
            bar[i] = draw(st.integers(0, min(room, 3)))
    for i, color in enumerate((WHITE, BLACK)):
        if sum(sides[color].values()) + bar[i] == 0:
            sides[color][route(variant, color)[23]] = 1          # keep the game going
    for p in set(white) & set(black):
        if p not in pinned:                                      # the fix-up above may collide
            del black[p]
    if not black and not bar[1]:
        return draw(positions(variant))
    return pos(variant, white, black, turn=draw(st.sampled_from(["white", "black"])),
               pinned=pinned, bar=tuple(bar),
               rolls=(draw(st.integers(0, 4)), draw(st.integers(0, 4))))


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_arbitrary_positions_agree_with_the_model_and_replay(variant, data):
    position = data.draw(positions(variant))
    dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    options = data.draw(st.sampled_from(OPTIONS[variant]))
    expected = model_outcomes(position, dice, options)
    if not expected:
        return          # a turn rule is already broken at the start: see the tests below
    plays = legal_plays(position, dice, options)
    assert {describe(p) for p in plays} == expected, f"{position.to_json_text()} {dice} {options}"
    for play in plays:
        _, final = replay(position, play, options)
        assert final.key() == play.position.board_key()


# -- positions that break a turn rule before the turn ----------------------------------------------

def test_no_move_while_already_holding_the_whole_starting_table_is_one_empty_play():
    # Fevga, W{24..19: 2 each, 1:3} (a hand-written or sensed position: a legal game never ends a
    # turn holding all of 19-24) against Black on 18-13 and 12. With 6-6 every 6 lands on Black's
    # 18-13, and the 1s cannot bear off (not all home): White has no legal move, so by the API the
    # answer is exactly one play with no moves (the turn passes).
    p = pos("fevga", {24: 2, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2, 1: 3},
            {18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 13: 1, 12: 9})
    plays = legal_plays(p, (6, 6))
    assert [(x.moves, x.position.board_key()) for x in plays] == [((), p.board_key())]


def test_position_already_over_the_four_point_limit_gets_a_clear_answer():
    # Moultezim, White already on all six of 7-12 (two each); with 2-1 no play can end on four
    # or fewer of them. The rule text is silent on such a position, but the referee must answer:
    # a list of plays, or a RulesError / PositionError saying what is wrong - not an internal error.
    p = pos("moultezim", {12: 2, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 24: 3}, {18: 15})
    try:
        plays = legal_plays(p, (2, 1))
    except (RulesError, PositionError):
        return
    assert isinstance(plays, list) and plays
