"""Players: the trained bot, and the two baselines it is measured against.

A player chooses one legal play of a `Turn` (`choose(turn, rng)`); randomness, where a player has
any, comes from the generator passed in. Every player judges the board after a play from the view
of the side that played it (`features`), and chooses through `Turn.pick_play`, so a Gul Bara
cascade is chosen stage by stage, each stage's ends judged as they stand.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Protocol, Sequence

import numpy as np

from firmware_host.rules import Color, GameResult, Play, Rules, Turn
from firmware_host.rules.plays import Frame
from firmware_host.bot import features
from firmware_host.bot.features import Boards, GameShape, board_terms, chances_of_nodes, input_size
from firmware_host.bot.network import OUTCOMES, Network


class Player(Protocol):
    def choose(self, turn: Turn, rng: random.Random) -> Play: ...


class RandomPlayer:
    """Any legal play, uniformly (stage by stage in a cascade)."""

    def choose(self, turn: Turn, rng: random.Random) -> Play:
        return turn.pick_play(rng.choice)


# -- outcomes and equity -------------------------------------------------------------------------

def outcome(result: GameResult, player: Color) -> np.ndarray:
    """A finished game as the five chances (`network.OUTCOMES`) of `player`: 0 or 1 each, a tie
    half a win."""
    if result.winner is None:
        return np.array([0.5, 0, 0, 0, 0], np.float32)
    won = result.winner == player
    double, triple = float(result.points >= 2), float(result.points >= 3)
    return np.array([1.0, double, triple, 0, 0] if won else [0.0, 0, 0, double, triple], np.float32)


# The three-point chances' columns, as one slice (a slice's assignment costs a third of a list's).
_TRIPLES = slice(OUTCOMES.index("win_triple"), None, OUTCOMES.index("lose_triple") - OUTCOMES.index("win_triple"))
assert OUTCOMES[_TRIPLES] == ("win_triple", "lose_triple")
_ONE, _TWO = np.array(1.0, np.float32), np.array(2.0, np.float32)
_TEN_THOUSAND = np.array(10_000.0)


def flip(chances: np.ndarray) -> np.ndarray:
    """The same chances from the other side's view."""
    win, win_double, win_triple, lose_double, lose_triple = np.moveaxis(chances, -1, 0)
    return np.stack([1.0 - win, lose_double, lose_triple, win_double, win_triple], axis=-1)


def equity(chances: np.ndarray) -> np.ndarray:
    """Expected points: one for a game won or lost, one more for two points, one more for three.
    `chances`: one row of five, or a column of them. A column of float32 rows goes to C where built
    (`_encode.equity`: the same operations, bit for bit; numpy's fixed cost per operation is most
    of the time on the few rows of most turns)."""
    if features._encode is not None and chances.ndim == 2 and chances.dtype == np.float32:
        return np.frombuffer(features._encode.equity(np.ascontiguousarray(chances)), np.float32)
    win, win_double, win_triple, lose_double, lose_triple = chances.T
    points = win * _TWO   # the sum written out, left to right, in one array (as float32 constants:
    points -= _ONE        # numpy converts a Python float on every operation, most of the time of
    points += win_double  # one on the few rows of most turns)
    points += win_triple
    points -= lose_double
    points -= lose_triple
    return points


def after_nodes(turn: Turn, items: Sequence[Any]) -> list:
    """The mover's-frame state after each play or stage end (`Play.node`, or read off the play's
    position for a play made by hand)."""
    return [node if (node := item.node) is not None else
            Frame(item.position, turn.mover, turn.rules).node for item in items]


# -- the bot -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ranked:
    """One play with the chances of the side that plays it, and its expected points."""

    play: Play
    chances: np.ndarray
    equity: float

    def chances_json(self) -> dict[str, float]:
        return dict(zip(OUTCOMES, rounded(self.chances).tolist()))


def ten_thousandths(values: np.ndarray) -> np.ndarray:
    """Chances or expected points (float32) in whole ten-thousandths, as float64, halves to even:
    what Python's round(float(v), 4) rounds to, in one operation. A float32's 24 significant bits
    times 10**4 fit float64's 53 exactly, so the halfway cases are the exact decimal's."""
    scaled = values.astype(np.float64)
    np.multiply(scaled, _TEN_THOUSAND, out=scaled)   # in place: a few rows a call in `hint`
    return np.rint(scaled, out=scaled)


def ten_thousandths_rows(chances: np.ndarray, points: np.ndarray) -> list[list[int]]:
    """Each row's five chances and its expected points (float32) in `ten_thousandths`, as ints: in C
    where built (the same, bit for bit), numpy otherwise."""
    if features._encode is not None:
        return features._encode.ten_thousandths_rows(np.ascontiguousarray(chances, np.float32),
                                                     np.ascontiguousarray(points, np.float32))
    return ten_thousandths(np.concatenate((chances, points[:, None]), axis=1)).astype(np.intp).tolist()


def rounded(values: np.ndarray) -> np.ndarray:
    """Chances or expected points (float32) to the four decimals `hint` writes, as float64: the same
    as Python's round(float(v), 4) for each (the division is correctly rounded, as round's result)."""
    return ten_thousandths(values) / 10_000


class Bot:
    """1-ply: every distinct play (or stage end) judged in one batch by the variant's network; the
    play with the highest expected points under the game's scoring wins."""

    def __init__(self, rules: Rules, network: Network):
        self.rules = rules
        self.shape = _shape_read_by(network, rules)
        self.network = network

    @classmethod
    def trained(cls, rules: Rules) -> "Bot":
        """The bot with the weights shipped for the variant."""
        return cls(rules, load_network(rules.variant.name))

    def chances(self, turn: Turn, items: Sequence[Any]) -> np.ndarray:
        """(N, 5) chances of the mover after each play or stage end; exact where it ends the game."""
        results = [item.result for item in items]
        ended = len(results) - results.count(None)
        if not ended:   # most rolls: no play ends the game
            chances = chances_of_nodes(after_nodes(turn, items), self.shape, self.network)
        else:
            chances = np.empty((len(items), len(OUTCOMES)), np.float32)
            open_items = [i for i, result in enumerate(results) if result is None]
            if open_items:
                nodes = after_nodes(turn, [items[i] for i in open_items])
                chances[open_items] = chances_of_nodes(nodes, self.shape, self.network)
        if ended < len(results) and self.shape.most_points < 3:
            chances[:, _TRIPLES] = 0.0   # what the rules cannot score is not guessed at
        for i, result in enumerate(results if ended else ()):
            if result is not None:
                chances[i] = outcome(result, turn.mover)
        return chances

    def _best(self, turn: Turn):
        def pick(items: Sequence[Any]) -> Any:
            return items[int(np.argmax(equity(self.chances(turn, items))))]
        return pick

    def choose(self, turn: Turn, rng: random.Random | None = None) -> Play:
        return turn.pick_play(self._best(turn))

    def ranked(self, turn: Turn, limit: int | None = None) -> list[Ranked]:
        """Every distinct play, best first. A cascade lists only the play chosen stage by stage
        (its distinct whole plays can number hundreds of thousands)."""
        plays, chances, points = self.ranking(turn, limit)
        return [Ranked(play, row, value) for play, row, value in zip(plays, chances, points.tolist())]

    def ranking(self, turn: Turn, limit: int | None = None) -> tuple[list[Play], np.ndarray, np.ndarray]:
        """`ranked` as arrays: the plays best first (ties in the listing's order), their (N, 5)
        chances and (N,) expected points, for callers that write thousands."""
        plays, chances, points = self.evaluation(turn, limit)
        if len(plays) == 1:   # many turns: nothing to order
            return plays, chances, points
        order = best_first(points)
        return [plays[i] for i in order], chances.take(order, axis=0), points.take(order)

    def evaluation(self, turn: Turn, limit: int | None = None) -> tuple[list[Play], np.ndarray, np.ndarray]:
        """`ranking` in the listing's order (`best_first` orders it), for a caller that orders
        what it writes rather than the arrays."""
        plays = turn.plays(limit=limit) if len(turn.stages) == 1 else [self.choose(turn)]
        chances = self.chances(turn, plays)
        return plays, chances, equity(chances)


def best_first(points: np.ndarray) -> list[int]:
    """The plays' order by their expected points, best first, ties in the listing's order. (Python's
    sort, stable with reverse too, on the few plays of most turns costs a third of numpy's argsort
    and its indexing.)"""
    return sorted(range(len(points)), key=points.tolist().__getitem__, reverse=True)


class TrainedChooser:
    """The trained bot as a chooser of plays (`chooser(turn)`), each variant's network loaded on its
    first turn and kept: for the controller, which plays a seat with it."""

    def __init__(self) -> None:
        self._networks: dict[str, Network] = {}

    def __call__(self, turn: Turn) -> Play:
        variant = turn.rules.variant.name
        if variant not in self._networks:
            self._networks[variant] = load_network(variant)
        return Bot(turn.rules, self._networks[variant]).choose(turn)


def _shape_read_by(network: Network, rules: Rules) -> GameShape:
    """The game's shape as `network` reads boards: the shipped weights were trained under each
    variant's own start rule (`tavli-board train VARIANT`), and a house rule that sets another
    would add or drop the first-checker rule's inputs; the network then reads them as it learned
    them (the variant's own rule), while the game's rules still decide every legal play."""
    shape = GameShape.of(rules)
    if input_size(shape) != network.inputs:
        own = GameShape.of(Rules.for_variant(rules.variant.name))
        shape = replace(shape, release_from=own.release_from)
    if input_size(shape) != network.inputs:
        raise ValueError(f"the network reads {network.inputs} inputs; a {rules.variant.name} board "
                         f"gives {input_size(shape)}")
    return shape


def load_network(variant: str) -> Network:
    data = resources.files(__package__).joinpath("weights", f"{variant}.npz").read_bytes()
    return Network.from_bytes(data)


# -- the heuristic baseline ----------------------------------------------------------------------

# Hand-set weights on `features.board_terms`, in points per unit: a pip of race, a blot in a
# shot, a point made, a block, a checker hit or pinned, the mothers. Not tuned by play: a fair
# club player's rules of thumb.
HEURISTIC_WEIGHTS = {
    "pip_lead": 1.0,
    "my_points": 1.5, "my_home_points": 2.5, "my_block": 3.0, "opp_block": -2.0,
    "my_blots_hit_direct": -5.0, "my_blots_hit_indirect": -1.5, "opp_blots_direct": 0.5,
    "my_bar": -8.0, "opp_bar": 8.0,
    "my_pinned": -10.0, "opp_pinned": 10.0,
    "my_mother_pinned": -100.0, "opp_mother_pinned": 100.0, "my_mother_alone": -12.0,
    "my_on_start": -0.5,
}


class HeuristicPlayer:
    """The play whose board scores best on `HEURISTIC_WEIGHTS`; a game-ending play always."""

    def __init__(self, rules: Rules):
        self.shape = GameShape.of(rules)

    def scores(self, turn: Turn, items: Sequence[Any]) -> np.ndarray:
        terms = board_terms(Boards.of(after_nodes(turn, items)), self.shape)
        score = sum(weight * terms[name] for name, weight in HEURISTIC_WEIGHTS.items() if name in terms)
        ends = np.array([item.result is not None and item.result.winner == turn.mover for item in items])
        return np.where(ends, np.inf, score)

    def choose(self, turn: Turn, rng: random.Random) -> Play:
        def pick(items: Sequence[Any]) -> Any:
            return items[int(np.argmax(self.scores(turn, items)))]
        return turn.pick_play(pick)
