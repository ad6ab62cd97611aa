"""A club ladder's ratings: the FIBS formula, as backgammon servers use it, kept per game family.

FIBS (the First Internet Backgammon Server, `help formula`): two players rated r1 and r2 play an
n-point match. With D = |r1 - r2|, the underdog wins with P_upset = 1 / (10^(D * sqrt(n) / 2000) + 1).
P = 1 - P_upset when the underdog wins and P = P_upset when the favourite wins. The winner gains and
the loser loses 4 * K * sqrt(n) * P, where each player's own K = max(1, 5 - experience / 100) and
experience is the sum of the lengths of the matches the player has finished. Everyone starts at
1500 with no experience.

A match of Tavli mixes games that play nothing alike, so the ladder keeps one rating per family of
games (how a lone checker is taken decides the game's whole strategy):

- hitting: portes, tavla (a lone checker is hit to the bar);
- pinning: plakoto, tapa, neverfinishing (a lone checker is pinned, or in neverfinishing hit or
  trapped);
- running: fevga, moultezim, gulbara, narde (no checker is ever taken: a race of blocks).

Each game is rated in its family as a one-point match (n = 1), whatever it scored: the match's
length belongs to the whole match, not to one of its games, and FIBS rates who won, not by how much.
The ladder is a fold of the results in the order they were played, so it can always be recomputed
from the records and must equal what was kept.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Iterable, Mapping

from firmware_host.rules.variants import VARIANTS, Capture

START_RATING = 1500.0


class GameFamily(Enum):
    HITTING = "hitting"
    PINNING = "pinning"
    RUNNING = "running"


_FAMILY_OF_CAPTURE = {Capture.HIT: GameFamily.HITTING, Capture.PIN: GameFamily.PINNING,
                      Capture.CHOICE: GameFamily.PINNING, Capture.NONE: GameFamily.RUNNING}


def family_of(variant: str) -> GameFamily:
    """The family a game is rated in."""
    try:
        return _FAMILY_OF_CAPTURE[VARIANTS[variant].capture]
    except KeyError:
        raise ValueError(f"{variant!r} is not a game; games: {', '.join(VARIANTS)}") from None


@dataclass(frozen=True)
class Rating:
    rating: float = START_RATING
    experience: int = 0

    @property
    def k(self) -> float:
        """How fast this player's rating moves: 5 for a newcomer, 1 from 400 points of experience."""
        return max(1.0, 5.0 - self.experience / 100)


def underdog_wins(difference: float, length: int) -> float:
    """FIBS's P_upset: the chance that the lower-rated of two players `difference` apart wins an
    n-point match."""
    return 1.0 / (10 ** (abs(difference) * math.sqrt(length) / 2000) + 1.0)


def rated(winner: Rating, loser: Rating, length: int = 1) -> tuple[Rating, Rating]:
    """The winner's and the loser's ratings after an n-point match between them."""
    if length < 1:
        raise ValueError(f"a match of {length} points cannot be rated: at least 1")
    upset = underdog_wins(winner.rating - loser.rating, length)
    share = upset if winner.rating > loser.rating else 1.0 - upset   # equal ratings: 1/2 either way
    step = 4 * math.sqrt(length) * share
    return (replace(winner, rating=winner.rating + winner.k * step, experience=winner.experience + length),
            replace(loser, rating=loser.rating - loser.k * step, experience=loser.experience + length))


@dataclass(frozen=True)
class GameResult:
    """One finished game as the ladder needs it: who played, in which game, who won."""
    winner: str
    loser: str
    variant: str


@dataclass
class Ladder:
    """Every player's rating in every family, folded from game results in order."""
    ratings: dict[GameFamily, dict[str, Rating]] = field(default_factory=lambda: {family: {} for family in GameFamily})

    def rating(self, player: str, family: GameFamily) -> Rating:
        return self.ratings[family].get(player, Rating())

    def record(self, result: GameResult) -> None:
        if result.winner == result.loser:
            raise ValueError(f"{result.winner} cannot win a game against themselves")
        family = family_of(result.variant)
        table = self.ratings[family]
        table[result.winner], table[result.loser] = rated(self.rating(result.winner, family),
                                                          self.rating(result.loser, family))

    @classmethod
    def of(cls, results: Iterable[GameResult]) -> Ladder:
        ladder = cls()
        for result in results:
            ladder.record(result)
        return ladder

    def standings(self, family: GameFamily) -> list[tuple[str, Rating]]:
        """The family's players, best first (ties by name, so the order is stable)."""
        return sorted(self.ratings[family].items(), key=lambda item: (-item[1].rating, item[0]))

    def to_json(self) -> Mapping[str, list[dict]]:
        return {family.value: [{"player": player, "rating": round(rating.rating, 2), "experience": rating.experience}
                               for player, rating in self.standings(family)] for family in GameFamily}
