"""gulbara_cascade_maximize = whole_cascade on random cascades (Gul Bara's, and Narde's and Fevga's
with cascading doubles): `WholeCascade`'s fast proofs (its bound from weight tables, its walk of
legal moves, in C too) give what the plain definitions give.

rules.md: under this house rule a play of the cascade must use the most dice of the whole cascade
(a stage not played in full ends the turn; a play that bears off the last checker counts the dice
it used). The reference here is that definition searched exhaustively (`exhaustive_most`, every
stage end tried), and `_bound`'s relaxation written as the plain loop it was first specified by.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from firmware_host.rules import Position, Turn
from firmware_host.rules.plays import (_COMPILED_WALK_LIMITS, _OPPONENT_ROUTE, CHECKERS, HOME, OFF, WHITE, Node,
                                       _compiled_walk)
from test_rules_properties import exhaustive_most

WHOLE = {"gulbara_cascade_maximize": "whole_cascade"}


def reference_bound(whole, node, played: int) -> int:
    """`WholeCascade._bound`'s relaxation as a loop: the dice after the first `played`, in order,
    while the pips all checkers can travel (a die more for each that may bear off, all able to get
    home) and their steps of w pips or more, for each w, last out."""
    dice = whole._dice[played:]
    if not dice:
        return 0
    farthest, may_bear_off = whole._reach(played)
    on_board = [(p, n) for p, n in enumerate(node.me[:OFF]) if n]
    all_home = all(farthest[p] >= HOME.start for p, _ in on_board)
    largest = max(dice)
    pips = sum(n * (farthest[p] - p + (largest if all_home and may_bear_off[p] else 0)) for p, n in on_board)
    steps = {w: sum(n * ((farthest[p] - p) // w + (all_home and may_bear_off[p])) for p, n in on_board)
             for w in set(dice)}
    taken = dict.fromkeys(steps, 0)
    for playable, die in enumerate(dice):
        pips -= die
        if pips < 0:
            return playable
        for w in taken:
            if die >= w:
                taken[w] += 1
                if taken[w] > steps[w]:
                    return playable
    return len(dice)


def reference_may_show(whole, me) -> bool:
    """`WholeCascade.may_show` as first written: over every count of dice played, whether their pips
    are the pips the board gained (or fewer, where a checker was borne off: a larger die may waste
    pips) and the bound after them still makes up the most."""
    start = whole.turn.start.me
    gained = sum(p * (n - was) for p, (n, was) in enumerate(zip(me, start)))
    wasted = me[OFF] > start[OFF]
    node = Node(me, whole.turn.start.opp)
    return any((pips == gained or wasted and pips > gained) and played + whole._bound(node, played) >= whole.most
               for played, pips in enumerate(whole._pips_of_first))


# Gul Bara's cascades; and rules.md's cascading doubles in games whose rules judge a play's end:
# Narde's (by the primes held at its start too, where a walk's way proves nothing and the stage
# searches decide), Fevga's and Moultezim's (by the board alone: Fevga's starting table, and its
# duty to open a prime; Moultezim's four points of the opponent's starting table).
# The games whose plays may not end on some boards: Fevga's starting table, Moultezim's four points,
# Narde's prime with no opposing checker ahead.
BOARD_LIMITED = [("fevga", dict(WHOLE, cascading_doubles=True)),
                 ("moultezim", dict(WHOLE, cascading_doubles=True)),
                 ("narde", dict(WHOLE, cascading_doubles=True))]
GAMES = [("gulbara", WHOLE)] + BOARD_LIMITED


def cascade_turn(game: tuple[str, dict], seed: int, turns: int, double: int) -> Turn | None:
    """A cascade under whole_cascade: `double` rolled after `turns` random turns of a seeded game
    (None where the game ended first or the turn's double is protected)."""
    variant, options = game
    rng = random.Random(seed)
    position = Position.start(variant, rng.choice([WHITE, WHITE.opponent]))
    for _ in range(turns):
        play = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), options).pick_play(rng.choice)
        if play.result is not None:
            return None
        position = play.position
    turn = Turn(position, (double, double), options)
    return turn if len(turn.stages) > 1 else None


# Late in a game: bearing off, where the bound's bonus dice and the walk's game ends matter.
positions = st.builds(cascade_turn, st.sampled_from(GAMES), st.integers(0, 2 ** 32), st.integers(3, 90), st.integers(1, 6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=positions, data=st.data())
def test_the_bound_is_the_relaxations_loop_on_every_stage_end_and_every_dice_played(turn, data):
    """And `may_show`, which the referee asks of every board, is its first definition's loop."""
    assume(turn is not None)
    whole = turn.whole_cascade
    node = turn.start
    for stage, dice in enumerate(turn.stages):
        ends = turn.stage_ends(node, dice)
        for end in ends:
            assert whole.may_show(end.node.me) == reference_may_show(whole, end.node.me)
            for played in range(len(whole._dice) + 1):
                assert whole._bound(end.node, played) == reference_bound(whole, end.node, played)
        onward = [end for end in ends if end.result is None and not end.remaining]
        if not onward:
            break
        node = data.draw(st.sampled_from(onward)).node


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=positions, data=st.data(), pick_seed=st.integers(0, 2 ** 16))
def test_kept_stage_ends_and_the_chosen_play_are_the_exhaustive_definitions(turn, data, pick_seed):
    """Every end of each stage on a random way is kept exactly when the whole cascade's most dice
    can still be played from it (asked of all the stage's ends at once or of each), and `pick_play` with a seeded random choice picks what a chooser
    offered only the exhaustively kept ends picks."""
    assume(turn is not None)
    whole, memo = turn.whole_cascade, {}
    most = exhaustive_most(turn, turn.start, 0, memo)
    assert whole.most == most

    def kept(end, stage: int, before: int) -> bool:
        played = before + len(turn.stages[stage]) - len(end.remaining)
        if end.result is not None and end.node.me[OFF] != CHECKERS:   # ended midway: nothing left to play
            return True
        if end.result is None and not end.remaining and stage + 1 < len(turn.stages):
            played += exhaustive_most(turn, end.node, stage + 1, memo)
        return played == most

    node, before = turn.start, 0
    for stage, dice in enumerate(turn.stages):
        ends = turn.stage_ends(node, dice)
        expected_ends = [end for end in ends if kept(end, stage, before)]
        # All at once (a stage tree's ends), before any of them was asked alone, and one by one.
        assert whole.kept(ends, stage) == expected_ends
        assert [end for end in ends if whole.keeps(end, stage)] == expected_ends
        onward = [end for end in ends if end.result is None and not end.remaining]
        if not onward:
            break
        node, before = data.draw(st.sampled_from(onward)).node, before + len(dice)

    # The chooser's draws, replayed on the exhaustively kept ends (`pick_play`'s own loop).
    rng, expected, node, before = random.Random(pick_seed), [], turn.start, 0
    for stage, dice in enumerate(turn.stages):
        ends = list({end.node: end for end in turn.stage_ends(node, dice)}.values())
        end = rng.choice(ends)
        while not kept(end, stage, before):
            ends.remove(end)
            end = rng.choice(ends)
        expected.extend(turn.frame.moves(end.moves))
        if end.result is not None or end.remaining:
            break
        node, before = end.node, before + len(dice)
    fresh = Turn(turn.position, turn.dice, turn.rules)
    assert list(fresh.pick_play(random.Random(pick_seed).choice).moves) == expected



@pytest.mark.skipif(not _COMPILED_WALK_LIMITS, reason="the compiled walk is not built, or built before it judged limits")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=positions, data=st.data(), moves_per_die=st.sampled_from([1, 3, 8]))
def test_the_compiled_walk_is_the_python_walk(turn, data, moves_per_die):
    """`_search.walk` against `WholeCascade._python_walk` (its memory of the turn's walks emptied
    first, so that it has met no node before) from stage ends on a random way, for every goal,
    within budgets small enough to run out: the same dice reached, the same word on whether no
    sequence of moves reaches more."""
    # (where `_walk` takes the compiled walk: with the end-of-play limits and the duty to open a
    # prime it judges, `Frame.walk_limits`)
    assume(turn is not None and turn.frame.search_config is not None and turn.frame.walk_limits is not None)
    node, before = turn.start, 0
    for stage, dice in enumerate(turn.stages[:-1]):
        ends = [end for end in turn.stage_ends(node, dice) if end.result is None and not end.remaining]
        if not ends:
            break
        node, before = data.draw(st.sampled_from(ends)).node, before + len(dice)
        whole = turn.whole_cascade
        later = whole._dice[before:]
        limits = (sum(1 << (index - before) for index in whole._stage_starts if index >= before),) + \
            turn.frame.walk_limits
        for goal in range(1, len(later) + 1):
            whole._walked.clear()
            whole._ways.clear()
            moves = moves_per_die * goal
            assert _compiled_walk(node, later, goal, turn.frame.search_config, moves, limits) == \
                whole._python_walk(node, before, goal, moves)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=st.builds(cascade_turn, st.sampled_from(BOARD_LIMITED), st.integers(0, 2 ** 32),
                      st.integers(3, 60), st.integers(1, 6)),
       data=st.data())
def test_the_walk_under_end_of_play_limits_proves_only_what_the_exhaustive_search_finds(turn, data):
    """rules.md: a play may not end on a board the limits forbid (where another can), so a way of
    moves proves that a legal play uses the goal only if each stage it plays in full ends on an
    allowed board. From the stage ends on a random way, for every goal (the turn's one
    `WholeCascade`, its walks remembering what they went through, as the referee asks them): a way
    the walk finds is a play the exhaustive search finds, and the most it says no sequence of moves
    exceeds is no less than the exhaustive most."""
    assume(turn is not None)
    whole, memo = turn.whole_cascade, {}
    node, stage = turn.start, 0
    while True:
        most = exhaustive_most(turn, node, stage, memo)
        for goal in range(1, len(whole._dice_after[stage]) + 1):
            walked, exact = whole._walk(node, stage, goal)
            assert walked < goal or most >= goal
            assert not exact or most <= walked
        if stage + 1 == len(turn.stages):
            break
        ends = [end for end in turn.stage_ends(node, turn.stages[stage])
                if end.result is None and not end.remaining]
        if not ends:
            break
        node, stage = data.draw(st.sampled_from(ends)).node, stage + 1


def test_a_way_through_a_stage_end_the_limits_forbid_proves_nothing():
    """rules.md (Moultezim): a play may not end holding more than four points of the opponent's
    starting table (13..18 in the mover's frame) where another play can. Here the 6-6 stage of a
    5-5 cascade can be played in full only by four checkers from 7 to 13 (19..23 are the
    opponent's), which ends holding 13 to 17; the only allowed end plays none, so no legal play
    uses a die of it, though a sequence of moves uses all four: no walk may call that a way."""
    game = ("moultezim", dict(WHOLE, cascading_doubles=True))
    turn = next(turn for seed in range(100) if (turn := cascade_turn(game, seed, 3, 5)) is not None)
    assert turn.stages[1] == (6, 6, 6, 6)
    me = [0] * 26
    me[7], me[14], me[15], me[16], me[17], me[24] = 4, 1, 1, 1, 1, 7
    opp = [0] * 26
    opp[2] = 10
    for point in range(19, 24):
        opp[point] = 1
    node = Node(tuple(me), tuple(opp), 0, 0, (), 0)
    assert exhaustive_most(turn, node, 1, {}) == 0
    whole = turn.whole_cascade
    # (the walk as `_reaches` asks it, in C where built, and the Python walk it is specified by)
    for walked, _ in (whole._walk(node, 1, 4), whole._python_walk(node, 4, 4, 100)):
        assert walked < 4


@st.composite
def narde_boards_near_a_prime(draw):
    """A Narde board (the mover's frame) with five or six points held in a row along the
    opponent's route, the opponent's checkers all behind them on his route or not, the mover's
    others where they land: a full stage may complete a prime the no-prime rule forbids, or one
    may stand already (which the rule allows)."""
    route = _OPPONENT_ROUTE
    first, run = draw(st.integers(2, 17)), draw(st.sampled_from([5, 6]))
    me, opp = [0] * 26, [0] * 26
    for i in range(first, first + run):
        me[route[i]] += 1
    for point in draw(st.lists(st.integers(1, 24), min_size=15 - run, max_size=15 - run)):
        me[point] += 1
    behind = [route[i] for i in range(first) if not me[route[i]]]
    spots = behind if behind and draw(st.booleans()) else [p for p in range(1, 25) if not me[p]]
    for _ in range(15):
        opp[draw(st.sampled_from(spots))] += 1
    return Node(tuple(me), tuple(opp), 0, 0, (), 0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=narde_boards_near_a_prime(), low=st.sampled_from([4, 5]), seed=st.integers(0, 50))
def test_the_walk_under_the_no_prime_rule_proves_only_what_the_exhaustive_search_finds(node, low, seed):
    """rules.md (Narde): a play may not end making a prime with no opposing checker ahead of it
    where another play can; one that stood at the play's start may stay. The walk, which does not
    follow each stage's start, allows a full stage's end only with no such prime at all: a way
    it finds (C and Python alike) is a play the exhaustive search finds, and the most it calls
    exact no sequence of moves exceeds is no less than the exhaustive most."""
    game = ("narde", dict(WHOLE, cascading_doubles=True))
    turn = next(turn for s in range(seed, seed + 100) if (turn := cascade_turn(game, s, 3, low)) is not None)
    whole, memo = turn.whole_cascade, {}
    for stage in range(len(turn.stages) - 2, len(turn.stages)):
        most = exhaustive_most(turn, node, stage, memo)
        before = whole._played_before(stage)
        for goal in range(1, len(whole._dice_after[stage]) + 1):
            walks = [whole._walk(node, stage, goal)]
            if before + goal in whole._stage_starts:   # (a goal within a stage is not walked)
                walks.append(whole._python_walk(node, before, goal, 3 * goal))
            for walked, exact in walks:
                assert walked < goal or most >= goal
                assert not exact or most <= walked


def test_a_way_that_makes_a_prime_the_opponent_cannot_pass_proves_nothing():
    """rules.md (Narde): a play may not end with six points in a row and no opposing checker ahead
    of them, where another play can. Here the 6-6 stage of a 5-5 cascade can be played only from
    6 to 12, which completes 7..12 (the opponent's home, nothing of his beyond it); every other
    checker is blocked, so the only allowed end plays none: no walk may call four dice a way."""
    game = ("narde", dict(WHOLE, cascading_doubles=True))
    turn = next(turn for seed in range(100) if (turn := cascade_turn(game, seed, 3, 5)) is not None)
    assert turn.stages[1] == (6, 6, 6, 6)
    me = [0] * 26
    me[6], me[24] = 4, 6
    for point in range(7, 12):
        me[point] = 1
    opp = [0] * 26
    for point in range(13, 19):   # (one checker closes a point: nothing is hit in Narde)
        opp[point] = 1
    opp[20] = 9
    node = Node(tuple(me), tuple(opp), 0, 0, (), 0)
    assert exhaustive_most(turn, node, 1, {}) == 0
    whole = turn.whole_cascade
    for walked, _ in (whole._walk(node, 1, 4), whole._python_walk(node, 4, 4, 100)):
        assert walked < 4


@pytest.mark.skipif(not _COMPILED_WALK_LIMITS, reason="the compiled walk is not built, or built before it judged limits")
def test_the_walks_stop_at_a_stage_start_that_owes_fevga_an_open_prime():
    """rules.md (Fevga): with all the opponent's checkers on one point and the six points ahead of
    it on his route held, the mover must open that prime; which stage ends keep the duty is for the
    stage search to say, so the walks (C and Python alike) give up at such a stage's start."""
    game = ("fevga", dict(WHOLE, cascading_doubles=True))
    turn = next(turn for seed in range(100) if (turn := cascade_turn(game, seed, 3, 1)) is not None)
    me = [0] * 26
    me[2] = 9
    for point in range(14, 20):   # the opponent's route indices 1..6 in the mover's frame
        me[point] = 1
    opp = [0] * 26
    opp[13] = CHECKERS
    node = Node(tuple(me), tuple(opp), 0, 0, (), 0)
    assert turn.frame.opening_duty(node) is not None
    whole, before = turn.whole_cascade, len(turn.stages[0])
    later = whole._dice[before:]
    limits = (sum(1 << (index - before) for index in whole._stage_starts if index >= before),) + \
        turn.frame.walk_limits
    for goal in (4, len(later)):
        assert _compiled_walk(node, later, goal, turn.frame.search_config, 100, limits) == \
            whole._python_walk(node, before, goal, 100) == (0, False)


def test_a_board_that_used_every_dies_pips_and_bore_off_may_show():
    """`may_show`'s equality case: pips gained that are exactly all the cascade's dice, a checker
    borne off (a die may waste pips, but need not): nothing is left to play, so the board may show
    (it uses every die), as the first definition says."""
    turn = next(turn for seed in range(100) if (turn := cascade_turn(GAMES[0], seed, 3, 1)) is not None)
    whole = turn.whole_cascade
    me = list(turn.start.me)
    low = min(p for p in range(1, OFF) if me[p])
    me[low] -= 1
    me[OFF] += 1
    left = whole._pips_of_first[-1] - (OFF - low)
    while left:     # then forward a pip at a time, the rearmost checker first
        p = min(p for p in range(1, OFF - 1) if me[p])
        me[p] -= 1
        me[p + 1] += 1
        left -= 1
    assert whole.may_show(tuple(me)) and reference_may_show(whole, tuple(me))
