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
from operator import ge, sub

from firmware_host.rules.plays import HOME, OFF


_ZEROS = (0,) * (OFF + 1)


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


def covers(start: tuple[int, ...], board_behind: tuple[int, ...]) -> bool:
    """`checkers_to_move(start, board) == 0`, given the board's running totals
    (`accumulate(board)`): forward moves can turn `start` into `board` only if, up to every
    location, `start` has at least as many checkers as `board`."""
    return all(map(ge, accumulate(start), board_behind))


class Work:
    """A bound on searching, in states visited (`forward_fit`'s, the stage trees' built, the stage
    ends tried), shared by the searches that one answer needs: where it is spent, a filter answers
    "maybe" and a search gives up."""

    def __init__(self, limit: int):
        self.limit, self.spent = limit, 0

    @property
    def left(self) -> int:
        return self.limit - self.spent


def may_reach(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...],
              closed: frozenset[int] = frozenset(), stop: frozenset[int] | None = None,
              work: Work | None = None) -> bool:
    """Whether forward moves of the mover's checkers with the first k of `dice` (in order, for
    some k), never landing on a `closed` point, can turn `start` into `board`, in some order of
    the moves: a necessary condition for `board` to lie on a legal way from `start`.

    With `stop` (the die values that cannot move at `board`), the turn must also be able to end
    there: all the dice played, or the next one one of `stop`. `work`: `forward_fit`'s bound."""
    if checkers_to_move(start, board):
        return False
    gained = sum(i * (want - have) for i, (have, want) in enumerate(zip(start, board)))
    borne_off = board[OFF] - start[OFF]
    # Checkers only move forward, so the rearmost one never stood behind the board's. Bearing
    # off needs every checker in the home board (rules.md); a die larger than needed bears off
    # only from the highest occupied point, at or behind the board's rearmost checker, so a
    # die `v` wastes at most `v - overshoot_from` pips.
    rearmost = next((p for p in range(OFF) if board[p]), OFF - 1)  # the bar (0) first
    if borne_off and rearmost < HOME.start:
        return False
    overshoot_from = OFF - rearmost
    if borne_off:
        # Bearing off, the exact fit (`forward_fit`) is left to the trees, which are small then
        # (few checkers, all in the home board), and these counts bound the dice instead.
        # A die that bears no checker off moves one at least that far on and leaves it on the
        # board: a checker x from the end takes at most (x - 1) // w dice of w or more without
        # being borne off. hops_of_at_least[w]: that over `start`'s checkers, plus the die of
        # each one borne off.
        hops_of_at_least = [0] + [borne_off + sum(n * ((OFF - p - 1) // w)
                                                  for p, n in enumerate(start[:OFF]) if n)
                                  for w in range(1, 7)]
        # A checker ahead of the board's rearmost never is the highest, so it moves only by a
        # die smaller than its distance from the end or one that bears it off exactly: each one
        # leaving a point ahead of the board's rearmost takes a die smaller than the rearmost's
        # distance.
        leaving_ahead = sum(map(max, map(sub, start[rearmost + 1:OFF], board[rearmost + 1:OFF]),
                                _ZEROS))
    at_least = [0] * 8  # dice of each value or more among the first k (none of 7)
    for k, pips in enumerate(accumulate(dice, initial=0)):
        if k:
            for w in range(1, dice[k - 1] + 1):
                at_least[w] += 1
        if stop is not None and k < len(dice) and dice[k] not in stop:
            continue
        if pips < gained:
            continue
        if not borne_off:
            if pips == gained and forward_fit(start, board, dice[:k], closed, work):
                return True
            continue
        # Each checker borne off takes a die of its own.
        if k < borne_off or any(at_least[w] > hops_of_at_least[w] for w in range(1, 7)) \
                or k - at_least[min(overshoot_from, 7)] < leaving_ahead:
            continue
        waste = sum(sorted(max(0, die - overshoot_from) for die in dice[:k])[k - borne_off:])
        if pips <= gained + waste:
            return True
    return False


def forward_fit(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...],
                closed: frozenset[int] = frozenset(), work: Work | None = None) -> bool:
    """Whether `start` may become `board` by moving checkers forward, each of `dice` used once by
    one checker, never landing on a `closed` point, a move past the end bearing off.

    The dice are a cascade's, lowest first, so a checker that plays several plays them in that
    order, lower dice first; the order between checkers is free. Scans the route from the back:
    at each location the checkers that must leave it (those there and arriving, less those that
    stay) take some of the dice left, each at least the die it arrived with; memoised on
    (location, dice left, arrivals ahead). A search longer than FIT_STATES (or than the `work`
    left, which it spends) answers True: this is a filter that must never rule out a board that
    can be reached, and the stage trees decide."""
    states = FIT_STATES if work is None else min(FIT_STATES, work.left)
    values = tuple(sorted(set(dice)))
    memo: dict[tuple, bool] = {}
    diff = [want - have for have, want in zip(start, board)]
    # Checkers `board` has more than `start` up to each location, and the most of that from a
    # location on: nothing comes from behind the scan, so a stretch can gain only what arrives.
    gain = list(accumulate(diff))
    most_gain = list(accumulate(reversed(gain), max))[::-1]
    # Pips still to gain from each location on (before the arrivals), and what bearing off with
    # a larger die may waste on top.
    to_gain = list(accumulate(i * diff[i] for i in range(OFF, -1, -1)))[::-1]
    waste = 5 * (board[OFF] - start[OFF])
    # The dice a checker may leave each location with (those that land on an open point).
    usable = [tuple(p + v >= OFF or p + v not in closed for v in values) for p in range(OFF)]

    def possible(p: int, pips_left: int, arriving: tuple[tuple[int, ...], ...]) -> bool:
        counts = [len(slot) for slot in arriving]
        spare = pips_left - to_gain[p] + sum((p + i) * n for i, n in enumerate(counts) if n)
        if not 0 <= spare <= waste:
            return False
        before, arrived = gain[p - 1] if p else 0, 0
        for i in range(min(6, OFF + 1 - p)):
            arrived += counts[i]
            if gain[p + i] - before > arrived:
                return False
        return p + 6 > OFF or most_gain[p + 6] - before <= arrived

    def go(p: int, left: tuple[int, ...], pips_left: int,
           arriving: tuple[tuple[int, ...], ...]) -> bool:
        """`arriving[i]`: the dice that brought each checker arriving at p + i, ascending."""
        if p == OFF:
            return not any(left) and start[OFF] + len(arriving[0]) == board[OFF]
        key = (p, left, arriving)
        known = memo.get(key)
        if known is not None:
            return known
        if len(memo) >= states:
            raise _Undecided
        fits = False
        if possible(p, pips_left, arriving):
            # Those that leave are the ones that came with the lowest dice (0: there at the start):
            # the others may stay as well, and these may take any die they can.
            leavers = ((0,) * start[p] + arriving[0])[:start[p] + len(arriving[0]) - board[p]]
            limits = tuple(n if ok else 0 for n, ok in zip(left, usable[p]))
            for used in _splits(len(leavers), limits):
                taken = [v for v, n in zip(values, used) for _ in range(n)]
                if any(die < came for die, came in zip(taken, leavers)):
                    continue
                ahead = [list(slot) for slot in arriving[1:]] + [[]]
                pips = pips_left
                for value, n in zip(values, used):
                    if n:
                        ahead[min(p + value, OFF) - p - 1] += [value] * n
                        pips -= value * n
                if go(p + 1, tuple(l - u for l, u in zip(left, used)), pips,
                      tuple(tuple(sorted(slot)) for slot in ahead)):
                    fits = True
                    break
        memo[key] = fits
        return fits

    try:
        return go(0, tuple(dice.count(v) for v in values), sum(dice), ((),) * 6)
    except _Undecided:
        return True
    finally:
        if work is not None:
            work.spent += len(memo)


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
