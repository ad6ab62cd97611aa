"""Cheap bounds that steer the search through a cascade's stages without building their trees.

A gulbara cascade plays up to six stages of four dice, and the stage ends of one stage can number
thousands, each the root of a tree of the next stage. To find where a board lies, or the legal
board nearest to it, the referee builds only the trees these bounds cannot rule out. Nothing is
hit in a game with cascades (parallel games), so the mover's checkers only move forward and the
opponent's stand still; both bounds rely on that.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import accumulate

from firmware_host.rules.plays import OFF


def checkers_to_move(start: tuple[int, ...], board: tuple[int, ...]) -> int:
    """The fewest of `board`'s checkers that must move for it to show a board reached from
    `start` by forward moves: each checker of `start` can cover one of `board` at or ahead of it
    (a greedy matching over the route is maximal for such nested choices)."""
    available = covered = 0
    for have, want in zip(start, board):
        available += have
        matched = min(available, want)
        covered += matched
        available -= matched
    return sum(board) - covered


def may_reach(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...]) -> bool:
    """Whether forward moves of the mover's checkers with the first k of `dice` (in order, for
    some k) can turn `start` into `board`, ignoring closed points and the order of moves: a
    necessary condition for `board` to lie on a legal way from `start`."""
    if checkers_to_move(start, board):
        return False
    gained = sum(i * (want - have) for i, (have, want) in enumerate(zip(start, board)))
    borne_off = board[OFF] - start[OFF]
    for k, pips in enumerate(accumulate(dice, initial=0)):
        # A die larger than needed to bear off wastes at most 5 pips.
        if gained <= pips <= gained + 5 * borne_off and forward_fit(start, board, dice[:k]):
            return True
    return False


def forward_fit(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...]) -> bool:
    """Whether `start` may become `board` by moving checkers forward, each of `dice` used once by
    one checker (a checker may use several), in any order, a move past the end bearing off.

    Scans the route from the back: at each location the checkers that must leave it (those there
    and arriving, less those that stay) take some of the dice left; memoised on (location, dice
    left, arrivals ahead). A search longer than FIT_STATES answers True: this is a filter that
    must never rule out a board that can be reached, and the stage trees decide."""
    values = tuple(sorted(set(dice)))
    memo: dict[tuple, bool] = {}
    # Pips still to gain from location p on (before the arrivals), and what bearing off with a
    # larger die may waste on top.
    to_gain = list(accumulate((i * (board[i] - start[i]) for i in range(OFF, -1, -1))))[::-1]
    waste = 5 * (board[OFF] - start[OFF])

    def go(p: int, left: tuple[int, ...], arriving: tuple[int, ...]) -> bool:
        if p == OFF:
            return not any(left) and start[OFF] + arriving[0] == board[OFF]
        key = (p, left, arriving)
        known = memo.get(key)
        if known is not None:
            return known
        if len(memo) >= FIT_STATES:
            raise _Undecided
        memo[key] = fits = _possible(p, left, arriving) and any(
            go(p + 1, tuple(l - u for l, u in zip(left, used)), _arrivals(p, arriving, used))
            for used in _splits(start[p] + arriving[0] - board[p], left))
        return fits

    def _possible(p: int, left: tuple[int, ...], arriving: tuple[int, ...]) -> bool:
        """The pips left match the pips to gain, and no stretch ahead must hold more checkers
        than stand or arrive in it (nothing comes from behind any more)."""
        spare = sum(v * n for v, n in zip(values, left)) \
            - to_gain[p] + sum((p + i) * n for i, n in enumerate(arriving))
        if not 0 <= spare <= waste:
            return False
        short = 0
        for i in range(p, OFF + 1):
            short += board[i] - start[i] - (arriving[i - p] if i - p < 6 else 0)
            if short > 0:
                return False
        return True

    def _arrivals(p: int, arriving: tuple[int, ...], used: tuple[int, ...]) -> tuple[int, ...]:
        ahead = list(arriving[1:]) + [0]
        for value, n in zip(values, used):
            if n:
                ahead[min(p + value, OFF) - p - 1] += n
        return tuple(ahead)

    try:
        return go(0, tuple(dice.count(v) for v in values), (0,) * 6)
    except _Undecided:
        return True


# How many states `forward_fit` may visit before it gives up (and answers True).
FIT_STATES = 3000


class _Undecided(Exception):
    """`forward_fit` gave up."""


@lru_cache(maxsize=4096)
def _splits(total: int, limits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to write `total` as a sum of parts, part i at most limits[i] (none if total < 0)."""
    if not limits:
        return ((),) if total == 0 else ()
    return tuple((first,) + rest
                 for first in range(min(total, limits[0]), -1, -1)
                 for rest in _splits(total - first, limits[1:]))
