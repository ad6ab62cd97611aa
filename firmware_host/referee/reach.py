"""Cheap bounds that steer the search through a cascade's stages without building their trees.

A gulbara cascade plays up to six stages of four dice, and the stage ends of one stage can number
thousands, each the root of a tree of the next stage. To find where a board lies, or the legal
board nearest to it, the referee builds only the trees these bounds cannot rule out. Nothing is
hit in a game with cascades (parallel games), so the mover's checkers only move forward and the
opponent's stand still; both bounds rely on that.
"""
from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate, chain
from operator import ge, mul, sub
from typing import Generic, Iterator, Mapping, TypeVar

from firmware_host.rules.plays import COMPILED, HOME, OFF, Node

# `may_reach`, `forward_fit`'s search and `StageEnds`' scan in C where the extension is built (and
# TAVLI_PURE_PYTHON is not set).
_compiled_reach = _compiled_fit = _compiled_covering = None
if COMPILED:
    from firmware_host.rules import _search
    _compiled_reach = getattr(_search, "may_reach", None)  # (None from a build older than it)
    _compiled_fit = getattr(_search, "forward_fit", None)
    _compiled_covering = getattr(_search, "covering_ends", None)


_ZEROS = (0,) * (OFF + 1)
_LOCATIONS = range(OFF + 1)


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


End = TypeVar("End")


class StageEnds(Generic[End]):
    """A stage's ends (node -> its state, in the stage's order), to be tried against many boards:
    those from which a board may still be reached, nearest first (`covering`). Packed once for the
    compiled scan (rules/_search.c `covering_ends`), which does `_covering_order`'s work."""

    def __init__(self, ends: Mapping[Node, End]):
        self.source = ends
        self.nodes = list(ends)
        self.states = list(ends.values())
        self._index = {node: i for i, node in enumerate(self.nodes)}
        self._packed = None if _compiled_covering is None else \
            bytes(chain.from_iterable(node.me + node.opp for node in self.nodes))

    def __len__(self) -> int:
        return len(self.nodes)

    def covering(self, me: tuple[int, ...], opp: tuple[int, ...], first: Node | None) -> list[End]:
        """The ends with the opponent's checkers as `opp` from which forward moves may turn the
        mover's into `me`: `first` first, then the least unlike the board (all moved the same pips),
        in the stage's order where equal."""
        at = self._index.get(first, -1)
        if self._packed is None:
            order = _covering_order(self.nodes, me, opp, at)
        else:
            order = _compiled_covering(self._packed, bytes(me + opp), at)
        states = self.states
        return [states[i] for i in order]


def _covering_order(nodes: list[Node], me: tuple[int, ...], opp: tuple[int, ...], first: int) -> list[int]:
    """`StageEnds.covering`'s indices in Python, the compiled scan's specification."""
    behind = tuple(accumulate(me))
    return sorted((i for i, node in enumerate(nodes) if node.opp == opp and covers(node.me, behind)),
                  key=lambda i: (i != first, unlike(nodes[i].me, me)))


def unlike(have: tuple[int, ...], want: tuple[int, ...]) -> int:
    """Checkers out of place between two boards: the sum of the count differences."""
    return sum(map(abs, map(sub, have, want)))


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
    there: all the dice played, or the next one one of `stop`. `work`: `forward_fit`'s bound.
    In C where the extension is built (rules/_search.c, the same tests and the same work spent):
    it is asked of every stage end a cascade's search tries."""
    if _compiled_reach is not None:
        reaches, visited = _compiled_reach(start, board, dice, closed, stop, FIT_STATES,
                                           None if work is None else work.left)
        if work is not None:
            work.spent += visited
        return reaches
    if not covers(start, accumulate(board)):   # (`checkers_to_move(start, board)`, by running totals)
        return False
    gained = sum(map(mul, _LOCATIONS, map(sub, board, start)))
    if board[OFF] != start[OFF]:
        return _may_bear_off(start, board, dice, closed, stop, work, gained)
    # Nothing borne off, the dice move the checkers exactly their pips: one k at most fits.
    for k, pips in enumerate(accumulate(dice, initial=0)):
        if pips >= gained:
            return pips == gained and (stop is None or k == len(dice) or dice[k] in stop) \
                and forward_fit(start, board, dice[:k], closed, work)
    return False


def _may_bear_off(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...],
                  closed: frozenset[int], stop: frozenset[int] | None, work: Work | None,
                  gained: int) -> bool:
    """`may_reach` where `board` has borne checkers off since `start`: a larger die may waste
    pips, so each k whose pips cover the board's gain is bounded by `_BearingOff`'s counts,
    then by `forward_fit` (which lets a die bear off from anywhere, a relaxation of the rule)."""
    bounds = None
    pips_of_first, at_least_of_first = _prefix_counts(dice)
    for k in range(bisect_left(pips_of_first, gained), len(pips_of_first)):
        if stop is not None and k < len(dice) and dice[k] not in stop:
            continue
        if bounds is None:  # (the counts are dear: made for the first k the pips allow)
            bounds = _BearingOff.of(start, board)
            if bounds is None:
                return False
        if bounds.allows(dice[:k], at_least_of_first[k], pips_of_first[k] - gained) \
                and forward_fit(start, board, dice[:k], closed, work):
            return True
    return False


@lru_cache(maxsize=256)
def _prefix_counts(dice: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """For each k: the pips of the first k of `dice` (rising with k), and how many of them are of
    each value w or more, w = 0..7 (none of 7): a cascade's few dice tuples are asked of every
    stage end tried (`_may_bear_off`)."""
    at_least = [(0,) * 8]
    for die in dice:
        at_least.append(tuple(n + (0 < w <= die) for w, n in enumerate(at_least[-1])))
    return tuple(accumulate(dice, initial=0)), tuple(at_least)


class _BearingOff:
    """`may_reach`'s bounds on the first k dice where `board` has borne checkers off since `start`.

    Checkers only move forward, so the rearmost one never stood behind the board's. Bearing off
    needs every checker in the home board (rules.md); a die larger than needed bears off only from
    the highest occupied point, at or behind the board's rearmost checker, so a die `v` wastes at
    most `v - overshoot_from` pips. The exact fit (`forward_fit`) is left to the trees, which are
    small then (few checkers, all in the home board), and these counts bound the dice instead."""

    def __init__(self, start: tuple[int, ...], board: tuple[int, ...], rearmost: int):
        self.borne_off = board[OFF] - start[OFF]
        self.overshoot_from = OFF - rearmost
        # A die that bears no checker off moves one at least that far on and leaves it on the
        # board: a checker x from the end takes at most (x - 1) // w dice of w or more without
        # being borne off. hops_of_at_least[w]: that over `start`'s checkers, plus the die of
        # each one borne off.
        self.hops_of_at_least = [0] + [self.borne_off + hops for hops in _hops_on_board(start)]
        # A checker ahead of the board's rearmost never is the highest, so it moves only by a
        # die smaller than its distance from the end or one that bears it off exactly: each one
        # leaving a point ahead of the board's rearmost takes a die smaller than the rearmost's
        # distance.
        self.leaving_ahead = sum(map(max, map(sub, start[rearmost + 1:OFF], board[rearmost + 1:OFF]),
                                     _ZEROS))

    @classmethod
    def of(cls, start: tuple[int, ...], board: tuple[int, ...]) -> "_BearingOff | None":
        """The bounds, or None where the board's rearmost checker (the bar first) stands outside
        the home board: then no checker was borne off."""
        rearmost = next((p for p in range(OFF) if board[p]), OFF - 1)
        if rearmost < HOME.start:
            return None
        return cls(start, board, rearmost)

    def allows(self, dice: tuple[int, ...], at_least: tuple[int, ...], extra_pips: int) -> bool:
        """Whether `dice` (with `at_least[w]` of w or more) may move `extra_pips` more than the
        board gained, each checker borne off by a die of its own."""
        k = len(dice)
        if k < self.borne_off or any(at_least[w] > self.hops_of_at_least[w] for w in range(1, 7)) \
                or k - at_least[min(self.overshoot_from, 7)] < self.leaving_ahead:
            return False
        waste = sum(sorted(max(0, die - self.overshoot_from) for die in dice)[k - self.borne_off:])
        return extra_pips <= waste


def forward_fit(start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...],
                closed: frozenset[int] = frozenset(), work: Work | None = None) -> bool:
    """Whether `start` may become `board` by moving checkers forward, each of `dice` used once by
    one checker, never landing on a `closed` point, a move past the end bearing off.

    The dice are a cascade's, lowest first, so a checker that plays several plays them in that
    order, lower dice first; the order between checkers is free. A search longer than FIT_STATES
    (or than the `work` left, which it spends) answers True: this is a filter that must never
    rule out a board that can be reached, and the stage trees decide. Searched in C where the
    extension is built (firmware_host/rules/_search.c, the same states in the same order), by
    `_FitSearch` otherwise."""
    states = FIT_STATES if work is None else min(FIT_STATES, work.left)
    if _compiled_fit is not None:
        fits, visited = _compiled_fit(start, board, dice, closed, states)
    else:
        search = _FitSearch(start, board, dice, closed, states)
        fits, visited = search.fits(), len(search.memo)
    if work is not None:
        work.spent += visited
    return fits is not False


class _FitSearch:
    """`forward_fit` in Python, its specification. Scans the route from the back: at each location
    the checkers that must leave it (those there and arriving, less those that stay) take some of
    the dice left, each at least the die it arrived with; memoised on (location, dice left,
    arrivals ahead), giving up after `states` of them."""

    def __init__(self, start: tuple[int, ...], board: tuple[int, ...], dice: tuple[int, ...],
                 closed: frozenset[int], states: int):
        self.start, self.board, self.dice, self.states = start, board, dice, states
        self.values = tuple(sorted(set(dice)))
        self.memo: dict[tuple, bool] = {}
        diff = [want - have for have, want in zip(start, board)]
        # Checkers `board` has more than `start` up to each location, and the most of that from a
        # location on: nothing comes from behind the scan, so a stretch can gain only what arrives.
        self.gain = list(accumulate(diff))
        self.most_gain = list(accumulate(reversed(self.gain), max))[::-1]
        # Pips still to gain from each location on (before the arrivals), and what bearing off
        # with a larger die may waste on top.
        self.to_gain = list(accumulate(i * diff[i] for i in range(OFF, -1, -1)))[::-1]
        self.waste = 5 * (board[OFF] - start[OFF])
        # The dice a checker may leave each location with (those that land on an open point).
        self.usable = [tuple(p + v >= OFF or p + v not in closed for v in self.values)
                       for p in range(OFF)]

    def fits(self) -> bool | None:
        """True or False, None where it gave up."""
        try:
            return self.go(0, tuple(self.dice.count(v) for v in self.values), sum(self.dice),
                           ((),) * 6)
        except _Undecided:
            return None

    def possible(self, p: int, pips_left: int, arriving: tuple[tuple[int, ...], ...]) -> bool:
        """Counts that rule a state out: the pips left must cover those still to gain (with the
        waste bearing off allows), and each stretch ahead gains only what arrives there."""
        counts = [len(slot) for slot in arriving]
        spare = pips_left - self.to_gain[p] + sum((p + i) * n for i, n in enumerate(counts) if n)
        if not 0 <= spare <= self.waste:
            return False
        gain = self.gain
        before, arrived = gain[p - 1] if p else 0, 0
        for i in range(min(6, OFF + 1 - p)):
            arrived += counts[i]
            if gain[p + i] - before > arrived:
                return False
        return p + 6 > OFF or self.most_gain[p + 6] - before <= arrived

    def go(self, p: int, left: tuple[int, ...], pips_left: int,
           arriving: tuple[tuple[int, ...], ...]) -> bool:
        """`arriving[i]`: the dice that brought each checker arriving at p + i, ascending."""
        if p == OFF:
            return not any(left) and self.start[OFF] + len(arriving[0]) == self.board[OFF]
        key = (p, left, arriving)
        known = self.memo.get(key)
        if known is not None:
            return known
        if len(self.memo) >= self.states:
            raise _Undecided
        fits = self.possible(p, pips_left, arriving) and any(
            self.go(p + 1, *taken) for taken in self.leaving(p, left, pips_left, arriving))
        self.memo[key] = fits
        return fits

    def leaving(self, p: int, left: tuple[int, ...], pips_left: int,
                arriving: tuple[tuple[int, ...], ...]) -> Iterator[tuple]:
        """The next states: each way the checkers leaving `p` may take the dice left. Those that
        leave are the ones that came with the lowest dice (0: there at the start): the others may
        stay as well, and these may take any die they can."""
        start, values = self.start[p], self.values
        leavers = ((0,) * start + arriving[0])[:start + len(arriving[0]) - self.board[p]]
        limits = tuple(n if ok else 0 for n, ok in zip(left, self.usable[p]))
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
            yield (tuple(l - u for l, u in zip(left, used)), pips,
                   tuple(tuple(sorted(slot)) for slot in ahead))


@lru_cache(maxsize=4096)
def _hops_on_board(start: tuple[int, ...]) -> tuple[int, ...]:
    """For w = 1..6: the dice of w or more `start`'s checkers can take without being borne off
    (a checker x from the end: (x - 1) // w). The same stage end is asked of many boards."""
    return tuple(sum(n * ((OFF - p - 1) // w) for p, n in enumerate(start[:OFF]) if n)
                 for w in range(1, 7))


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
