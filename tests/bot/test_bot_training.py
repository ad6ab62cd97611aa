"""TD(lambda) self-play: a learning step moves the network's judgement toward its target, a game
learns from every play, and the same seeds train the same weights."""
import random

import numpy as np
import pytest

from firmware_host.bot.arena import Tally, play_game, series
from firmware_host.bot.features import Boards, encode
from firmware_host.bot.players import HeuristicPlayer, RandomPlayer
from firmware_host.bot.training import Settings, Trainer, _Side
from firmware_host.rules import BLACK, WHITE, GameResult, Position, Rules, Turn


def trainer(variant="portes", seed=3) -> Trainer:
    return Trainer.fresh(Rules.for_variant(variant), np.random.default_rng(seed), Settings(hidden=8))


def test_a_learning_step_moves_the_judgement_toward_the_target():
    t = trainer()
    play = Turn(Position.start("portes"), (6, 5), t.rules).plays()[0]
    x = encode(Boards.of([play.node]), t.shape)[0]
    before, gradients = t.network.gradients(x)
    target = np.array([1.0, 1.0, 0.0, 0.0, 0.0], np.float32)
    t._learn(_Side(before, gradients), target)
    after = t.network.forward(x[None])[0]
    assert np.all(np.abs(target - after) <= np.abs(target - before))
    assert np.abs(target - after).sum() < np.abs(target - before).sum()


def test_self_play_learns_and_the_same_seeds_give_the_same_weights():
    first, second = trainer("fevga"), trainer("fevga")
    untouched = first.network.hidden_weights.copy()
    for t in (first, second):
        t.train(2, random.Random(5))
    assert not np.allclose(first.network.hidden_weights, untouched)
    for a, b in zip(first.network.parameters, second.network.parameters):
        assert np.array_equal(a, b)


def test_a_share_of_the_games_seats_the_heuristic_player_each_colour_in_turn():
    t = Trainer.fresh(Rules.for_variant("fevga"), np.random.default_rng(1), Settings(hidden=8, heuristic_share=0.5))
    heuristic_moves, seats = [], []

    class Recorder(HeuristicPlayer):
        def choose(self, turn, rng):
            heuristic_moves.append(turn.mover)
            return super().choose(turn, rng)
    t.heuristic = Recorder(t.rules)
    play_game = t.self_play
    t.self_play = lambda rng, starter, side: seats.append(side) or play_game(rng, starter, side)
    t.train(4, random.Random(2))
    assert seats == [None, BLACK, None, WHITE]   # every second game, Black's seat first
    assert set(heuristic_moves) == {BLACK, WHITE}


def test_a_tally_counts_points_and_intervals():
    tally = Tally()
    for result, player in [(GameResult(WHITE, 2, "gammon"), WHITE), (GameResult(BLACK, 1, "bear-off"), WHITE),
                           (None, WHITE), (GameResult(WHITE, 1, "bear-off"), WHITE)]:
        tally.add(result, player)
    assert (tally.games, tally.wins, tally.points) == (4, 2, [2, -1, 0, 1])
    assert tally.points_per_game == 0.5
    low, high = tally.win_rate_interval()
    assert low < 0.5 < high and 0 <= low and high <= 1
    # Points 2, -1, 0, 1: mean 0.5, sample spread sqrt(5/3), half-width 1.96 * sqrt(5/3) / 2.
    assert tally.points_interval() == pytest.approx((0.5 - 1.2652, 0.5 + 1.2652), abs=1e-4)


def test_a_series_alternates_seats_and_starters():
    seats = []

    class Recorder(RandomPlayer):
        def choose(self, turn, rng):
            seats.append((turn.mover, turn.position.rolls == (0, 0)))
            return super().choose(turn, rng)
    rules = Rules.for_variant("fevga")
    series(rules, Recorder(), HeuristicPlayer(rules), 4, random.Random(1))
    # The recorder's colour: White, Black, White, Black; it makes the first roll in games 1 and 4
    # (White starts games 1 and 2, Black games 3 and 4).
    first_moves = [mover for mover, opening in seats if opening]
    assert first_moves == [WHITE, BLACK]


def test_a_game_shows_each_turn_and_its_play_in_order_but_the_last():
    rules = Rules.for_variant("portes")
    seen = []
    result = play_game(rules, {WHITE: RandomPlayer(), BLACK: RandomPlayer()}, WHITE, random.Random(4),
                       on_play=lambda turn, play: seen.append((turn, play)))
    assert result is not None and seen[0][0].position == Position.start("portes", WHITE)
    for (_, play), (turn, _) in zip(seen, seen[1:]):
        assert turn.position == play.position   # each turn starts where the previous play left
    assert seen[-1][1].result is None            # the play that ends the game is not shown
