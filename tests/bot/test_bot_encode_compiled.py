"""The bot's inputs in C (firmware_host/bot/_encode.c) against numpy's `encode`, their specification.

`encode_nodes` must give the network exactly the inputs `encode(Boards.of(nodes), shape)` gives,
bit for bit, so that every chance and every choice stays what it was: on the plays of seeded random
games of every variant under house rules that change what the bot sees (the first-checker rule, the
mother, koks), and on arbitrary search states (hypothesis), beyond what play reaches.
"""
from __future__ import annotations

import importlib
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.bot import features
from firmware_host.bot.features import Boards, GameShape, encode, encode_nodes
from firmware_host.rules import VARIANTS, Position, Rules, Turn, blocked_for_good
from firmware_host.rules.plays import Node

compiled_only = pytest.mark.skipif(not features.COMPILED, reason="the compiled encoder is not active "
                                   "(not built, or TAVLI_PURE_PYTHON is set): nothing to compare")

# House rules that change the shape of the bot's game (GameShape.of).
HOUSE_RULES = {variant: [None] for variant in VARIANTS} | {
    "fevga": [None, {"first_checker_release_at": "start_quarter"}, {"start_rule": "none"}],
    "gulbara": [None, {"start_rule": "first_checker"}],
    "narde": [None, {"start_rule": "first_checker"}, {"koks": True}],
    "plakoto": [None, {"mother_rule": False}],
    "neverfinishing": [None, {"mother_rule": True}],
}
RULES = [Rules.for_variant(variant, options) for variant, options_list in HOUSE_RULES.items()
         for options in options_list]
SHAPES = sorted({GameShape.of(rules) for rules in RULES}, key=repr)


def assert_same_inputs(nodes: list, shape: GameShape) -> None:
    expected = encode(Boards.of(nodes), shape)
    found = encode_nodes(nodes, shape)
    assert found.dtype == np.float32 and found.shape == expected.shape
    assert np.array_equal(found, expected), np.argwhere(found != expected)[:5]


def test_the_house_rules_give_every_shape_of_game():
    # Each flag and the first-checker rule both ways, so that every branch of the encoder is compared.
    assert {shape.parallel for shape in SHAPES} == {True, False}
    assert {shape.hitting for shape in SHAPES} == {True, False}
    assert {shape.pinning for shape in SHAPES} == {True, False}
    assert {shape.release_from for shape in SHAPES} == {0, 13, 14}


@compiled_only
@pytest.mark.parametrize("rules", RULES, ids=[f"{r.variant.name}-{i}" for i, r in enumerate(RULES)])
def test_the_plays_of_random_games_are_encoded_alike(rules):
    rng = random.Random(f"encode:{rules.variant.name}:{sorted(rules.options.items())}")
    shape = GameShape.of(rules)
    for _ in range(3):
        position = Position.start(rules.variant.name, rng.choice(("white", "black")))
        for _ in range(200):
            turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
            if len(turn.stages) == 1:
                plays = turn.plays(limit=5_000)
                assert_same_inputs([play.node for play in plays], shape)
            play = turn.pick_play(rng.choice)
            if play.result is not None or not play.moves and blocked_for_good(play.position, rules):
                break
            position = play.position


@st.composite
def nodes(draw) -> Node:
    """An arbitrary search state: any counts up to 15 on every frame position, any pins."""
    counts = st.lists(st.integers(0, 15), min_size=26, max_size=26).map(tuple)
    pins = st.integers(0, 2**26 - 1)
    return Node(draw(counts), draw(counts), draw(pins), draw(pins))


@compiled_only
@settings(max_examples=300, deadline=None)
@given(shape=st.sampled_from(SHAPES), batch=st.lists(nodes(), min_size=1, max_size=8))
def test_arbitrary_search_states_are_encoded_alike(shape, batch):
    assert_same_inputs(batch, shape)


@compiled_only
def test_no_plays_encode_to_no_rows():
    shape = GameShape.of(Rules.for_variant("portes"))
    assert encode_nodes([], shape).shape == (0, features.input_size(shape))


@compiled_only
@pytest.mark.parametrize("bad, problem", [([("not a node",)], "a node is a tuple"),
                                          ([((0,) * 25, (0,) * 26, 0, 0)], "tuple of 26 ints")])
def test_a_malformed_state_is_refused_with_its_fault(bad, problem):
    with pytest.raises(TypeError, match=problem):
        encode_nodes(bad, GameShape.of(Rules.for_variant("portes")))


def test_the_extension_is_built_where_the_search_is():
    # Built by the same setup.py as the rules' search: where that one is, this one must be too, or
    # every test above would skip silently.
    try:
        importlib.import_module("firmware_host.rules._search")
    except ImportError:
        pytest.skip("no compiled parts in this install")
    module = importlib.import_module("firmware_host.bot._encode")
    assert callable(module.encode)
    assert features.COMPILED == (not os.environ.get("TAVLI_PURE_PYTHON"))
