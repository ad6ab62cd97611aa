"""The network in C (firmware_host/bot/_encode.c, `chances`) against numpy's `Network.forward` on
`encode`'s inputs, its specification; and the expected points and the rounding `hint` writes
(`equity`, `ten_thousandths_rows`) and the sigmoid's steps around numpy's exp in `Network.forward`
(`sigmoid_head`, `sigmoid_tail`), which are numpy's bit for bit.

Not bit for bit: numpy's float32 matrix product sums in an order of its BLAS's choosing (it differs
with the batch's size), the C one in double input by input. They must agree to float32 rounding,
chance for chance, and rank every roll's plays alike (but for plays whose expected points lie
within that rounding of each other, which either order may put first): on the plays of seeded
random games of every variant under house rules that change what the bot sees, on arbitrary search
states and networks (hypothesis), and through `Bot.ranking`, which takes the C path for a few plays.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.bot import Bot, Network, equity, features
from firmware_host.bot import network as network_module
from firmware_host.bot.features import Boards, GameShape, chances_of_nodes, encode, input_size
from firmware_host.bot.players import load_network, ten_thousandths, ten_thousandths_rows
from firmware_host.rules import VARIANTS, Position, Rules, Turn, blocked_for_good
from firmware_host.rules.plays import Node

compiled_only = pytest.mark.skipif(not features.COMPILED, reason="the compiled encoder is not active "
                                   "(not built, or TAVLI_PURE_PYTHON is set): nothing to compare")

# Chances are 0..1: float32's spacing just below 1 is 6e-8; the two differ by a few of those at most.
FLOAT32_ROUNDING = 1e-6
EQUITY_ROUNDING = 8 * FLOAT32_ROUNDING   # five chances summed, one of them doubled

# House rules that change the shape of the bot's game (GameShape.of), as test_bot_encode_compiled's.
RULES = [Rules.for_variant(variant) for variant in VARIANTS] + [
    Rules.for_variant("fevga", {"first_checker_release_at": "start_quarter"}),
    Rules.for_variant("narde", {"koks": True}),
    Rules.for_variant("neverfinishing", {"mother_rule": True}),
]


def compiled_chances(nodes: list, shape: GameShape, network: Network) -> np.ndarray:
    """The C path whatever the number of nodes (`chances_of_nodes` takes it for a few only)."""
    data = features._encode.chances(nodes, shape.parallel, shape.hitting, shape.pinning, shape.release_from,
                                    features._term_scales(shape), network.parameters)
    return np.frombuffer(data, np.float32).reshape(len(nodes), 5)


def assert_agree(nodes: list, shape: GameShape, network: Network) -> None:
    expected = network.forward(encode(Boards.of(nodes), shape))
    found = compiled_chances(nodes, shape, network)
    assert found.dtype == np.float32 and found.shape == expected.shape
    assert np.abs(found - expected).max(initial=0.0) <= FLOAT32_ROUNDING
    assert_ranked_alike(equity(expected), equity(found))


def assert_ranked_alike(expected: np.ndarray, found: np.ndarray) -> None:
    """`found`'s order (best first, ties in the listing's order) is `expected`'s, but for plays within
    rounding of each other: taken in it, `expected` never rises by more than that."""
    assert np.abs(found - expected).max(initial=0.0) <= EQUITY_ROUNDING
    order = np.argsort(-found, kind="stable")
    assert (np.diff(expected[order]) <= EQUITY_ROUNDING).all()


def random_turns(rules: Rules, seed: str, games: int = 2, turns: int = 120):
    rng = random.Random(seed)
    for _ in range(games):
        position = Position.start(rules.variant.name, rng.choice(("white", "black")))
        for _ in range(turns):
            turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
            yield turn
            play = turn.pick_play(rng.choice)
            if play.result is not None or not play.moves and blocked_for_good(play.position, rules):
                break
            position = play.position


@compiled_only
@pytest.mark.parametrize("rules", RULES, ids=[f"{r.variant.name}-{i}" for i, r in enumerate(RULES)])
def test_the_plays_of_random_games_get_the_same_chances(rules):
    shape, network = GameShape.of(rules), load_network(rules.variant.name)
    for turn in random_turns(rules, f"chances:{rules.variant.name}:{sorted(rules.options.items())}"):
        if len(turn.stages) == 1:
            assert_agree([play.node for play in turn.plays(limit=5_000)], shape, network)


@st.composite
def nodes(draw) -> Node:
    """An arbitrary search state: any counts up to 15 on every frame position, any pins."""
    counts = st.lists(st.integers(0, 15), min_size=26, max_size=26).map(tuple)
    pins = st.integers(0, 2**26 - 1)
    return Node(draw(counts), draw(counts), draw(pins), draw(pins))


SHAPES = sorted({GameShape.of(rules) for rules in RULES}, key=repr)


@compiled_only
@settings(max_examples=150, deadline=None)
@given(shape=st.sampled_from(SHAPES), batch=st.lists(nodes(), min_size=1, max_size=6),
       hidden=st.integers(1, 96), seed=st.integers(0, 2**32 - 1))
def test_arbitrary_states_and_networks_get_the_same_chances(shape, batch, hidden, seed):
    rng = np.random.default_rng(seed)
    network = Network.fresh(input_size(shape), hidden, rng)
    network.hidden_bias[:] = rng.normal(0.0, 1.0, hidden)   # (a fresh network's biases are zero)
    network.output_bias[:] = rng.normal(0.0, 1.0, 5)
    assert_agree(batch, shape, network)


@compiled_only
def test_a_node_gets_the_same_chances_alone_as_in_any_batch():
    # Sums input by input for each node: the batch does not change a node's chances (numpy's do).
    rules = Rules.for_variant("portes")
    shape, network = GameShape.of(rules), load_network("portes")
    plays = Turn(Position.start("portes"), (1, 1), rules).plays()
    nodes_ = [play.node for play in plays]
    together = compiled_chances(nodes_, shape, network)
    alone = np.vstack([compiled_chances([node], shape, network) for node in nodes_])
    assert np.array_equal(together, alone)


@compiled_only
@pytest.mark.parametrize("variant", ["portes", "plakoto", "fevga"])
def test_the_bot_ranks_few_plays_alike_on_either_path(variant, monkeypatch):
    rules = Rules.for_variant(variant)
    bot = Bot.trained(rules)
    few = [turn for turn in random_turns(rules, f"ranking:{variant}", games=3)
           if len(turn.stages) == 1 and len(turn.plays()) * len(bot.network.hidden_bias)
           <= features.COMPILED_NETWORK_MOST]
    assert len(few) >= 20
    compiled = [bot.ranking(turn) for turn in few]
    monkeypatch.setattr(features, "_encode", None)
    for turn, (plays, chances, points) in zip(few, compiled):
        numpy_plays, numpy_chances, numpy_points = bot.ranking(turn)
        assert np.abs(chances - numpy_chances).max() <= FLOAT32_ROUNDING
        if (np.abs(np.diff(numpy_points)) > 2 * EQUITY_ROUNDING).all():   # no two plays within rounding
            assert plays == numpy_plays
        else:
            assert_ranked_alike(numpy_points[[numpy_plays.index(play) for play in plays]], points)


@compiled_only
def test_chances_of_nodes_takes_numpy_past_a_few_plays(monkeypatch):
    # Past COMPILED_NETWORK_MOST, numpy's batch is the faster: the result is numpy's, bit for bit.
    rules = Rules.for_variant("portes")
    shape, network = GameShape.of(rules), load_network("portes")
    nodes_ = [play.node for play in Turn(Position.start("portes"), (1, 1), rules).plays()]
    assert len(nodes_) * len(network.hidden_bias) > features.COMPILED_NETWORK_MOST
    assert np.array_equal(chances_of_nodes(nodes_, shape, network),
                          network.forward(encode(Boards.of(nodes_), shape)))


@compiled_only
@pytest.mark.parametrize("change, error, problem", [
    (lambda p: p[:3], TypeError, "network: "),
    (lambda p: (p[0].astype(np.float64),) + p[1:], ValueError, "hidden_weights: a C-contiguous float32"),
    (lambda p: (np.asfortranarray(p[0]),) + p[1:], ValueError, "hidden_weights: a C-contiguous float32"),
    (lambda p: p[:2] + (p[2][:, :-1].copy(),) + p[3:], ValueError, "output_weights: "),
    (lambda p: p[:3] + (p[3][:4].copy(),), ValueError, "output_bias: "),
    (lambda p: (p[0][:0].copy(), p[1][:0].copy(), p[2][:, :0].copy(), p[3]), ValueError,
     "network: at least one hidden unit"),
])
def test_a_network_of_the_wrong_form_is_refused_with_its_fault(change, error, problem):
    rules = Rules.for_variant("portes")
    shape, network = GameShape.of(rules), load_network("portes")
    with pytest.raises(error, match=problem):
        features._encode.chances([Turn(Position.start("portes"), (6, 5), rules).plays()[0].node],
                                 shape.parallel, shape.hitting, shape.pinning, shape.release_from,
                                 features._term_scales(shape), change(network.parameters))


# -- what `hint` makes of the chances: the same as numpy's, bit for bit --------------------------------

def numpy_equity(chances: np.ndarray) -> np.ndarray:
    """players.equity's own numpy operations (it takes C for a column of rows where built)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(features, "_encode", None)
        return equity(chances)


# Chances 0..1 as float32, halves of ten-thousandths (the rounding's ties) and their neighbours among them.
chance_values = st.one_of(st.floats(0, 1, width=32), st.integers(0, 20_000).map(lambda k: k / 20_000),
                          st.integers(0, 64).map(lambda k: k / 64))
chance_rows = st.lists(st.lists(chance_values, min_size=5, max_size=5), min_size=0, max_size=12).map(
    lambda rows: np.array(rows, np.float32).reshape(len(rows), 5))


@compiled_only
@settings(max_examples=300, deadline=None)
@given(chances=chance_rows)
def test_the_expected_points_are_numpys_bit_for_bit(chances):
    found = equity(chances)
    assert found.dtype == np.float32
    assert found.tobytes() == numpy_equity(chances).tobytes()


@compiled_only
@settings(max_examples=300, deadline=None)
@given(chances=chance_rows)
def test_the_rows_in_ten_thousandths_are_numpys(chances):
    points = numpy_equity(chances)
    found = ten_thousandths_rows(chances, points)
    expected = ten_thousandths(np.concatenate((chances, points[:, None]), axis=1)).astype(np.intp).tolist()
    assert found == expected
    assert all(type(k) is int for row in found for k in row)


@compiled_only
def test_rows_of_the_wrong_form_are_refused_with_their_fault():
    with pytest.raises(ValueError, match="chances: a C-contiguous float32 array of rows of 5"):
        features._encode.equity(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="chances: a C-contiguous float32"):
        features._encode.ten_thousandths_rows(np.zeros((2, 5), np.float64), np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="points: one for each of the 2 rows"):
        features._encode.ten_thousandths_rows(np.zeros((2, 5), np.float32), np.zeros(3, np.float32))


# -- the sigmoid's steps around numpy's exp in C: `Network.forward` is numpy's, bit for bit ----------

@compiled_only
@settings(max_examples=200, deadline=None)
@given(rows=st.integers(1, 40), hidden=st.integers(1, 96), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([0.1, 1.0, 30.0, 300.0]))
def test_the_network_is_numpys_bit_for_bit(rows, hidden, seed, scale):
    # scale 30 and 300: sums past +-40, which the sigmoid clips
    rng = np.random.default_rng(seed)
    network = Network.fresh(50, hidden, rng)
    network.hidden_bias[:] = rng.normal(0.0, scale, hidden)
    network.output_bias[:] = rng.normal(0.0, scale, 5)
    inputs = (rng.normal(0.0, scale, (rows, 50)) * (rng.random((rows, 50)) < 0.3)).astype(np.float32)
    found = network.forward(inputs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(network_module, "_encode", None)
        expected = network.forward(inputs)
    assert found.dtype == np.float32 and found.tobytes() == expected.tobytes()


@compiled_only
def test_the_sigmoids_steps_refuse_arrays_of_the_wrong_form():
    bias = np.zeros(4, np.float32)
    read_only = np.zeros((2, 4), np.float32)
    read_only.flags.writeable = False
    for sums in (read_only, np.zeros((2, 4)), np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32).T):
        with pytest.raises(ValueError, match="sums: a writable C-contiguous float32 array"):
            network_module._encode.sigmoid_head(sums, bias)
    with pytest.raises(ValueError, match="sums: a writable C-contiguous float32 array"):
        network_module._encode.sigmoid_tail(read_only)
