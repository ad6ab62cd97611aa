"""TD(lambda) self-play, as TD-Gammon learnt: the bot plays both sides with its current network,
and after every play the network's judgement of each side's previous board moves toward what it
judges one play later (the opponent's board, seen from the other side), or toward the game's end.

Each side keeps its own eligibility traces over its own boards, so a side's later judgements
correct its earlier ones, decaying by lambda per play of that side.

Pure self-play can settle where neither side ever builds what it never meets: in the parallel
games both sides learnt to stack and run, never to block, and lost to the heuristic player that
spreads and blocks. So a share of the games (`heuristic_share`) seats the heuristic player on one
side; the boards of both sides are learnt all the same, and the bot meets blocks and learns what
they are worth. Pure: the dice come from the
generator passed in; files and the clock belong to the command that drives it.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from firmware_host.rules import BLACK, WHITE, Color, GameResult, Position, Rules, Turn, blocked_for_good
from firmware_host.bot.arena import MAX_TURNS, series
from firmware_host.bot.features import Boards, GameShape, encode, input_size
from firmware_host.bot.network import Network
from firmware_host.bot.players import Bot, HeuristicPlayer, RandomPlayer, flip, outcome


@dataclass(frozen=True)
class Settings:
    hidden: int = 40          # hidden units
    alpha: float = 0.1        # learning rate
    lam: float = 0.7          # TD(lambda)'s trace decay
    heuristic_share: float = 0.0  # the share of games with the heuristic player on one side


@dataclass
class _Side:
    """A side's last board: the network's chances for it and the traces of their gradients."""

    chances: np.ndarray
    traces: tuple[np.ndarray, ...]


class Trainer:
    def __init__(self, rules: Rules, network: Network, settings: Settings = Settings()):
        self.rules, self.network, self.settings = rules, network, settings
        self.shape = GameShape.of(rules)
        self.bot = Bot(rules, network)
        self.heuristic = HeuristicPlayer(rules)

    @classmethod
    def fresh(cls, rules: Rules, rng: np.random.Generator, settings: Settings = Settings()) -> "Trainer":
        shape = GameShape.of(rules)
        return cls(rules, Network.fresh(input_size(shape), settings.hidden, rng), settings)

    def _learn(self, side: _Side, target: np.ndarray) -> None:
        error = self.settings.alpha * (target - side.chances)   # (5,)
        for parameter, trace in zip(self.network.parameters, side.traces):
            parameter += np.tensordot(error, trace, axes=1)

    def self_play(self, rng: random.Random, starter: Color = WHITE,
                  heuristic_side: Color | None = None) -> GameResult | None:
        """One game of the bot against itself (or against the heuristic player on
        `heuristic_side`), learning from both sides' boards after every play."""
        sides: dict[Color, _Side | None] = {WHITE: None, BLACK: None}
        position = Position.start(self.rules.variant.name, starter)
        lam = self.settings.lam
        for _ in range(MAX_TURNS):
            turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), self.rules)
            mover = turn.mover
            play = (self.heuristic if mover is heuristic_side else self.bot).choose(turn, rng)
            previous = sides[mover.opponent]
            if play.result is not None:
                if previous is not None:
                    self._learn(previous, flip(outcome(play.result, mover)))
                own = sides[mover]
                if own is not None:  # the winner's last board learns the end too
                    self._learn(own, outcome(play.result, mover))
                return play.result
            chances, gradients = self.network.gradients(encode(Boards.of([play.node]), self.shape)[0])
            if previous is not None:
                self._learn(previous, flip(chances))
            own = sides[mover]
            traces = gradients if own is None else tuple(
                lam * trace + gradient for trace, gradient in zip(own.traces, gradients))
            sides[mover] = _Side(chances, traces)
            position = play.position
            if not play.moves and blocked_for_good(position, self.rules):
                return None
        return None

    def evaluate(self, games: int, rng: random.Random) -> dict[str, dict]:
        """The bot's series against the random and the heuristic players."""
        return {name: series(self.rules, self.bot, opponent, games, rng).to_json()
                for name, opponent in (("random", RandomPlayer()),
                                       ("heuristic", HeuristicPlayer(self.rules)))}

    def train(self, games: int, rng: random.Random, done: int = 0,
              on_game: Callable[[int, GameResult | None], None] | None = None) -> int:
        """Self-play games `done + 1` .. `games`, starters alternating, the heuristic player on
        one side (each colour in turn) in `heuristic_share` of them; returns the games done."""
        share = self.settings.heuristic_share
        for number in range(done + 1, games + 1):
            # Game n has the heuristic player when the count of such games steps up at n.
            with_heuristic = int(number * share) - int((number - 1) * share)
            side = (BLACK if int(number * share) % 2 else WHITE) if with_heuristic else None
            result = self.self_play(rng, WHITE if number % 2 else BLACK, side)
            if on_game:
                on_game(number, result)
        return games


def settings_json(settings: Settings) -> dict:
    return asdict(settings)

