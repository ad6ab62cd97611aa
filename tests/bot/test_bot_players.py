"""The players: every choice is a legal play; a play that wins is taken; the bot's chances and
expected points follow each game's scoring; cascades are chosen stage by stage."""
import io
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.bot import Bot, HeuristicPlayer, Network, RandomPlayer, equity
from firmware_host.bot.features import GameShape, input_size
from firmware_host.bot.players import flip, outcome, rounded
from firmware_host.referee import Reading, Referee
from firmware_host.rules import BLACK, VARIANTS, WHITE, GameResult, Position, Rules, Turn, blocked_for_good
from firmware_host.rules.plays import TooManyPlays


def fresh_bot(variant: str, seed: int = 0) -> Bot:
    rules = Rules.for_variant(variant)
    return Bot(rules, Network.fresh(input_size(GameShape.of(rules)), 16, np.random.default_rng(seed)))


def test_outcomes_count_the_points_of_each_result():
    gammon = GameResult(WHITE, 2, "gammon")
    assert equity(outcome(gammon, WHITE)) == 2 and equity(outcome(gammon, BLACK)) == -2
    assert equity(outcome(GameResult(BLACK, 1, "bear-off"), BLACK)) == 1
    assert equity(outcome(GameResult(WHITE, 3, "koks"), BLACK)) == -3
    assert equity(outcome(GameResult(None, 0, "tie"), WHITE)) == 0
    chances = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    assert np.allclose(flip(flip(chances)), chances)
    assert np.isclose(equity(flip(chances)), -equity(chances))


def random_turns(variant: str, seed: int, count: int, options=None):
    """Turns met in a seeded random game of `variant` (restarting when a game ends)."""
    rng = random.Random(seed)
    rules = Rules.for_variant(variant, options)
    position = Position.start(variant)
    for _ in range(count):
        turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
        yield turn
        play = turn.pick_play(rng.choice)
        over = play.result is not None or not play.moves and blocked_for_good(play.position, rules)
        position = Position.start(variant) if over else play.position


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 10_000))
def test_every_player_chooses_a_legal_play(variant, seed):
    rules = Rules.for_variant(variant)
    players = [fresh_bot(variant, seed), HeuristicPlayer(rules), RandomPlayer()]
    for turn in random_turns(variant, seed, 25):
        if len(turn.stages) > 1:
            continue  # cascades: below
        legal = {(play.position, play.moves) for play in turn.plays()}
        for player in players:
            play = player.choose(turn, random.Random(seed))
            assert (play.position, play.moves) in legal


@pytest.mark.parametrize("variant, options", [("gulbara", {"start_rule": "first_checker"}),
                                              ("fevga", {"start_rule": "none"}),
                                              ("narde", {"start_rule": "first_checker",
                                                         "first_checker_release_at": "start_quarter"})])
def test_the_shipped_bot_plays_under_a_start_rule_its_weights_were_not_trained_with(variant, options):
    """The shipped weights were trained under each variant's own start rule (gulbara: none, fevga:
    the first checker); a house rule that sets another must not change what the network reads
    (the first-checker rule adds two inputs): the bot still chooses a legal play of the game's
    rules, in a cascade too."""
    options = {**options, "cascading_doubles": True}
    bot = Bot.trained(Rules.for_variant(variant, options))
    cascades = 0
    for turn in random_turns(variant, 3, 40, options):
        play = bot.choose(turn)
        if len(turn.stages) == 1:
            assert (play.position, play.moves) in {(p.position, p.moves) for p in turn.plays()}
        else:   # (too many plays to list: the referee judges the board it leaves)
            cascades += 1
            verdict = Referee(turn.position, turn.dice, turn.rules).judge(Reading.of(play.position))
            assert verdict.kind == ("complete" if play.moves else "unchanged")
    assert cascades


def test_a_cascade_is_chosen_stage_by_stage_and_played_whole():
    rules = Rules.for_variant("gulbara")
    position = Position.from_json({"variant": "gulbara", "turn": "white",
                                   "white": {"points": {"24": 11, "20": 2, "18": 2}},
                                   "black": {"points": {"12": 13, "8": 2}},
                                   "rolls": {"white": 3, "black": 3}})
    turn = Turn(position, (5, 5), rules)
    assert len(turn.stages) == 2  # 5s then 6s
    play = fresh_bot("gulbara").choose(turn)
    assert [move.die for move in play.moves] == [5] * 4 + [6] * 4
    assert play.position.turn is BLACK


def test_the_bot_takes_a_play_that_wins_the_game():
    # White bears off its last two checkers with 6-5; any other order of moves is the same play,
    # but a fresh network must not matter: the end of the game is judged exactly.
    position = Position.from_json({"variant": "portes", "turn": "white",
                                   "white": {"points": {"1": 1, "6": 1}, "off": 13},
                                   "black": {"points": {"19": 15}}})
    play = fresh_bot("portes").choose(Turn(position, (6, 1), Rules.for_variant("portes")))
    assert play.result == GameResult(WHITE, 2, "gammon")


def test_the_bot_and_the_heuristic_pin_the_mother_when_they_can():
    # Plakoto: Black's last checker on his start (point 1) lies alone; White's 6 from 7 pins it.
    position = Position.from_json({"variant": "plakoto", "turn": "white",
                                   "white": {"points": {"7": 1, "12": 14}},
                                   "black": {"points": {"1": 1, "24": 14}}})
    rules = Rules.for_variant("plakoto")
    turn = Turn(position, (6, 2), rules)
    for player in (fresh_bot("plakoto"), HeuristicPlayer(rules)):
        play = player.choose(turn, random.Random(0))
        assert play.result is not None and play.result.reason == "mother" and play.result.winner is WHITE


def test_ranked_plays_are_every_play_best_first():
    rules = Rules.for_variant("portes")
    turn = Turn(Position.start("portes"), (3, 1), rules)
    ranked = fresh_bot("portes").ranked(turn)
    assert {r.play.position for r in ranked} == {p.position for p in turn.plays()}
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)
    for r in ranked:
        assert np.isclose(r.equity, equity(r.chances), atol=1e-5)
        assert set(r.chances_json()) == {"win", "win_double", "win_triple", "lose_double", "lose_triple"}
        # Portes scores one or two points: no chance of three is guessed at.
        assert r.chances_json()["win_triple"] == r.chances_json()["lose_triple"] == 0


def test_plays_the_bot_cannot_tell_apart_keep_the_listings_order():
    rules = Rules.for_variant("portes")
    bot = fresh_bot("portes")
    bot.network.hidden_weights[:] = 0.0   # every board looks the same
    turn = Turn(Position.start("portes"), (6, 4), rules)
    assert [r.play for r in bot.ranked(turn)] == turn.plays()


# Halfway cases of four decimals that a float32 holds exactly (k / 32: 0.03125 and the like), and any float32.
FLOAT32S = st.one_of(st.floats(-4, 4, width=32), st.integers(-128, 128).map(lambda k: k / 32))


@given(st.lists(FLOAT32S, min_size=1, max_size=20))
def test_rounded_numbers_are_pythons_round_to_four_decimals(values):
    array = np.array(values, np.float32)
    assert rounded(array).tolist() == [round(float(value), 4) for value in array]


@given(st.lists(st.lists(st.floats(0, 1, width=32), min_size=5, max_size=5), min_size=1, max_size=8))
def test_expected_points_are_their_sum_written_out_bit_for_bit(rows):
    # 2 win - 1 + win_double + win_triple - lose_double - lose_triple, left to right in float32: what
    # `hint` ranks by and writes, for a column of rows and for one row.
    chances = np.array(rows, np.float32)
    win, win_double, win_triple, lose_double, lose_triple = chances.T
    expected = 2.0 * win - 1.0 + win_double + win_triple - lose_double - lose_triple
    assert np.array_equal(equity(chances), expected) and equity(chances).dtype == np.float32
    assert [equity(row) for row in chances] == expected.tolist()


@pytest.mark.parametrize("rows", [1, 3, 40])
def test_the_network_computes_its_formula_written_out(rows):
    # One hidden layer of sigmoids, five sigmoid outputs, inputs clipped at +-40: bit for bit, on
    # inputs that reach the clip both ways.
    rng = np.random.default_rng(rows)
    network = Network.fresh(211, 80, rng)
    x = (rng.standard_normal((rows, 211)) * 50).astype(np.float32)

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
    hidden = sigmoid(x @ network.hidden_weights.T + network.hidden_bias)
    expected = sigmoid(hidden @ network.output_weights.T + network.output_bias)
    assert np.array_equal(network.forward(x), expected)
    assert network.forward(x).dtype == np.float32


def test_three_point_chances_where_the_rules_score_three():
    def most(variant, options=None):
        return GameShape.of(Rules.for_variant(variant, options)).most_points
    assert most("portes") == most("plakoto") == most("narde") == 2
    assert most("narde", {"koks": True}) == most("plakoto", {"mother_loss_points": 3}) == 3


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_shipped_bot_of_every_game_loads_and_plays(variant):
    rules = Rules.for_variant(variant)
    bot = Bot.trained(rules)
    assert bot.network.inputs == input_size(GameShape.of(rules))
    turn = Turn(Position.start(variant), (6, 5), rules)
    assert bot.choose(turn).position in {play.position for play in turn.plays()}


def test_under_whole_cascade_maximisation_every_players_cascade_is_a_legal_play_the_bots_one_the_referees():
    """gulbara_cascade_maximize = whole_cascade: a cascade chosen stage by stage (only stage ends
    that still lead to a play of the most dice of the whole cascade) uses that most and, where the
    plays are few enough to list, is one of them; the bot's is a complete play to the referee."""
    options = {"gulbara_cascade_maximize": "whole_cascade"}
    rules = Rules.for_variant("gulbara", options)
    bot, players = Bot.trained(rules), [HeuristicPlayer(rules), RandomPlayer()]
    cascades = listed = 0
    for turn in random_turns("gulbara", 3, 160, options):
        if len(turn.stages) == 1:
            continue
        cascades += 1
        try:
            legal = {play.position for play in turn.plays(limit=3000)}
        except TooManyPlays:
            legal = None
        listed += legal is not None
        for player in (bot, *players):
            play = player.choose(turn, random.Random(cascades))
            assert play.result is not None or len(play.moves) == turn.whole_cascade.most
            assert legal is None or play.position in legal
        play = bot.choose(turn)
        assert Referee(turn.position, turn.dice, rules).judge(Reading.of(play.position)).kind == "complete"
    assert cascades >= 10 and listed >= 5


def test_weights_round_trip_and_anything_else_is_refused_by_what_is_wrong():
    network = Network.fresh(7, 3, np.random.default_rng(1))
    again = Network.from_bytes(network.to_bytes())
    assert all(np.array_equal(a, b) for a, b in zip(network.parameters, again.parameters))
    half = Network.from_bytes(network.to_bytes(np.float16))
    assert all(np.allclose(a, b, atol=1e-3) for a, b in zip(network.parameters, half.parameters))
    other = io.BytesIO()
    np.savez_compressed(other, hidden_weights=np.zeros((3, 7)))
    for data, message in ((b"not weights", "not an .npz file"), (network.to_bytes()[:200], "a damaged .npz file"),
                          (other.getvalue(), "without the bot's hidden_bias, output_weights, output_bias")):
        with pytest.raises(ValueError, match=message):
            Network.from_bytes(data)


def test_the_mean_of_networks_is_each_parameter_averaged_and_only_of_one_shape():
    networks = [Network.fresh(7, 3, np.random.default_rng(seed)) for seed in (1, 2, 3)]
    mean = Network.mean(networks)
    for averaged, *each in zip(mean.parameters, *(network.parameters for network in networks)):
        assert averaged.dtype == np.float32 and np.allclose(averaged, sum(each) / 3)
    assert np.allclose(Network.mean(networks[:1]).hidden_weights, networks[0].hidden_weights)
    with pytest.raises(ValueError, match="networks of different shapes"):
        Network.mean([networks[0], Network.fresh(7, 4, np.random.default_rng(1))])
    with pytest.raises(ValueError, match="no networks"):
        Network.mean([])


def test_a_widened_network_computes_what_it_did_and_has_the_units_asked_for():
    network = Network.fresh(7, 3, np.random.default_rng(1))
    wide = network.widened(5, np.random.default_rng(2))
    boards = np.random.default_rng(3).random((9, 7)).astype(np.float32)
    assert wide.hidden_weights.shape == (5, 7) and wide.output_weights.shape == (5, 5)
    assert np.allclose(wide.forward(boards), network.forward(boards))
    assert np.abs(wide.hidden_weights[3:]).sum() > 0   # the new units see the board: training can grow them
    with pytest.raises(ValueError, match="2 hidden units are fewer than the network's 3"):
        network.widened(2, np.random.default_rng(2))
