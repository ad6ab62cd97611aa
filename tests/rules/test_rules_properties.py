"""Property tests over positions reached by random play from the start of every game.

Hypothesis draws the starter, the dice of every turn and the play chosen; each test walks one game
(bounded number of turns) and checks every legal play of every turn it meets. The checks are
written from rules.md with rules_kit's own board model, never with the engine's helpers.

Gul Bara's broad properties run without cascades (low doubles in open positions can have hundreds
of thousands of plays); cascades get their own walk in which low doubles after the protected turns
are replaced, plus the dossier cases T44-T50.
"""
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from firmware_host.rules import BLACK, WHITE, GameResult, Position, Turn, legal_plays
from rules_kit import (ALL_VARIANTS, CHECKERS, Board, describe, dice_values, held_count, holds_all,
                       home_points, left_start, model_options, model_outcomes, opponent_ahead_of,
                       primes, released, replay, single_moves, start_point, starting_table,
                       unblock_duty)

MAX_TURNS = 160         # random games end in about 60-170 turns
DEFAULT = {v: None for v in ALL_VARIANTS} | {"gulbara": {"cascading_doubles": False}}
# Option sets for the model comparison (each example draws one).
OPTION_SETS = {
    "portes": [None, {"higher_die_rule": False}, {"no_hit_and_run_in_home": True}],
    "tavla": [None, {"no_hit_and_run_in_home": False}],
    "plakoto": [None, {"pinned_blocks_bearoff": False}, {"higher_die_rule": False}],
    "tapa": [None, {"pinned_blocks_bearoff": False}],
    "neverfinishing": [None, {"entry_may_trap": False}, {"no_hit_and_run_in_home": True},
                       {"pinned_blocks_bearoff": False}],
    "fevga": [None, {"first_checker_release_at": "start_quarter"},
              {"first_checker_release_timing": "next_turn"}, {"start_rule": "head_rule"},
              {"start_table_scope": "both"}, {"start_table_check": "every_move"},
              {"prime_rule": "none"}, {"prime_rule": "no_prime_without_opponent_ahead"},
              {"prime_rule": "opp_start_table_max4"},
              {"unblock_precedence": "unblock_first"}, {"higher_die_rule": False}],
    "moultezim": [None, {"prime_rule": "none"}],
    "gulbara": [{"cascading_doubles": False},
                {"cascading_doubles": False, "higher_die_rule": False}],
    "narde": [None, {"head_rule_first_roll_doubles": [4, 6]}, {"prime_rule": "none"},
              {"start_rule": "first_checker"}],
}
# prime_rule=opponent_must_be_able_to_move is left out: the engine does not forbid closing the
# opponent in (see test_rules_options.py::test_opponent_must_be_able_to_move_forbids_closing_him_in),
# and a random walk would only find that now and then.

WALK = settings(max_examples=5, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def walk(data, variant, options, visit, roll=None):
    """Play one random game; `visit(position, dice, plays)` sees every turn."""
    position = Position.start(variant, data.draw(st.sampled_from([WHITE, BLACK])))
    for _ in range(MAX_TURNS):
        dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
        if roll is not None:
            dice = roll(position, dice)
        plays = legal_plays(position, dice, options)
        visit(position, dice, plays)
        chosen = sorted(plays, key=describe)[data.draw(st.integers(0, len(plays) - 1))]
        if chosen.result is not None:
            return
        position = chosen.position


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@WALK
@given(data=st.data())
def test_random_play_replays_move_by_move_on_open_points(variant, data):
    """Every move is one die, from a movable checker, onto an open point (touch-downs included);
    replaying the moves reaches Play.position; 15 checkers a side; JSON round trip; plays are
    distinct by final position; the turn passes and the mover's roll count goes up by one."""
    options = DEFAULT[variant]

    def visit(position, dice, plays):
        keys = [p.position.board_key() for p in plays]
        assert len(keys) == len(set(keys)), "two plays end in the same position"
        allowed = dice_values(position, dice, options)
        for play in plays:
            _, final = replay(position, play, options)
            assert final.key() == play.position.board_key(), f"replay of {play} differs"
            assert not Counter(m.die for m in play.moves) - allowed, f"{play} uses dice not rolled"
            after = play.position
            for color in (WHITE, BLACK):
                assert Board.of(after).total(color) == CHECKERS
            assert Position.from_json(after.to_json()) == after
            assert Position.from_json(after.to_json_text()) == after
            assert after.turn is position.turn.opponent
            rolls = list(position.rolls)
            rolls[position.turn.index] += 1
            assert after.rolls == tuple(rolls)

    walk(data, variant, options, visit)


# -- the most dice, and the higher die -----------------------------------------------------------------

FREE_GAMES = ("portes", "tavla", "plakoto", "tapa", "neverfinishing", "gulbara")


def frozen_points(position, play, options):
    """Tavla: checkers that hit in their own home board and may not move on."""
    if not model_options(position.variant, options)["no_hit_and_run_in_home"]:
        return ()
    home = home_points(position.variant, position.turn)
    return tuple(sorted(int(m.destination) for m in play.moves
                        if m.hit and m.destination != "off" and int(m.destination) in home))


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@WALK
@given(data=st.data())
def test_random_play_uses_the_most_dice_and_the_higher_die(variant, data):
    """rules.md: "Use as many dice as possible; if only one of two different dice can be played,
    the higher one". All plays that do not end the game use the same number of dice; in the games
    without turn restrictions, a play using fewer dice than rolled leaves no die playable (checked
    with rules_kit's own single-die mover)."""
    options = DEFAULT[variant]
    opts = model_options(variant, options)

    def visit(position, dice, plays):
        going_on = [p for p in plays if p.result is None]
        assert len({len(p.moves) for p in going_on}) <= 1, [str(p) for p in plays]
        color = position.turn
        if variant in FREE_GAMES:
            rolled = dice_values(position, dice, options)
            for play in going_on:
                left = rolled - Counter(m.die for m in play.moves)
                board = Board.of(play.position)
                frozen = frozen_points(position, play, options)
                for die in left:
                    assert not list(single_moves(board, color, die, opts, frozen)), \
                        f"{play} leaves a {die} playable in {describe(board)}"
        if dice[0] != dice[1] and max(len(p.moves) for p in plays) == 1:
            used = {p.moves[0].die for p in plays}
            if max(dice) in used:
                assert used == {max(dice)}, f"higher-die rule: {[str(p) for p in plays]}"

    walk(data, variant, options, visit)


# -- each game's own turn rules, and the results -----------------------------------------------------

def expected_result(variant, board: Board, mover):
    """rules.md Score and Mother, judged on the position at the end of the mover's turn."""
    if board.off[mover.index] == CHECKERS:
        gammon = board.off[mover.opponent.index] == 0
        return GameResult(mover, 2 if gammon else 1, "gammon" if gammon else "bear-off")
    if variant in ("plakoto", "tapa"):
        def mother_pinned(color):
            start = start_point(variant, color)
            return board.n(color, start) == 1 and board.pinned[start - 1] is color

        white, black = mother_pinned(WHITE), mother_pinned(BLACK)
        if white and black:
            return GameResult(None, 0, "tie")
        for color, pinned in ((WHITE, white), (BLACK, black)):
            pinner = color.opponent
            if pinned and board.n(pinner, start_point(variant, pinner)) == 0:
                return GameResult(pinner, 2, "mother")
    return None


def check_turn_rules(position, dice, plays):
    variant, color = position.variant, position.turn
    start = Board.of(position)
    duty = unblock_duty(start, color) if variant == "fevga" else None
    if duty is not None and any(not holds_all(Board.of(p.position), color, duty) for p in plays):
        assert all(not holds_all(Board.of(p.position), color, duty) for p in plays), \
            f"unblock: some play keeps {duty} closed"
    own_rolls = position.rolls[color.index]
    head_allowance = 2 if (variant == "narde" and dice[0] == dice[1] and own_rolls == 0
                           and dice[0] in (3, 4, 6)) else 1
    head = str(start_point(variant, color))
    for play in plays:
        boards, final = replay(position, play, None)
        if variant in ("fevga", "moultezim"):             # first checker, released immediately
            for before, move in zip(boards, play.moves):
                if move.origin == head:
                    assert released(before, color) or left_start(before, color) == 0, \
                        f"second checker left the start in {play}"
        if variant == "narde":
            assert sum(m.origin == head for m in play.moves) <= head_allowance, f"head rule: {play}"
            new = set(primes(final, color)) - set(primes(start, color))
            assert all(opponent_ahead_of(final, color, p) for p in new), f"narde prime: {play}"
        if variant == "fevga":
            assert not holds_all(final, color, starting_table(color)), f"starting table: {play}"
        if variant == "moultezim":
            assert held_count(final, color, starting_table(color.opponent)) <= 4, f"max 4: {play}"
        if variant == "tavla":                             # no hit-and-run in the home board
            frozen = Counter()
            for before, move in zip(boards, play.moves):
                if move.origin != "bar" and frozen[int(move.origin)]:
                    assert before.n(color, int(move.origin)) > frozen[int(move.origin)], \
                        f"hit and run: {play}"
                if move.hit and int(move.destination) in home_points(variant, color):
                    frozen[int(move.destination)] += 1
        assert play.result == expected_result(variant, final, color), f"result of {play}"


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@WALK
@given(data=st.data())
def test_random_play_keeps_each_games_turn_rules_and_scores_right(variant, data):
    """First checker (fevga, moultezim), head and prime rules (narde), own starting table and
    unblock (fevga), four points of the opponent's table (moultezim), no hit-and-run (tavla), and
    every play's result: bear-off 1 / gammon 2, mother 2 or tie (plakoto, tapa), else none."""
    walk(data, variant, DEFAULT[variant], check_turn_rules)


# -- the whole set of plays against the independent model ------------------------------------------

@pytest.mark.parametrize("variant", ALL_VARIANTS)
@WALK
@given(data=st.data())
def test_random_play_agrees_with_the_independent_model(variant, data):
    options = data.draw(st.sampled_from(OPTION_SETS[variant]))

    def visit(position, dice, plays):
        assert {describe(p) for p in plays} == model_outcomes(position, dice, options), \
            f"{position.to_json_text()} {dice} {options}"

    walk(data, variant, options, visit)


def no_low_cascades(position, dice):
    """Keep gul bara cascades small: after the protected turns a double below 5 becomes a
    non-double (the protected turns keep every double)."""
    a, b = dice
    if a == b and a < 5 and sum(position.rolls) >= 3:
        return a, a + 1
    return dice


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), maximize=st.sampled_from(["per_stage", "whole_cascade"]))
def test_gulbara_random_play_with_cascades_agrees_with_the_model(data, maximize):
    """The plays are the model's; a cascade chosen stage by stage (`Turn.pick_play`, as the bot
    and the players choose) is one of them under either maximisation."""
    options = {"gulbara_cascade_maximize": maximize}

    def visit(position, dice, plays):
        assert {describe(p) for p in plays} == model_outcomes(position, dice, options)
        turn = Turn(position, dice, options)
        if len(turn.stages) > 1:
            picked = turn.pick_play(random.Random(data.draw(st.integers(0, 2 ** 16))).choice)
            assert describe(picked) in {describe(p) for p in plays}
        for play in plays:
            _, final = replay(position, play, options)
            assert final.key() == play.position.board_key()
            assert not Counter(m.die for m in play.moves) - dice_values(position, dice, options)

    walk(data, "gulbara", options, visit, roll=no_low_cascades)


def exhaustive_most(turn, node, stage, memo):
    """The most dice the stages from `stage` on can play from `node`: every stage end tried until
    one plays them all (a stage not played in full, or a play that ends the game, ends the turn)."""
    key = (node, stage)
    if key not in memo:
        best, every_die = 0, sum(len(dice) for dice in turn.stages[stage:])
        for end in turn.stage_ends(node, turn.stages[stage]):
            if best == every_die:
                break
            played = len(turn.stages[stage]) - len(end.remaining)
            if end.result is None and not end.remaining and stage + 1 < len(turn.stages):
                played += exhaustive_most(turn, end.node, stage + 1, memo)
            best = max(best, played)
        memo[key] = best
    return memo[key]


@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2 ** 32), game=st.sampled_from([
    ("gulbara", {}), ("gulbara", {"gulbara_remainder": "opponent_plays"}),
    ("fevga", {"cascading_doubles": True}), ("narde", {"cascading_doubles": True})]))
@example(seed=0, game=("gulbara", {}))
def test_whole_cascade_most_and_kept_stage_ends_are_the_exhaustive_searchs(seed, game):
    """rules.md's cascades, maximised over the whole cascade (dossier A7): the most dice a play of
    the cascade uses, and which stage ends lead to such a play (one that bears off the last
    checker too: rules.md, common rules), as an exhaustive search of every stage end finds them,
    along random games of low cascades too (WholeCascade searches with bounds and stops early);
    and the board of every kept stage end may show on the way to a legal play (`may_show`, the
    referee's shortcut, rules out none). Seed 0 meets a stage end from which the last checker is
    borne off with fewer dice than the most."""
    variant, options = game
    options = dict(options, gulbara_cascade_maximize="whole_cascade")
    rng = random.Random(seed)
    position = Position.start(variant, rng.choice([WHITE, BLACK]))
    cascades = 0
    for _ in range(MAX_TURNS):
        turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), options)
        if len(turn.stages) > 1:
            cascades += 1
            whole, most_memo = turn.whole_cascade, {}
            assert whole.most == exhaustive_most(turn, turn.start, 0, most_memo)
            node, before = turn.start, 0
            for stage, dice in enumerate(turn.stages):   # every end of each stage on a random way
                ends = turn.stage_ends(node, dice)
                for end in ends:
                    played = before + len(dice) - len(end.remaining)
                    goes_on = end.result is None and not end.remaining and stage + 1 < len(turn.stages)
                    # rules.md: the most dice of the whole cascade, to the last checker: a play
                    # that bears it off with fewer is not legal when another uses more.
                    expected = played + (
                        exhaustive_most(turn, end.node, stage + 1, most_memo) if goes_on else 0
                    ) == whole.most
                    assert whole.keeps(end, stage) == expected
                    if expected:     # a board on the way to a legal play: never ruled out
                        assert whole.may_show(end.node.me)
                onward = [end for end in ends if end.result is None and not end.remaining]
                if not onward:
                    break
                node, before = rng.choice(onward).node, before + len(dice)
        play = turn.pick_play(rng.choice)
        if play.result is not None:
            break
        position = play.position
    assert cascades
