"""rules.md, common rules: "Use as many dice as possible; if only one of two different dice can be
played, the higher one. This holds to the last checker: a play that bears off the last checker with
fewer dice is not legal when another order uses more (white's last checker on 2, a black blot on 1,
4-1: only 2/1* 1/off), as GNU Backgammon judges it".

The whole class: an order that ends the game early leaves a die that another order uses, by a hit,
a pin, a trap or a plain step, in every family; the listing (`moves`), the bot and `hint` agree.
"""
import io
import json
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.bot.players import Bot
from firmware_host.cli import main
from firmware_host.rules import WHITE, Turn, legal_plays
from rules_kit import Board, _explore, model_options, model_plays, pos

# (variant, white, black, dice, the only legal plays). White moves 24 -> 1 and bears off past 1 in
# every game; the black checkers not named stand on 20 (out of the way, never on Black's start 1 or
# 12, so that no mother is in play).
CASES = [
    ("portes", {2: 1}, {1: 1}, (4, 1), {"2/1* 1/off"}),                 # the issue's: a hit
    ("tavla", {2: 1}, {1: 1}, (4, 1), {"2/off"}),   # 2/1* in his home stops the checker: one die, the 4
    ("plakoto", {3: 1}, {2: 1}, (4, 1), {"3/2^ 2/off"}),                # a pin
    ("tapa", {3: 1}, {2: 1}, (4, 1), {"3/2^ 2/off"}),
    ("neverfinishing", {3: 1}, {2: 1}, (4, 1), {"3/2* 2/off", "3/2^ 2/off"}),  # hit or trap
    ("portes", {2: 1}, {}, (4, 1), {"2/1 1/off"}),                      # a plain step
    ("portes", {5: 1}, {}, (6, 1), {"5/4 4/off"}),                      # the 6 alone would do it
    ("portes", {4: 1}, {}, (5, 2), {"4/2 2/off"}),
    ("fevga", {2: 1}, {}, (4, 1), {"2/1 1/off"}),                       # parallel games: a step
    ("gulbara", {3: 1}, {}, (5, 2), {"3/1 1/off"}),
    ("narde", {2: 1}, {}, (6, 1), {"2/1 1/off"}),
    # Where the other order is closed, one die is all that can be played: the higher one.
    ("portes", {2: 1}, {1: 2}, (4, 1), {"2/off"}),
    ("fevga", {2: 1}, {1: 1}, (4, 1), {"2/off"}),
    ("portes", {1: 1}, {}, (6, 1), {"1/off"}),
]


def position_of(variant, white, black):
    black = dict(black)
    black[20] = black.get(20, 0) + 15 - sum(black.values())
    return pos(variant, white, black)


@pytest.mark.parametrize("variant, white, black, dice, expected", CASES,
                         ids=[f"{c[0]}-{c[3][0]}{c[3][1]}-{sorted(c[4])[0]}" for c in CASES])
def test_the_last_checker_is_borne_off_with_as_many_dice_as_possible(variant, white, black, dice, expected):
    plays = legal_plays(position_of(variant, white, black), dice)
    assert {str(play) for play in plays} == expected
    assert all(play.result is not None and play.result.winner is WHITE for play in plays)


def test_with_one_die_playable_the_higher_die_bears_off():
    """rules.md: "if only one of two different dice can be played, the higher one" (6-1, the last
    checker on 1: 1/off with the 6)."""
    (play,) = legal_plays(position_of("portes", {1: 1}, {}), (6, 1))
    assert [move.die for move in play.moves] == [6]


def test_the_mother_pinned_on_the_way_still_ends_the_game_at_once_under_every_move():
    """mother_check = every_move (dossier T11): a pin of the mother ends the game at that move, so
    the dice after it have nothing to be played on; that play is no shorter than the others."""
    t11 = pos("plakoto", {24: 1, 6: 14}, {20: 1, 19: 14}, turn="black")
    plays = legal_plays(t11, (4, 1), {"mother_check": "every_move"})
    assert "20/24^" in {str(play) for play in plays}      # the 4 pins the mother: the game is over
    assert {len(play.moves) for play in plays} == {1, 2}
    assert all(play.result is not None for play in plays if len(play.moves) == 1)


# -- the class, by the independent model: no legal play uses fewer dice than some order can -------

CONTRARY_GAMES = ["portes", "tavla", "plakoto", "tapa", "neverfinishing"]


@st.composite
def bear_offs(draw):
    """White with one to three checkers in his home board, the rest off; Black's fifteen on points
    1-24 away from White's (one of them may be a blot in White's home)."""
    variant = draw(st.sampled_from(CONTRARY_GAMES))
    white = Counter(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    free = [p for p in range(2, 25) if p not in white]   # never on Black's start: no mother
    black = Counter(draw(st.lists(st.sampled_from(free), min_size=15, max_size=15)))
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return pos(variant, dict(white), dict(black)), dice


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=bear_offs())
def test_every_legal_play_of_a_bear_off_uses_the_most_dice_any_order_can(case):
    position, dice = case
    options = model_options(position.variant, None)
    every_order = _explore(Board.of(position), WHITE, (dice[0],) * 4 if dice[0] == dice[1] else dice, options)
    most = max(used for used, _, _ in every_order.values())
    plays = legal_plays(position, dice)
    assert {len(play.moves) for play in plays} == {most}
    assert {play.position.board_key() for play in plays} == model_plays(position, dice)


# -- the bot and the commands -------------------------------------------------------------------------

THE_ISSUES = position_of("portes", {2: 1}, {1: 1})


def test_the_bot_plays_the_two_dice():
    turn = Turn(THE_ISSUES, (4, 1))
    assert str(Bot.trained(turn.rules).choose(turn)) == "2/1* 1/off"


@pytest.mark.parametrize("command", ["moves", "hint"])
def test_moves_and_hint_list_only_the_two_dice(command):
    request = json.dumps({"position": THE_ISSUES.to_json(), "dice": [4, 1]})
    out, old = io.StringIO(), (sys.stdin, sys.stdout)
    sys.stdin, sys.stdout = io.StringIO(request + "\n"), out
    try:
        assert main([command, "--jsonl"]) == 0
    finally:
        sys.stdin, sys.stdout = old
    (play,) = json.loads(out.getvalue())["plays"]
    assert [(m["from"], m["to"], m["die"], m["hit"]) for m in play["moves"]] == \
        [("2", "1", 1, True), ("1", "off", 4, False)]
    assert play["position"]["black"]["bar"] == 1


def test_a_whole_cascade_lists_its_game_end_by_the_play_of_most_dice():
    """Gul Bara, 2-2 from the fourth turn on (2s to 6s), whole_cascade: White's fifteen (41 pips)
    can be borne off in 16 dice or in 17; only the 17 are a legal play."""
    cascade = pos("gulbara", {2: 7, 3: 6, 4: 1, 5: 1}, {1: 3, 12: 5, 13: 1, 14: 3, 19: 2, 7: 1},
                  rolls=(16, 17))
    (play,) = legal_plays(cascade, (2, 2), {"gulbara_cascade_maximize": "whole_cascade"})
    assert play.result is not None and len(play.moves) == 17
