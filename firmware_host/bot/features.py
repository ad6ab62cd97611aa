"""What the bot sees of a position: the board after a play, in the frame of the side that played it.

The rules engine's search states (`rules.plays.Node`) are already in the mover's frame: frame 0 is
his bar, 1..24 his route, 25 borne off, and the opponent's checkers mapped onto the same route. A
batch of such states becomes numpy arrays, and from them two things are read:

* `board_terms`: a few named terms in plain units (pips, blots within a shot, points made, the
  longest block, checkers on the bar or pinned, the mothers), the same for the heuristic player's
  hand-set weights and the network's inputs;
* `encode`: the network's inputs, TD-Gammon's raw board (four units per point and side) plus the
  pins where the game has them and the terms above, scaled to about 0..1.

`encode_nodes` gives `encode`'s inputs straight from the search states, in C where it was built
(_encode.c, setup.py): numpy's fixed cost per batch dwarfs the network on the few plays of most
rolls. `chances_of_nodes` runs the network on them too, in C for a few plays, where numpy's fixed
cost per operation is most of `hint`'s own time. The numpy code here and in `network` stays the
specification (TAVLI_PURE_PYTHON=1 runs it).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

from firmware_host.bot.network import Network, _encode   # the compiled part, where built (network.py)
from firmware_host.rules import Rules
from firmware_host.rules.variants import Capture, Family

COMPILED = _encode is not None

BAR, OFF = 0, 25
ROUTE = np.arange(1, 25)


@dataclass(frozen=True)
class GameShape:
    """The facts of a game the features depend on."""

    parallel: bool       # both sides run the same way round: one checker closes a point
    hitting: bool        # a lone checker can be hit to the bar
    pinning: bool        # a lone checker can be pinned
    mother: bool         # pinning the last checker on the start ends the game
    most_points: int     # the most a game can score: 3 with koks or a mother worth 3, else 2
    # The first-checker rule (parallel games): the frame position from which a runner frees its
    # side's start (13: in the opponent's starting quarter, 14: past his start); 0 without it.
    release_from: int = 0

    @classmethod
    def of(cls, rules: Rules) -> "GameShape":
        variant, options = rules.variant, rules.options
        mother = bool(options.get("mother_rule"))
        triple = bool(options.get("koks")) or mother and options.get("mother_loss_points") == 3
        release_from = 0
        if options.get("start_rule") == "first_checker":
            release_from = 13 if options["first_checker_release_at"] == "start_quarter" else 14
        return cls(parallel=variant.family is Family.PARALLEL,
                   hitting=variant.capture in (Capture.HIT, Capture.CHOICE),
                   pinning=variant.capture in (Capture.PIN, Capture.CHOICE),
                   mother=mother, most_points=3 if triple else 2, release_from=release_from)

    @property
    def opponent_pips(self) -> np.ndarray:
        """Pips the opponent's checker on each frame position (0..25) still has to travel."""
        if self.parallel:
            # The opponent's route index r sits on frame (r + 12) % 24 + 1; his bar never fills.
            frame = np.arange(26)
            pips = 24 - (frame - 13) % 24
            pips[BAR], pips[OFF] = 25, 0
            return pips
        pips = np.arange(26)  # he runs from frame 24 down to frame 1, then off (frame 0 side)
        pips[BAR], pips[OFF] = 25, 0
        return pips

    @property
    def opponent_route(self) -> np.ndarray:
        """Frame positions 1..24 (as indices 0..23) in the order the opponent passes them: my
        points block him along his route, which in a parallel game runs 13..24 and on round to
        1..12, so my home and my start make one block for him (and 12, 13 are not adjacent)."""
        if self.parallel:
            return np.r_[12:24, 0:12]
        return np.arange(23, -1, -1)  # he runs from frame 24 down to frame 1

    @property
    def opponent_home(self) -> slice:
        """The opponent's home board, as frame positions."""
        return slice(7, 13) if self.parallel else slice(1, 7)


MY_PIPS = np.array([25] + [25 - p for p in range(1, 25)] + [0])


@dataclass
class Boards:
    """A batch of after-play states: counts (N, 26) for the side that played and its opponent,
    and the pins as (N, 24) booleans over frame positions 1..24."""

    me: np.ndarray
    opp: np.ndarray
    my_pins: np.ndarray
    opp_pins: np.ndarray

    @classmethod
    def of(cls, nodes: Iterable) -> "Boards":
        nodes = list(nodes)
        me = np.array([node[0] for node in nodes], dtype=np.int16)
        opp = np.array([node[1] for node in nodes], dtype=np.int16)
        pins = np.array([(node[2], node[3]) for node in nodes], dtype=np.int64)
        bits = (pins[:, :, None] >> ROUTE) & 1
        return cls(me, opp, bits[:, 0].astype(bool), bits[:, 1].astype(bool))

    def __len__(self) -> int:
        return len(self.me)


def _runs(held: np.ndarray) -> np.ndarray:
    """The length of the run of consecutive True ending at each column of axis 1."""
    columns = np.arange(held.shape[1])
    last_gap = np.maximum.accumulate(np.where(held, -1, columns), axis=1)
    return columns - last_gap


def _longest_run(held: np.ndarray) -> np.ndarray:
    """The longest run of consecutive True along axis 1."""
    return _runs(held).max(axis=1)


def _behind_longest_run(held: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The checkers (`counts`, in the same column order as `held`, the order their owner passes
    the points) that still have the longest run of `held` points ahead of them."""
    runs = _runs(held)
    end = runs.argmax(axis=1)
    longest = runs[np.arange(len(held)), end]
    start = np.where(longest > 0, end - longest + 1, 0)   # no point held: nothing is behind
    behind = np.arange(held.shape[1])[None, :] < start[:, None]
    return (counts * behind).sum(axis=1)


def board_terms(boards: Boards, shape: GameShape) -> dict[str, np.ndarray]:
    """Named terms in plain units, each an (N,) array, from the view of the side that played."""
    me, opp = boards.me, boards.opp
    my_pips = me @ MY_PIPS
    opp_pips = opp @ shape.opponent_pips
    made = 1 if shape.parallel else 2   # checkers that close a point
    my_points = me[:, 1:25] >= made
    opp_points = opp[:, 1:25] >= made
    terms = {
        "pip_lead": (opp_pips - my_pips).astype(np.float32),
        "my_pips": my_pips.astype(np.float32),
        "opp_pips": opp_pips.astype(np.float32),
        "my_off": me[:, OFF].astype(np.float32),
        "opp_off": opp[:, OFF].astype(np.float32),
        "my_outside_home": (me[:, :19].sum(axis=1)).astype(np.float32),
        "opp_outside_home": (15 - opp[:, OFF] - opp[:, shape.opponent_home].sum(axis=1)).astype(np.float32),
        "my_points": my_points.sum(axis=1).astype(np.float32),
        "opp_points": opp_points.sum(axis=1).astype(np.float32),
        "my_home_points": my_points[:, 18:24].sum(axis=1).astype(np.float32),
        "my_block": _longest_run(my_points[:, shape.opponent_route]).astype(np.float32),
        "opp_block": _longest_run(opp_points).astype(np.float32),
    }
    if shape.hitting or shape.pinning:
        # Contrary games: the opponent runs toward lower frames (his bar is frame 25 here).
        my_blots = (me[:, 1:25] == 1) & (opp[:, 1:25] == 0) & ~boards.my_pins
        opp_blots = (opp[:, 1:25] == 1) & (me[:, 1:25] == 0) & ~boards.opp_pins
        opp_shooters = np.concatenate([opp[:, 1:25] > 0, (opp[:, BAR] > 0)[:, None]], axis=1)
        my_shooters = np.concatenate([(me[:, BAR] > 0)[:, None], me[:, 1:25] > 0], axis=1)
        exposed_direct, exposed_indirect = _exposure(my_blots, opp_shooters, from_above=True)
        target_direct, _ = _exposure(opp_blots, my_shooters, from_above=False)
        terms.update(my_blots_hit_direct=exposed_direct, my_blots_hit_indirect=exposed_indirect,
                     opp_blots_direct=target_direct,
                     my_blots=my_blots.sum(axis=1).astype(np.float32),
                     contact=(_lowest(me) <= _highest(opp)).astype(np.float32))
    if shape.hitting:
        terms.update(my_bar=me[:, BAR].astype(np.float32), opp_bar=opp[:, BAR].astype(np.float32))
    if shape.pinning:
        terms.update(my_pinned=boards.my_pins.sum(axis=1).astype(np.float32),
                     opp_pinned=boards.opp_pins.sum(axis=1).astype(np.float32),
                     my_mother_pinned=boards.my_pins[:, 0].astype(np.float32),
                     opp_mother_pinned=boards.opp_pins[:, 23].astype(np.float32),
                     # A lone checker left on the start while the opponent can still come round.
                     my_mother_alone=((me[:, 1] == 1) & ~boards.my_pins[:, 0]
                                      & (opp[:, 2:25].sum(axis=1) > 0)).astype(np.float32))
    if shape.parallel:
        # No hitting: a block is the one weapon, and what it is worth is the checkers behind it.
        route = shape.opponent_route
        terms.update(my_on_start=me[:, 1].astype(np.float32),
                     opp_on_start=opp[:, 13].astype(np.float32),
                     opp_behind_my_block=_behind_longest_run(my_points[:, route],
                                                             opp[:, 1:25][:, route]).astype(np.float32),
                     my_behind_opp_block=_behind_longest_run(opp_points, me[:, 1:25]).astype(np.float32))
    if shape.release_from:
        # Whether each side's start is free (`rules.plays`: a runner past the other's start, or
        # one borne off); the opponent's runner frees his once past frame 1, my start.
        terms.update(my_start_free=me[:, shape.release_from:].any(axis=1).astype(np.float32),
                     opp_start_free=(opp[:, shape.release_from - 12:13].any(axis=1)
                                     | (opp[:, OFF] > 0)).astype(np.float32))
    return terms


def _shot_matrix(distances: range, from_above: bool) -> np.ndarray:
    """(24 blots, 25 shooters) ones where a shooter is one of `distances` pips from a blot.
    Blots are frames 1..24; shooters frames 1..25 when they move down, 0..24 when they move up."""
    matrix = np.zeros((24, 25), np.float32)
    for blot in range(1, 25):
        for distance in distances:
            shooter = blot + distance if from_above else blot - distance
            column = shooter - 1 if from_above else shooter
            if 0 <= column < 25:
                matrix[blot - 1, column] = 1.0
    return matrix


_SHOTS = {(from_above, near): _shot_matrix(range(1, 7) if near else range(7, 13), from_above)
          for from_above in (False, True) for near in (False, True)}


def _exposure(blots: np.ndarray, shooters: np.ndarray, from_above: bool) -> tuple[np.ndarray, np.ndarray]:
    """Blot-shooter pairs 1-6 and 7-12 pips apart. `blots` are frames 1..24; `shooters` are
    frames 1..25 (from_above: they move down) or 0..24 (they move up)."""
    blots, shooters = blots.astype(np.float32), shooters.astype(np.float32)
    return tuple(((blots @ _SHOTS[from_above, near]) * shooters).sum(axis=1) for near in (True, False))


def _lowest(counts: np.ndarray) -> np.ndarray:
    """The lowest occupied frame position 0..24 (25 when none)."""
    occupied = counts[:, :25] > 0
    return np.where(occupied.any(axis=1), occupied.argmax(axis=1), 25)


def _highest(counts: np.ndarray) -> np.ndarray:
    """The highest frame position the opponent occupies, his bar counting as 25 (0 when none)."""
    occupied = np.concatenate([counts[:, 1:25] > 0, (counts[:, BAR] > 0)[:, None]], axis=1)
    return np.where(occupied.any(axis=1), 25 - occupied[:, ::-1].argmax(axis=1), 0)


# How the terms are scaled for the network: about 0..1 in play.
_TERM_SCALE = {"pip_lead": 40.0, "my_pips": 160.0, "opp_pips": 160.0, "my_off": 15.0, "opp_off": 15.0,
               "my_outside_home": 15.0, "opp_outside_home": 15.0, "my_points": 12.0,
               "opp_points": 12.0, "my_home_points": 6.0, "my_block": 6.0, "opp_block": 6.0,
               "my_blots_hit_direct": 6.0, "my_blots_hit_indirect": 6.0, "opp_blots_direct": 6.0,
               "my_blots": 5.0, "contact": 1.0, "my_bar": 3.0, "opp_bar": 3.0, "my_pinned": 3.0,
               "opp_pinned": 3.0, "my_mother_pinned": 1.0, "opp_mother_pinned": 1.0,
               "my_mother_alone": 1.0, "my_on_start": 15.0, "opp_on_start": 15.0,
               "opp_behind_my_block": 15.0, "my_behind_opp_block": 15.0, "my_start_free": 1.0,
               "opp_start_free": 1.0}


def _unary(counts: np.ndarray) -> np.ndarray:
    """TD-Gammon's four units per point: at least 1, 2, 3 checkers, and half the rest."""
    return np.stack([counts >= 1, counts >= 2, counts >= 3, np.maximum(counts - 3, 0) / 2.0],
                    axis=2).reshape(len(counts), -1)


def encode(boards: Boards, shape: GameShape) -> np.ndarray:
    """The network's inputs, (N, input_size(shape)) float32."""
    parts = [_unary(boards.me[:, 1:25]), _unary(boards.opp[:, 1:25])]
    if shape.pinning:
        parts += [boards.my_pins, boards.opp_pins]
    terms = board_terms(boards, shape)
    parts.append(np.stack([terms[name] / _TERM_SCALE[name] for name in terms], axis=1))
    return np.concatenate(parts, axis=1, dtype=np.float32)


def encode_nodes(nodes: Sequence, shape: GameShape) -> np.ndarray:
    """`encode(Boards.of(nodes), shape)`, the same bit for bit; compiled where built."""
    if _encode is None:
        return encode(Boards.of(nodes), shape)
    data = _encode.encode(nodes, shape.parallel, shape.hitting, shape.pinning, shape.release_from,
                          _term_scales(shape))
    return np.frombuffer(data, np.float32).reshape(len(nodes), input_size(shape))


# Where the compiled network is used: up to this many nodes times hidden units (3 plays of an
# 80-unit network, 6 of a 40-unit one), where it is the faster: it evaluates node by node, about
# 1.5 us a play at 80 units on the development machine, where numpy pays some 5 us for a batch of
# one and 10 for three, and catches up at four. The two differ by float32 rounding, which turns a
# printed fourth decimal where a chance lies within about 1e-7 of a rounding boundary: 8 of 3,349
# such turns in `hint` (bench/records/rules-commands-2026-11-28c.txt); 0 sets numpy alone.
COMPILED_NETWORK_MOST = 240


def chances_of_nodes(nodes: Sequence, shape: GameShape, network: Network) -> np.ndarray:
    """`network.forward(encode_nodes(nodes, shape))`, (N, 5) float32: in C for a few nodes where
    built, equal to numpy's to float32 rounding (numpy's own sums differ as much from one batch size
    to another); numpy otherwise."""
    if _encode is None or len(nodes) * len(network.hidden_bias) > COMPILED_NETWORK_MOST:
        return network.forward(encode_nodes(nodes, shape))
    data = _encode.chances(nodes, shape.parallel, shape.hitting, shape.pinning, shape.release_from,
                           _term_scales(shape), network.parameters)
    return np.frombuffer(data, np.float32).reshape(len(nodes), len(network.output_bias))


@lru_cache(maxsize=None)
def _term_scales(shape: GameShape) -> tuple[float, ...]:
    """The scale of each of `board_terms`' terms, in its order."""
    return tuple(_TERM_SCALE[name] for name in board_terms(_empty_boards(), shape))


def _empty_boards() -> Boards:
    return Boards(np.zeros((1, 26), np.int16), np.zeros((1, 26), np.int16),
                  np.zeros((1, 24), bool), np.zeros((1, 24), bool))


@lru_cache(maxsize=None)
def input_size(shape: GameShape) -> int:
    return encode(_empty_boards(), shape).shape[1]
