"""Tournament pairings: knock-out and Swiss, as a club director runs them.

Knock-out: the field is seeded (best first, by the ladder) into a bracket of the next power of two,
the top seeds drawing the byes, seeded so that 1 and 2 can meet only in the final (1-8, 4-5, 2-7,
3-6 for eight). Each round pairs the winners of the round before, in bracket order.

Swiss: every player plays every round (an odd field gives one bye a round, a win, to the lowest-placed
player who has had none and whose bye leaves the rest pairable), never the same opponent twice, for at
most half as many rounds as players (rounded up: more could strand a player whatever the pairing), against an opponent with the same score
where it can be: the players are taken in standings order (score, then seed) and each is paired with
the opponent nearest in the standings that it has not met and that leaves the rest pairable (the
Monrad way of Swiss pairing, searched with backtracking so a late round never strands a player).
Standings: score, then Buchholz (the sum of the opponents' scores), then seed.

A result can be corrected by the director while its round is the last one: the next round is paired
from the corrected results.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

BYE = None


def seeding_order(size: int) -> list[int]:
    """Seed numbers (1 = best) in bracket order for a bracket of `size`, a power of two."""
    order = [1]
    while len(order) < size:
        order = [seed for top in order for seed in (top, 2 * len(order) + 1 - top)]
    return order


@dataclass(frozen=True)
class Pairing:
    first: str
    second: str | None   # None: a bye; `first` goes through (knock-out) or scores a win (Swiss)


class TournamentError(ValueError):
    pass


@dataclass
class Round:
    pairings: list[Pairing]
    winners: dict[Pairing, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for pairing in self.pairings:
            if pairing.second is BYE:
                self.winners[pairing] = pairing.first

    @property
    def finished(self) -> bool:
        return len(self.winners) == len(self.pairings)

    def pairing_of(self, player: str) -> Pairing:
        for pairing in self.pairings:
            if player in (pairing.first, pairing.second):
                return pairing
        raise TournamentError(f"{player} plays no match in this round")

    def record(self, winner: str, loser: str) -> None:
        pairing = self.pairing_of(winner)
        if loser not in (pairing.first, pairing.second) or loser == winner:
            raise TournamentError(f"{winner} and {loser} are not paired in this round")
        self.winners[pairing] = winner


class _Tournament:
    def __init__(self, seeds: Sequence[str]):
        if len(seeds) < 2 or len(set(seeds)) != len(seeds):
            raise TournamentError("a tournament needs at least two players, each named once")
        self.seeds = list(seeds)
        self.rounds: list[Round] = []

    def record(self, winner: str, loser: str) -> None:
        """A result from a board: the match of the current round between the two."""
        if not self.rounds:
            raise TournamentError("no round is being played")
        self.rounds[-1].record(winner, loser)

    def correct(self, round_number: int, winner: str, loser: str) -> None:
        """The director's correction of a result of the last round (numbered from 1)."""
        if round_number != len(self.rounds):
            raise TournamentError(f"round {round_number} cannot be corrected: only the last round "
                                  f"({len(self.rounds)}), before the next is paired")
        self.rounds[-1].record(winner, loser)


class Knockout(_Tournament):
    def __init__(self, seeds: Sequence[str]):
        super().__init__(seeds)
        size = 1 << (len(self.seeds) - 1).bit_length()
        entrants = [self.seeds[seed - 1] if seed <= len(self.seeds) else BYE for seed in seeding_order(size)]
        self.rounds.append(Round([Pairing(entrants[i], entrants[i + 1]) for i in range(0, size, 2)]))

    @property
    def champion(self) -> str | None:
        last = self.rounds[-1]
        return last.winners[last.pairings[0]] if len(last.pairings) == 1 and last.finished else None

    def next_round(self) -> Round:
        last = self.rounds[-1]
        if not last.finished:
            raise TournamentError("the round is not finished")
        if self.champion is not None:
            raise TournamentError(f"the tournament is over: {self.champion} won it")
        through = [last.winners[pairing] for pairing in last.pairings]
        self.rounds.append(Round([Pairing(through[i], through[i + 1]) for i in range(0, len(through), 2)]))
        return self.rounds[-1]


class Swiss(_Tournament):
    def __init__(self, seeds: Sequence[str], rounds: int):
        super().__init__(seeds)
        # With a bye counted as a player, k rounds leave every player at least n - k possible
        # opponents among n (n even); while that is at least n / 2 a pairing without a rematch always
        # exists (Dirac's theorem: such a graph has a Hamiltonian cycle, so a perfect matching). So
        # n / 2 rounds can always be paired, whatever the results; more could strand a player.
        most = (len(self.seeds) + 1) // 2
        if not 1 <= rounds <= most:
            raise TournamentError(f"{rounds} rounds cannot always be paired without a rematch: 1 to {most} "
                                  f"for {len(self.seeds)} players")
        self.planned = rounds

    def score(self, player: str) -> int:
        return sum(1 for round_ in self.rounds for winner in round_.winners.values() if winner == player)

    def opponents(self, player: str) -> list[str]:
        met = []
        for round_ in self.rounds:
            pairing = round_.pairing_of(player)
            if pairing.second is not BYE:
                met.append(pairing.second if pairing.first == player else pairing.first)
        return met

    def standings(self) -> list[str]:
        def buchholz(player: str) -> int:
            return sum(self.score(opponent) for opponent in self.opponents(player))
        return sorted(self.seeds, key=lambda player: (-self.score(player), -buchholz(player), self.seeds.index(player)))

    def next_round(self) -> Round:
        if self.rounds and not self.rounds[-1].finished:
            raise TournamentError("the round is not finished")
        if len(self.rounds) == self.planned:
            raise TournamentError(f"all {self.planned} rounds are played")
        order = sorted(self.seeds, key=lambda player: (-self.score(player), self.seeds.index(player)))
        met = {player: set(self.opponents(player)) for player in order}
        if len(order) % 2 == 0:
            candidates: list[str | None] = [None]
        else:   # the bye to the lowest-placed player without one that leaves the rest pairable
            had_bye = {pairing.first for round_ in self.rounds for pairing in round_.pairings if pairing.second is BYE}
            candidates = [player for player in reversed(order) if player not in had_bye]
        for bye in candidates:
            paired = self._pair([player for player in order if player != bye], met)
            if paired is not None:
                byes = [] if bye is None else [Pairing(bye, BYE)]
                self.rounds.append(Round([*(Pairing(first, second) for first, second in paired), *byes]))
                return self.rounds[-1]
        raise TournamentError("no pairing without a rematch is left")

    def _pair(self, order: list[str], met: dict[str, set[str]]) -> list[tuple[str, str]] | None:
        if not order:
            return []
        first, rest = order[0], order[1:]
        for index, second in enumerate(rest):
            if second in met[first]:
                continue
            paired = self._pair(rest[:index] + rest[index + 1:], met)
            if paired is not None:
                return [(first, second), *paired]
        return None
