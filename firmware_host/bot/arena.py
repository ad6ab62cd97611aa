"""Games between players, and the tally of a series: win rate and points per game with 95%
confidence intervals. Pure: dice and choices come from the generator passed in."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Sequence

from firmware_host.rules import BLACK, WHITE, Color, GameResult, Play, Position, Rules, Turn, blocked_for_good
from firmware_host.bot.players import Player

MAX_TURNS = 2_000  # a game of two players that never bear off (a bot that learnt to stall) stops


def play_game(rules: Rules, players: dict[Color, Player], starter: Color, rng: random.Random,
              on_play: Callable[[Turn, Play], None] | None = None) -> GameResult | None:
    """One game from the start; None when it can never end (no side can ever move again and no
    draw rule applies) or runs past MAX_TURNS. `on_play` sees every turn and its play but the last."""
    position = Position.start(rules.variant.name, starter)
    for _ in range(MAX_TURNS):
        turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
        play = players[position.turn].choose(turn, rng)
        if play.result is not None:
            return play.result
        if on_play:
            on_play(turn, play)
        position = play.position
        if not play.moves and blocked_for_good(position, rules):
            return None
    return None


def mean_and_half_width(values: Sequence[float]) -> tuple[float, float]:
    """The mean of two values or more and the half-width of its normal 95% interval."""
    n = len(values)
    mean = sum(values) / n
    spread = math.sqrt(sum((value - mean) ** 2 for value in values) / (n - 1))
    return mean, 1.96 * spread / math.sqrt(n)


def seats(index: int) -> tuple[Color, Color]:
    """Game `index` of a series: the player's colour, alternating every game, and the starter,
    every two, so that each of the four seat-and-start pairings is played equally often."""
    return WHITE if index % 2 == 0 else BLACK, WHITE if index // 2 % 2 == 0 else BLACK


@dataclass
class Tally:
    """A series from one player's view: games, wins, and the points of each game (+ won, - lost)."""

    games: int = 0
    wins: int = 0
    points: list[int] = field(default_factory=list)

    def add(self, result: GameResult | None, player: Color) -> None:
        self.games += 1
        if result is None or result.winner is None:
            self.points.append(0)
            return
        won = result.winner == player
        self.wins += won
        self.points.append(result.points if won else -result.points)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def win_rate_interval(self) -> tuple[float, float]:
        """Wilson's 95% interval for the share of games won."""
        n, z = self.games, 1.96
        if not n:
            return 0.0, 1.0
        p = self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    @property
    def points_per_game(self) -> float:
        return sum(self.points) / self.games if self.games else 0.0

    def points_interval(self) -> tuple[float, float]:
        """The normal 95% interval of the mean points per game."""
        if self.games < 2:
            return -3.0, 3.0
        mean, half = mean_and_half_width(self.points)
        return mean - half, mean + half

    def to_json(self) -> dict:
        low, high = self.win_rate_interval()
        p_low, p_high = self.points_interval()
        return {"games": self.games, "wins": self.wins, "win_rate": round(self.win_rate, 4),
                "win_rate_95": [round(low, 4), round(high, 4)],
                "points_per_game": round(self.points_per_game, 4),
                "points_per_game_95": [round(p_low, 4), round(p_high, 4)]}


def series(rules: Rules, player: Player, opponent: Player, games: int, rng: random.Random) -> Tally:
    """`games` games, seated and started in turn (`seats`)."""
    tally = Tally()
    for index in range(games):
        color, starter = seats(index)
        result = play_game(rules, {color: player, color.opponent: opponent}, starter, rng)
        tally.add(result, color)
    return tally
