"""The compiled search (firmware_host/rules/_search.c) against the Python search, its specification.

`Turn.search` runs in C where the extension is built and the rules allow; the Python generator
stays the oracle. Both must reach the same states in the same order, each with the same first
moves, dice left and result (the referee and the listings read that order), and every listing
built on them must be the same: on every position of seeded random games in all nine variants
under their house rules, and on arbitrary legal positions (hypothesis). The rest of tests/rules
runs on whichever search is active; `TAVLI_PURE_PYTHON=1` runs it on the Python one.
"""
from __future__ import annotations

import importlib
import os
import random
import shutil
import sysconfig
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.rules import VARIANTS, Owed, Position, Rules, Turn, blocked_for_good, plays
from firmware_host.rules.plays import Frame, TooManyPlays
from rules_kit import pos
from test_rules_random_positions import OPTIONS as POSITION_OPTIONS, positions

compiled_only = pytest.mark.skipif(not plays.COMPILED, reason="the compiled search is not active "
                                   "(not built, or TAVLI_PURE_PYTHON is set): nothing to compare")

# House rules per variant: those the compiled search implements, and those that send the search
# back to Python (every-move checks), whose dispatch must be right too.
HOUSE_RULES = {
    "portes": [None, {"higher_die_rule": False}, {"no_hit_and_run_in_home": True}],
    "tavla": [None, {"no_hit_and_run_in_home": False}],
    "plakoto": [None, {"pinned_blocks_bearoff": False}, {"mother_rule": False},
                {"mother_check": "every_move"}, {"mother_exception": "none"}],
    "tapa": [None, {"pinned_blocks_bearoff": False}],
    "neverfinishing": [None, {"entry_may_trap": False}, {"pinned_blocks_bearoff": False},
                       {"no_hit_and_run_in_home": True}, {"mother_rule": True}],
    "fevga": [None, {"first_checker_release_at": "start_quarter"},
              {"first_checker_release_timing": "next_turn"}, {"start_rule": "head_rule"},
              {"start_rule": "none"}, {"start_table_check": "every_move"},
              {"start_table_scope": "both"}, {"prime_rule": "opponent_must_be_able_to_move"}],
    "moultezim": [None, {"cascading_doubles": True}],
    "gulbara": [None, {"cascading_doubles": False}, {"gulbara_remainder": "opponent_plays"},
                {"gulbara_cascade_maximize": "whole_cascade"}, {"start_rule": "first_checker"}],
    "narde": [None, {"head_rule_first_roll_doubles": [4, 6]}, {"start_rule": "first_checker"},
              {"prime_check": "every_move"}, {"koks": True, "mutual_no_move_draw": True}],
}
LISTING_LIMIT = 3000  # low cascades can have 100,000 plays: such listings are compared as stopping


def test_house_rules_cover_every_variant():
    assert set(HOUSE_RULES) == set(VARIANTS)


def visits(turn: Turn, node, dice, compiled: bool) -> tuple[list[tuple], dict, list[tuple]]:
    """The search's visits, its edges (the referee's graph) and each visit's key, by the compiled or
    the Python search."""
    edges: dict = {}
    keys: list = []
    search = turn.search(node, dice, edges, keys) if compiled \
        else turn._python_search(node, tuple(sorted(dice)), edges, keys)
    found = [(v.node, v.moves, v.remaining, v.result) for v in search]
    assert keys == [(node, remaining) for node, _, remaining, _ in found]
    return found, edges, keys


def listing(turn: Turn) -> list[tuple] | str:
    try:
        return [(p.moves, p.position, p.result, p.remainder, p.node) for p in turn.plays(LISTING_LIMIT)]
    except TooManyPlays:
        return "too many plays"


def assert_same(position: Position, dice, rules: Rules, monkeypatch) -> Turn:
    """Both searches from the turn's start (and from up to 20 ends of a cascade's first stage),
    the states where a play may end by the limits judged at its end, and both listings; returns
    the compiled turn."""
    turn = Turn(position, dice, rules)
    label = f"{position.to_json_text()} {dice} {rules.options}"
    stage = turn.stages[0]
    compiled = visits(turn, turn.start, stage, compiled=True)
    assert compiled == visits(turn, turn.start, stage, compiled=False), label
    found = list(turn.search(turn.start, stage))
    with monkeypatch.context() as pure:
        pure.setattr(plays, "_search", None)
        allowed = turn.frame.allowed_ends(found, turn.start)
    assert turn.frame.allowed_ends(found, turn.start) == allowed, label
    if len(turn.stages) > 1:
        for end in turn.stage_ends(turn.start, stage)[:20]:
            if end.result is None and not end.remaining:
                assert visits(turn, end.node, turn.stages[1], True) == \
                    visits(turn, end.node, turn.stages[1], False), label
    compiled_listing = listing(turn)
    with monkeypatch.context() as pure:
        pure.setattr(plays, "_search", None)
        assert listing(Turn(position, dice, rules)) == compiled_listing, label
    return turn


@compiled_only
@pytest.mark.parametrize("variant, options", [(v, o) for v, sets in HOUSE_RULES.items() for o in sets],
                         ids=lambda value: str(value))
def test_random_games_search_and_list_alike(variant, options, monkeypatch):
    rules = Rules.for_variant(variant, options)
    rng = random.Random(f"compiled:{variant}:{options}")
    turns = 0
    for _ in range(2):
        position = Position.start(variant, rng.choice(("white", "black")))
        for _ in range(120):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            turn = assert_same(position, dice, rules, monkeypatch)
            turns += 1
            play = turn.pick_play(rng.choice)
            if play.result is not None or not play.moves and blocked_for_good(play.position, rules):
                break
            position = play.position
    assert turns >= 40


def test_the_every_move_checks_run_the_python_search():
    for variant, options in (("plakoto", {"mother_check": "every_move"}),
                             ("fevga", {"start_table_check": "every_move"}),
                             ("narde", {"prime_check": "every_move"})):
        position = Position.start(variant)
        assert Frame(position, position.turn, Rules.for_variant(variant, options)).search_config is None
    position = Position.start("plakoto")
    assert Frame(position, position.turn, Rules.for_variant("plakoto")).search_config is not None


@compiled_only
def test_edges_are_recorded_by_the_compiled_search_as_by_the_python_search():
    """The referee's graph: every move from each state reached whose game goes on, in the order found."""
    position = Position.start("portes")
    turn = Turn(position, (6, 5), Rules.for_variant("portes"))
    edges: dict = {}
    found = [(v.node, v.moves, v.remaining) for v in turn.search(turn.start, (6, 5), edges)]
    assert found == [(v.node, v.moves, v.remaining) for v in turn.search(turn.start, (6, 5))]
    assert edges[(turn.start, (5, 6))]  # the start's moves are there
    assert edges == visits(turn, turn.start, (6, 5), compiled=False)[1]


@compiled_only
def test_the_compiled_search_names_each_child_by_its_visits_key_object():
    """The referee's trees match an edge's child to its visit by identity (`tree_states`): each
    child key in the compiled edges is the very object given as that visit's key."""
    turn = Turn(Position.start("gulbara"), (2, 2), Rules.for_variant("gulbara"))
    found, edges, keys = visits(turn, turn.start, (2, 2, 2, 2), compiled=True)
    by_identity = {id(key) for key in keys}
    children = [child for out in edges.values() for _, child in out]
    assert len(children) > len(keys) and all(id(child) in by_identity for child in children)


@compiled_only
def test_an_extension_built_before_it_recorded_edges_leaves_them_to_the_python_search(monkeypatch):
    """A copy of the extension built from an older _search.c (no SEARCH_EDGES, a search of five
    arguments) still searches without edges, and the referee's graph comes from Python."""
    built = plays._search
    old_build = SimpleNamespace(MAX_DICE=built.MAX_DICE, search=lambda visit, node, start, dice, config:
                                built.search(visit, node, start, dice, config))
    monkeypatch.setattr(plays, "_search", old_build)
    monkeypatch.setattr(plays, "_COMPILED_EDGES", getattr(old_build, "SEARCH_EDGES", False))
    turn = Turn(Position.start("portes"), (6, 5), Rules.for_variant("portes"))
    monkeypatch.setattr(plays, "_COMPILED_KEYS", getattr(old_build, "SEARCH_KEYS", False))
    python_visits, python_edges, python_keys = visits(turn, turn.start, (6, 5), compiled=False)
    assert visits(turn, turn.start, (6, 5), compiled=True) == (python_visits, python_edges, python_keys)
    assert [(v.node, v.moves, v.remaining, v.result) for v in turn.search(turn.start, (6, 5))] == python_visits


@compiled_only
def test_hits_pins_and_frozen_hitters_in_a_home_board(monkeypatch):
    # Both kinds of landing on a lone checker, entering from the bar, and a hitter that may not
    # move on (no hit and run in the home board): the state the compiled search packs the most.
    position = pos("neverfinishing", {24: 3, 22: 2, 13: 4, 8: 3, 6: 2},
                   {1: 1, 3: 1, 5: 1, 12: 4, 17: 3, 19: 2, 20: 1, 23: 1}, bar=(1, 0))
    for options in (None, {"no_hit_and_run_in_home": True}, {"entry_may_trap": False}):
        rules = Rules.for_variant("neverfinishing", options)
        for dice in ((4, 2), (3, 3), (3, 1)):
            turn = assert_same(position, dice, rules, monkeypatch)
            reached = list(turn.search(turn.start, turn.stages[0]))
            moves = [move for visit in reached for move in visit.moves]
            assert any(hit for *_, hit, _ in moves) and any(pin for *_, pin in moves)
            frozen = any(visit.node.frozen for visit in reached)  # 6/3* or 6/5* in White's home
            assert frozen if options == {"no_hit_and_run_in_home": True} and dice != (4, 2) else not frozen


@compiled_only
@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_arbitrary_positions_search_and_list_alike(variant, data, monkeypatch):
    position = data.draw(positions(variant))
    dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    options = data.draw(st.sampled_from(POSITION_OPTIONS[variant] + HOUSE_RULES[variant]))
    assert_same(position, dice, Rules.for_variant(variant, options), monkeypatch)


@compiled_only
def test_more_owed_dice_than_the_compiled_search_takes_are_searched_in_python(monkeypatch):
    from firmware_host.rules import _search
    turn = assert_same(Position.start("portes"), Owed((2,) * (_search.MAX_DICE + 1)),
                       Rules.for_variant("portes"), monkeypatch)
    assert max(len(play.moves) for play in turn.plays()) == _search.MAX_DICE + 1


@compiled_only
def test_compiled_search_rejects_a_malformed_node():
    from firmware_host.rules import _search
    config = Frame(Position.start("portes"), Position.start("portes").turn,
                   Rules.for_variant("portes")).search_config
    with pytest.raises(ValueError, match="node.me"):
        _search.search(plays._Visit, plays.Node, plays.Node((0,) * 25, (0,) * 26), (6, 5), config)
    with pytest.raises(ValueError, match="dice are sorted"):
        _search.search(plays._Visit, plays.Node, plays.Node((0,) * 26, (0,) * 26), (6, 5), config)


def _compiler_and_headers() -> str | None:
    """Why the extension cannot be built here, or None where it can."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(compiler):
        return f"no C compiler ({compiler}) on this machine"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (python3-dev) on this machine"
    return None


@pytest.mark.skipif(_compiler_and_headers() is not None, reason=str(_compiler_and_headers()))
def test_the_extension_is_built_where_a_compiler_exists():
    # Checked even when TAVLI_PURE_PYTHON is set: an install that silently skipped the build
    # would leave every other test on the Python search only.
    module = importlib.import_module("firmware_host.rules._search")
    assert callable(module.search)
    assert plays.COMPILED == (not os.environ.get("TAVLI_PURE_PYTHON"))


END_LIMIT_RULES = [("narde", {}), ("narde", {"start_table_scope": "own"}), ("moultezim", {}),
                   ("fevga", {}), ("fevga", {"start_table_scope": "both"}), ("gulbara", {}),
                   ("fevga", {"prime_rule": "no_prime_without_opponent_ahead"})]


@st.composite
def boards_with_primes(draw):
    """The mover's 15 checkers, most of them on a run of four to seven points along the opponent's
    route (often a prime), the rest anywhere; the opponent's on points the mover leaves, often
    none ahead of the run; as frame counts (0 bar .. 25 off)."""
    me, opp = [0] * 26, [0] * 26
    # (from 0: the opponent's starting table, where Moultezim allows four points held)
    first, length = draw(st.just(0) | st.integers(0, 18)), draw(st.sampled_from([4, 5, 6, 7]))
    route = plays._OPPONENT_ROUTE
    for i in range(first, min(first + length, 24)):
        me[route[i]] += 1
    for point in draw(st.lists(st.integers(1, 25), min_size=15 - sum(me), max_size=15 - sum(me))):
        me[point] += 1
    behind = [route[i] for i in range(first) if not me[route[i]]]
    anywhere = [p for p in range(1, 25) if not me[p]]
    for _ in range(15):
        spots = behind if behind and draw(st.booleans()) else anywhere
        opp[draw(st.sampled_from(spots))] += 1
    return tuple(me), tuple(opp)


@compiled_only
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(END_LIMIT_RULES), st.lists(boards_with_primes(), min_size=1, max_size=6), boards_with_primes())
def test_the_compiled_end_limits_allow_what_the_python_ones_do(variant_options, boards, start):
    """`Frame.allowed_ends` in C (rules/_search.c `allowed_ends`) against `Frame.allowed_at_end`,
    on boards made to hold primes (a run of six points, the opponent's checkers behind it or not)
    and a play's start that holds one or not: the start tables, Moultezim's four points and the
    no-prime rule (a prime with no opposing checker ahead only where it stood at the start)."""
    variant, options = variant_options
    frame = Turn(Position.start(variant), (6, 5), Rules.for_variant(variant, options)).frame
    visits = [plays._Visit(plays.Node(me, opp), (), ()) for me, opp in boards]
    turn_start = plays.Node(*start)
    expected = [visit for visit in visits if frame.allowed_at_end(visit.node, turn_start)]
    assert frame.allowed_ends(visits, turn_start) == expected
