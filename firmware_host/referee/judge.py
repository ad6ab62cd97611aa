"""Judging a board reading during a turn.

A `Referee` is built at each roll from the turn's start position, the dice and the house rules.
`judge(reading)` then says what any reading of the sensors is, against the turn's start (so
takebacks inside a turn are free): unchanged, partial, complete, in_hand, illegal or fault, with
everything the lights and the journal need. Pure: no clock, no I/O.
"""
from __future__ import annotations

import enum
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from heapq import heappop, heappush
from itertools import count
from operator import mul, sub
from typing import Any, Iterator, Mapping

from firmware_host.referee.reach import StageEnds, Work, checkers_to_move, may_reach
from firmware_host.referee.refusal import Refusal, refusals
from firmware_host.referee.steps import (Step, counts_of, differing_locations, position_counts,
                                         steps_between)
from firmware_host.referee.tree import Seen, StageTree, TreeState
from firmware_host.rules.plays import BAR, OFF, Node, Play, Turn
from firmware_host.rules.position import (BLACK, CHECKERS, WHITE, Color, Position, PositionError, check_bar,
                                          known_variant)
from firmware_host.rules.reading import COLOURS, BoardReading, SideReading
from firmware_host.rules.variants import Capture, Rules

class VerdictKind(enum.StrEnum):
    """What a board means in a turn. A str enum: a kind reads, prints and journals as its name."""

    UNCHANGED = "unchanged"     # the turn's start
    PARTIAL = "partial"         # on the way to a legal play, dice left
    COMPLETE = "complete"       # a legal play, whole
    IN_HAND = "in_hand"         # checkers lifted
    ILLEGAL = "illegal"         # no legal play explains it
    FAULT = "fault"             # the sensors report what no board can hold


VERDICTS = tuple(VerdictKind)


@dataclass(frozen=True)
class Reading:
    """The board of a game as the referee judges it: counts per point, bar and tray for both colours
    in the position format's numbering, no pins. Made from a board reading (`of_board`), whose type
    owns the reading object and its JSON (`rules.reading.BoardReading`)."""

    variant: str
    white: tuple[int, ...]
    black: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]

    @classmethod
    def from_json(cls, data: Mapping[str, Any], variant: str | None = None) -> "Reading":
        """The reading object (the position JSON without pins, turn and rolls) of a game of `variant`,
        or of the object's own "variant". One side's "reserve" alone leaves the other's tray empty.
        Counts above 15 are accepted here: the referee reports them as a fault."""
        if not isinstance(data, Mapping):
            raise PositionError("", "a reading is an object with white and black")
        for key in ("pinned", "turn", "rolls"):
            if key in data:
                raise PositionError(key, "a reading has no pins, turn or rolls (the sensors "
                                    "cannot see them)")
        name = known_variant(data.get("variant", variant))
        sides = dict(data)
        given = [colour for colour in COLOURS if isinstance(sides.get(colour), Mapping) and "reserve" in sides[colour]]
        for colour in COLOURS if given else ():
            if isinstance(sides.get(colour), Mapping):
                sides[colour] = {"reserve": 0, **sides[colour]}
        board = BoardReading.from_json(sides)
        for colour in COLOURS:
            check_bar(name, colour, board.side(colour).bar)
        return cls.of_board(board, name)

    @classmethod
    def of_board(cls, board: BoardReading, variant: str) -> "Reading":
        """The board of a game of `variant` that `board` (in the position format's numbering) shows:
        checkers in a reserve tray stand on their start point. Taken as it is: a board may show what
        the game cannot have (a checker on the bar of a game without hitting), and the referee is the
        one to call that illegal."""
        points = {WHITE: list(board.white.points), BLACK: list(board.black.points)}
        for color in (WHITE, BLACK):
            reserve = board.side(color.value).reserve
            if reserve:
                points[color][_start_point(variant, color)] += reserve
        return cls(variant, tuple(points[WHITE]), tuple(points[BLACK]), (board.white.bar, board.black.bar),
                   (board.white.off, board.black.off))

    @classmethod
    def of(cls, position: Position) -> "Reading":
        return cls(position.variant, position.white, position.black, position.bar, position.off)

    def counts(self) -> dict[Color, dict[str, int]]:
        return counts_of(self.white, self.black, self.bar, self.off)

    def total(self, color: Color) -> int:
        points = self.white if color is WHITE else self.black
        return sum(points) + self.bar[color.index] + self.off[color.index]

    def to_json(self) -> dict[str, Any]:
        board = BoardReading(SideReading(self.white, self.bar[0], self.off[0]),
                             SideReading(self.black, self.bar[1], self.off[1]))
        return {"variant": self.variant, **board.to_json()}


def _start_point(variant: str, color: Color) -> int:
    """The index of the one point `color` starts on in `variant`, which a reserve tray stands for."""
    if variant not in _SINGLE_STACK:
        raise PositionError(f"{color.value}.reserve", f"{variant} starts spread over several points, so a "
                            "reserve tray has no start point to stand for")
    route_start = Position.start(variant).checkers(color)
    return max(range(24), key=lambda i: route_start[i])


_SINGLE_STACK = ("plakoto", "tapa", "neverfinishing", "fevga", "moultezim", "gulbara", "narde")


@dataclass(frozen=True)
class Fault:
    location: str
    color: Color
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "color": self.color.value, "reason": self.reason}


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    position: Position | None = None            # the board judged, pins inferred, mover to move
    remaining: tuple[int, ...] = ()             # dice still to play (partial)
    destinations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    play: Play | None = None                    # complete: the play and the position after it
    lifted: Mapping[Color, int] = field(default_factory=dict)  # in_hand: checkers off the board
    origin: str | None = None                   # in_hand: where the lifted checker came from
    opponent_destinations: tuple[str, ...] = ()  # in_hand: where a lifted opposing checker goes
    differs: tuple[str, ...] = ()               # illegal: locations that differ from the target
    target: Position | None = None              # illegal: the nearest legal position
    steps: tuple[Step, ...] = ()                # illegal: how to get there, one checker at a time
    refusals: tuple[Refusal, ...] = ()          # illegal: the rules the board breaks, as the referee found
    fault: Fault | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", VerdictKind(self.kind))   # a kind given by name is checked

    @property
    def legal(self) -> bool:
        return self.kind in ("unchanged", "partial", "complete")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"verdict": self.kind}
        if self.position is not None:
            data["position"] = self.position.to_json()
        if self.kind == "partial":
            data["remaining"] = list(self.remaining)
        if self.destinations:
            data["destinations"] = {k: list(v) for k, v in self.destinations.items()}
        if self.play is not None:
            data["play"] = self.play.to_json()
        if self.kind == "in_hand":
            data["lifted"] = {c.value: n for c, n in self.lifted.items()}
            data["origin"] = self.origin
            if self.opponent_destinations:
                data["opponent_destinations"] = list(self.opponent_destinations)
        if self.kind == "illegal" or self.steps:
            data["differs"] = list(self.differs)
            data["steps"] = [s.to_json() for s in self.steps]
            if self.target is not None:
                data["target"] = self.target.to_json()
            if self.refusals:
                data["refusals"] = [refusal.to_json() for refusal in self.refusals]
        if self.fault is not None:
            data["fault"] = self.fault.to_json()
        return data


@dataclass(frozen=True)
class _Found:
    tree: StageTree
    states: list[TreeState]
    stage: int              # which stage of the roll the tree plays (0 unless a cascade)
    later: tuple[int, ...]  # dice of the cascade stages after this tree's stage
    before: tuple           # the frame moves of the earlier stages, from the turn's start
    also: tuple = ()        # other stage paths on which the board lies on the way (bearing off)


# Cascades. Tree states kept between readings: a roll's trees are kept while they fit, the least
# recently used forgotten first (a state with its edges takes about 1.5 kB: some 30 MB, within a
# Pi Zero 2 W's 512 MB).
TREE_CACHE_STATES = 20_000
# Guidance, which no verdict depends on, searches within bounds: the nearest legal board among the
# stage trees taken up while they hold at most this many states (their count, not the trees', bounds
# the work: a tree of a long cascade stage under whole-cascade maximisation holds hundreds, and a
# board two moves off every legal one may have every stage end of the roll within the lower bound),
# and the boards tried for where a lifted checker may go (in hand) or which checker is one too
# many (a fault) together within this much `Work` (states visited, trees built and stage ends
# tried: under 30 ms at worst on a loaded x86 core, bench/records/cascade-lifts-2026-11-28.json; a low
# cascade's board that no stage path reaches can otherwise take seconds, issue 33).
# The board seen is always searched to the end: its verdict is exact.
NEAREST_SEARCH_BUDGET = 5000
GUIDANCE_WORK = 4000
# `forward_fit`'s bound for the one test of a board against the whole roll's dice, which precedes
# a cascade's search: most boards no stage path reaches are ruled out within a few dozen states,
# and one the bound leaves undecided is searched as before.
ROLL_FIT_STATES = 200


class Referee:
    """Judges readings for one roll. Trees are built once and reused for every reading."""

    def __init__(self, position: Position, dice: tuple[int, int],
                 rules: Rules | Mapping[str, Any] | None = None):
        self.turn = Turn(position, dice, rules)
        self.position = position
        self.frame = self.turn.frame
        self.variant = position.variant
        stages = self.turn.stages
        # Per stage: the dice of the cascade's stages after it.
        self._later = [tuple(d for s in stages[i + 1:] for d in s) for i in range(len(stages))]
        # The points the mover cannot land on while the opponent's checkers stand still (all
        # through a cascade: nothing is hit in the games that have them).
        opp, lone_closes = self.turn.start.opp, self.frame.capture is Capture.NONE
        self._closed = frozenset(p for p in range(1, OFF) if opp[p] >= (1 if lone_closes else 2))
        self._whole = self.turn.whole_cascade
        self._trees: OrderedDict[tuple[Node, int], StageTree] = OrderedDict()
        self._tree_states = 0
        # Cascade stages of equal dice under rules where the stage's maximisation alone makes a
        # move illegal (no limit judged at a play's end, no obligation, no start rule, each stage
        # maximised on its own): a checker's way on into a later stage is then found without
        # building that stage's tree (`_chain_targets`).
        frame = self.frame
        self._plain_stages = len(stages) > 1 and self._whole is None and not (
            frame.end_limits or frame.first_checker or frame.head_limit
            or frame.opts.get("prime_rule", "none") != "none") \
            and all(len(set(stage)) == 1 for stage in stages)
        self._chains: dict[tuple[Node, int, int], frozenset[int]] = {}
        # Stage ends from the compiled search, for stages whose trees a search needs only the
        # ends of (`_stage_ends`), kept like the trees, by states.
        self._stage_pips = [sum(stage) for stage in stages]
        self._bare_ends: OrderedDict[tuple[Node, int], dict[Node, TreeState]] = OrderedDict()
        self._bare_states = 0
        self._most_playable: dict[tuple[Node, int], int] = {}
        # The stage ends a search has tried boards against, indexed for the next boards (kept like
        # the trees, by states).
        self._end_indexes: dict[tuple[Node, int], StageEnds[TreeState]] = {}
        self._indexed_states = 0
        self._last_path: dict[int, Node] = {}  # the stage roots of the last board located
        # Where no checker is hit, the opponent's checkers stand as at the start in every state.
        self._opp_fixed = self.frame.capture in (Capture.NONE, Capture.PIN)
        # Guidance's boards known on no legal way this roll: the places a lifted checker may go
        # repeat from one reading to the next (`_guided_locate`).
        self._off_every_way: set[Seen] = set()
        self._roll_dice = tuple(die for stage in stages for die in stage) if len(stages) > 1 else None
        self.root_tree = self._tree(self.turn.start, 0)

    # -- trees -------------------------------------------------------------------------------

    def _tree(self, root: Node, stage: int) -> StageTree:
        key = (root, stage)
        tree = self._trees.get(key)
        if tree is not None:
            self._trees.move_to_end(key)
            return tree
        kept = None if self._whole is None else partial(self._whole.kept, stage=stage)
        tree = self._trees[key] = StageTree(self.turn, root, self.turn.stages[stage], kept)
        self._tree_states += len(tree)
        while self._tree_states > TREE_CACHE_STATES and len(self._trees) > 2:
            # The roll's first tree is kept for good (it is `root_tree`).
            oldest = next(k for k in self._trees if k != (self.turn.start, 0))
            self._tree_states -= len(self._trees.pop(oldest))
        return tree

    def _stage_ends(self, root: Node, stage: int, work: Work | None) -> dict[Node, TreeState]:
        """`StageTree.ends` of the tree of `stage` from `root`, in its order (the stage's legal
        ends, last found first), without building the tree where it is not built: the
        compiled search's ends, the same states with the same first moves. Under whole-cascade
        maximisation, these are not yet narrowed by `WholeCascade.keeps` (dear to prove, so
        asked only of the ends a search tries: `_CascadeSearch._candidate_ends`)."""
        key = (root, stage)
        tree = self._trees.get(key)
        if tree is not None:
            return tree.ends
        ends = self._bare_ends.get(key)
        if ends is None:
            ends = self._bare_ends[key] = {
                end.node: TreeState((end.node, end.remaining), end.moves, True, end.result)
                for end in reversed(self.turn.stage_ends(root, self.turn.stages[stage]))
                if not end.remaining and end.result is None}
            self._bare_states += len(ends)
            if work is not None:
                work.spent += len(ends)
            while self._bare_states > TREE_CACHE_STATES and len(self._bare_ends) > 1:
                self._bare_states -= len(self._bare_ends.popitem(last=False)[1])
        return ends

    def _indexed_ends(self, root: Node, stage: int, ends: dict[Node, TreeState]) -> StageEnds[TreeState]:
        """`ends`, the stage ends of `stage` from `root`, indexed (again where the stage's tree was
        built since, whose ends replace the compiled search's)."""
        key = (root, stage)
        indexed = self._end_indexes.get(key)
        if indexed is None or indexed.source is not ends:
            if self._indexed_states > TREE_CACHE_STATES:
                self._end_indexes.clear()
                self._indexed_states = 0
            indexed = self._end_indexes[key] = StageEnds(ends)
            self._indexed_states += len(indexed)
        return indexed

    def _locate(self, board: Seen, work: Work | None = None) -> _Found | None:
        """The tree states showing `board`, if it lies on the way to a legal play (None too when
        the `work` was spent before it was found)."""
        if self._opp_fixed and board[1] != self.turn.start.opp:
            return None
        if self._whole is not None and not self._whole.may_show(board[0]):
            # Whole-cascade maximisation: the dice to come cannot make up the most from here, so
            # no stage path need be searched (a stage-by-stage play's boards are often such).
            return None
        if self._roll_dice is not None and (work is None or work.left > 0):
            # Every stage path to the board moves the checkers forward with the first dice of
            # the roll: where they cannot, no stage end need be tried (each would be, with its
            # own `may_reach`, and an unreachable board of a low cascade has thousands). With
            # the work spent, no stage end is tried anyway, and the test would change nothing.
            test = Work(ROLL_FIT_STATES)
            reachable = may_reach(self.turn.start.me, board[0], self._roll_dice, self._closed, work=test)
            if work is not None:
                work.spent += test.spent
            if not reachable:
                return None
        search = _CascadeSearch(self, board, work)
        found = search.stage(self.turn.start, 0, ())
        if found is not None:
            self._last_path = search.path
        elif search.on_the_way:
            found = replace(search.on_the_way[0], also=tuple(search.on_the_way[1:]))
        return found

    def _guided_locate(self, board: Seen, work: Work) -> _Found | None:
        """`_locate` within `work`, a board found on no legal way remembered for the roll: that
        answer is exact where the work was not spent, and the same whichever path the search
        tried first (a board found is searched again: which path finds it first may change)."""
        if board in self._off_every_way:
            return None
        found = self._locate(board, work)
        if found is None and work.left > 0:
            if len(self._off_every_way) >= TREE_CACHE_STATES:
                self._off_every_way.clear()
            self._off_every_way.add(board)
        return found

    def _nearest(self, board: Seen) -> TreeState:
        """The legal state that takes the fewest checker moves to show as `board`.

        Asked only of a board `_locate` found on no legal way, so every legal board is at least
        one checker move from it. Best first over the stage trees of the roll: a stage end is
        searched only while a lower bound of the moves to any board on its ways
        (`checkers_to_move`, at least one) is below the best found, each stage end once, the
        stages of the last board located first, deepest first (readings come one move after
        another, so a legal board one move away is usually there, and ends the search). Ties:
        spare the mover's checkers (he placed them on purpose, the opponent's only move to the bar
        when hit), move them the shortest way, then the most progress.
        """
        me, opp = board
        best, best_key = None, None
        order = count()
        roots = sorted(self._last_path.items(), reverse=True) + [(0, self.turn.start)]
        queue = [(1, next(order), stage, root) for stage, root in roots]  # (bound, order, stage, root)
        queued = {(root, stage) for stage, root in roots}
        searched = 0
        while queue and (best_key is None or queue[0][0] < best_key[0]) \
                and searched < NEAREST_SEARCH_BUDGET:
            bound, _, stage, root = heappop(queue)
            tree = self._tree(root, stage)
            searched += len(tree)
            # Most wrong boards are one checker away from a legal one: look those up first.
            near = [seen for seen in _within_one_step(board, tree.opp_boards) if seen in tree.by_seen]
            for node_me, node_opp in near or tree.by_seen:
                states = tree.by_seen[node_me, node_opp]
                mover_steps = _frame_distance(me, node_me)
                if best_key is not None and mover_steps > best_key[0]:
                    continue
                steps = mover_steps + _frame_distance(opp, node_opp)
                if best_key is not None and steps > best_key[0]:
                    continue
                travel = _travel(me, node_me)
                for state in states:
                    key = (steps, mover_steps, travel, -stage, -len(state.moves), not state.complete)
                    if best_key is None or key < best_key:
                        best, best_key = state, key
            later = self._later[stage]
            for node in tree.ends if later else ():
                if (node, stage + 1) in queued:
                    continue
                queued.add((node, stage + 1))
                bound = max(1, _frame_distance(opp, node.opp) + checkers_to_move(node.me, me))
                if bound < best_key[0]:
                    heappush(queue, (bound, next(order), stage + 1, node))
        return best

    # -- judging -----------------------------------------------------------------------------

    def judge(self, reading: Reading | Mapping[str, Any]) -> Verdict:
        if not isinstance(reading, Reading):
            reading = Reading.from_json(reading, self.variant)
        if reading.variant != self.variant:
            raise PositionError("variant", f"the reading is of {reading.variant}, the game is "
                                f"{self.variant}")
        fault = self._fault(reading)
        if fault is not None:
            return Verdict("fault", fault=fault)
        board = self._seen(reading)
        lifted = {c: CHECKERS - reading.total(c) for c in (WHITE, BLACK)}
        if any(lifted.values()):
            return self._in_hand(reading, board, lifted)
        found = self._locate(board)
        if found is None:
            return self._illegal(reading, board)
        return self._legal(found, board)

    def _legal(self, found: _Found, board: Seen) -> Verdict:
        states = found.states
        complete = [s for s in states if self._ends_turn(found, s)]
        if complete:
            state = complete[0]
            play = self._play(found, state)
            kind = "unchanged" if state.key == found.tree.root_key and found.tree is self.root_tree \
                and play.moves else "complete"
            return Verdict(kind, position=self._position(state.node), play=play)
        state = min(states, key=lambda s: len(s.moves))
        kind = "unchanged" if found.tree is self.root_tree and state.key == found.tree.root_key \
            else "partial"
        destinations: dict[str, set[str]] = {}
        for path in (found,) + found.also:
            for origin, targets in self._destinations(path, path.states).items():
                destinations.setdefault(origin, set()).update(targets)
        return Verdict(kind, position=self._position(state.node),
                       remaining=state.remaining + found.later,
                       destinations={o: tuple(sorted(t, key=self._order)) for o, t in
                                     sorted(destinations.items(), key=lambda item: self._order(item[0]))})

    def _ends_turn(self, found: _Found, state: TreeState) -> bool:
        """A legal play of the whole roll ends at `state`: its stage ended and no later stage
        follows, or the stage could not be played in full, or the game is over, or the next
        stage of a cascade cannot play a single die."""
        if not state.complete:
            return False
        if state.remaining or not found.later or state.result is not None:
            return True
        following = self._tree(state.node, found.stage + 1)
        root = following.states.get(following.root_key)
        return root is not None and root.complete

    def _play(self, found: _Found, state: TreeState) -> Play:
        after = self.frame.to_position(state.node, played_turn=True)
        result = state.result or self.frame.result(state.node, self.turn.start, end_of_turn=True)
        # gulbara_remainder = opponent_plays: the dice left unplayed go to the opponent.
        owed = state.remaining + found.later if result is None and self.turn.owes_remainder else ()
        return Play(self.frame.moves(found.before + state.moves), after, result, owed)

    def _destinations(self, found: _Found, states: list[TreeState]) -> dict[str, tuple[str, ...]]:
        """For each point a checker could move from next, where it may end up: one die, or
        several dice played by the same checker in a row, on into later cascade stages."""
        stages = self.turn.stages
        reach: dict[int, set[int]] = {}
        walked: set[tuple] = set()

        def walk(tree: StageTree, stage: int, key: tuple, origin: int | None, at: int | None) -> None:
            if (id(tree), key, origin, at) in walked:
                return
            walked.add((id(tree), key, origin, at))
            for move, child in tree.edges.get(key, ()):
                if at is None or move[0] == at:
                    start = move[0] if origin is None else origin
                    reach.setdefault(start, set()).add(move[1])
                    if move[1] != OFF:
                        walk(tree, stage, child, start, move[1])
            state = tree.states[key]
            if stage + 1 < len(stages) and state.complete and not state.remaining \
                    and state.result is None:
                if at is not None and self._plain_stages:
                    reach[origin].update(self._chain_targets(state.node, stage + 1, at))
                    return
                following = self._tree(state.node, stage + 1)
                if following.root_key in following.states:
                    walk(following, stage + 1, following.root_key, origin, at)

        for state in states:
            walk(found.tree, found.stage, state.key, None, None)
        point = self.frame.point
        return {point(o): tuple(point(t) for t in sorted(ts)) for o, ts in sorted(reach.items())}

    def _chain_targets(self, root: Node, stage: int, at: int) -> frozenset[int]:
        """Where the checker on `at` may end up playing the dice of `stage` from the stage's root
        one after another, on into the later stages, without building the stage's tree: under
        `_plain_stages` a move is on the way to a legal play of the stage exactly when the most
        dice are still playable after it."""
        key = (root, stage, at)
        targets = self._chains.get(key)
        if targets is None:
            found: set[int] = set()
            self._chain_walk(root, stage, 0, self._playable(root, self.turn.stages[stage]), at, found)
            if len(self._chains) >= TREE_CACHE_STATES:
                self._chains.clear()
            targets = self._chains[key] = frozenset(found)
        return targets

    def _chain_walk(self, node: Node, stage: int, played: int, most: int, at: int, found: set[int]) -> None:
        dice = self.turn.stages[stage]
        for child, move in self.frame.steps(node, dice[played]):
            if move[0] != at or played + 1 + self._playable(child, dice[played + 1:]) < most:
                continue
            found.add(move[1])
            if move[1] == OFF:
                continue
            if played + 1 < len(dice):
                self._chain_walk(child, stage, played + 1, most, move[1], found)
            elif stage + 1 < len(self.turn.stages):
                found.update(self._chain_targets(child, stage + 1, move[1]))

    def _playable(self, node: Node, dice: tuple[int, ...]) -> int:
        """The most of `dice` (equal dice) playable from `node`; ending the game plays them all."""
        if node.me[OFF] == CHECKERS or not dice:
            return len(dice)
        key = (node, len(dice))
        most = self._most_playable.get(key)
        if most is None:
            most = 0
            for child, _ in self.frame.steps(node, dice[0]):
                most = max(most, 1 + self._playable(child, dice[1:]))
                if most == len(dice):
                    break
            if len(self._most_playable) >= TREE_CACHE_STATES:
                self._most_playable.clear()
            self._most_playable[key] = most
        return most

    def _order(self, location: str) -> int:
        """Where a location lies on the mover's route (bar first, off last)."""
        return self.frame.names.index(location)

    def _position(self, node: Node) -> Position:
        return self.frame.to_position(node, played_turn=False)

    # -- readings that are not on the way to a legal play ------------------------------------

    def _fault(self, reading: Reading) -> Fault | None:
        start = position_counts(self.position)
        counts = reading.counts()
        work = Work(GUIDANCE_WORK)
        for color in (WHITE, BLACK):
            if reading.total(color) > CHECKERS:
                grown = [loc for loc, n in counts[color].items() if n > start[color].get(loc, 0)]
                extra = [loc for loc in grown if reading.total(color) == CHECKERS + 1
                         and self._legal_without(reading, color, loc, work)]
                where = (extra or grown or ["board"])[0]
                return Fault(where, color, f"{reading.total(color)} {color.value} checkers seen; "
                             f"a side has {CHECKERS}")
        return None

    def _legal_without(self, reading: Reading, color: Color, location: str, work: Work) -> bool:
        """Whether taking one `color` checker off `location` leaves a legal board."""
        white, black = list(reading.white), list(reading.black)
        bar, off = list(reading.bar), list(reading.off)
        if location == "bar":
            bar[color.index] -= 1
        elif location == "off":
            off[color.index] -= 1
        else:
            (white if color is WHITE else black)[int(location) - 1] -= 1
        fewer = Reading(reading.variant, tuple(white), tuple(black), tuple(bar), tuple(off))
        return self._guided_locate(self._seen(fewer), work) is not None

    def _seen(self, reading: Reading) -> Seen:
        route, mover = self.frame.route, self.frame.mover
        mine = reading.white if mover is WHITE else reading.black
        theirs = reading.black if mover is WHITE else reading.white
        m, o = mover.index, 1 - mover.index
        me = (reading.bar[m],) + tuple(mine[route[p] - 1] for p in range(1, 25)) + (reading.off[m],)
        opp = (reading.bar[o],) + tuple(theirs[route[p] - 1] for p in range(1, 25)) + (reading.off[o],)
        return me, opp

    def _in_hand(self, reading: Reading, board: Seen, lifted: dict[Color, int]) -> Verdict:
        mover = self.frame.mover
        me, opp = board
        point = self.frame.point
        origin, destinations, opponent_places = None, (), ()
        work = Work(GUIDANCE_WORK)
        if lifted[mover] == 1 and lifted[mover.opponent] == 0:
            places = []  # (frame position, fewest dice played to get there)
            for t in range(0, OFF + 1):
                depth = self._depth_with(_added(me, t), opp, work)
                if depth is None and 0 < t < OFF and opp[t] == 1 and self.frame.capture in (
                        Capture.HIT, Capture.CHOICE):
                    hit = list(opp)
                    hit[t] -= 1
                    hit[BAR] += 1
                    depth = self._depth_with(_added(me, t), tuple(hit), work)
                if depth is not None:
                    places.append((depth, t))
            if places:
                depth, origin_t = min(places)
                short = [p for p in range(0, OFF) if self.turn.start.me[p] > me[p]]
                if depth > 0 and len(short) == 1:
                    # Putting it back anywhere restores no earlier position (the blot already
                    # waits on the bar, say): it came from the one point short of a checker.
                    origin_t = short[0]
                origin = point(origin_t)
                destinations = tuple(point(t) for _, t in sorted(places, key=lambda p: p[1])
                                     if t != origin_t)
        elif lifted[mover.opponent] == 1 and lifted[mover] == 0:
            opponent_places = tuple(point(t) for t in range(0, OFF + 1)
                                    if self._depth_with(me, _added(opp, t), work) is not None)
        return Verdict("in_hand", lifted=lifted, origin=origin,
                       destinations={origin: destinations} if origin else {},
                       opponent_destinations=opponent_places)

    def _depth_with(self, me: tuple[int, ...], opp: tuple[int, ...], work: Work) -> int | None:
        found = self._guided_locate((me, opp), work)
        if found is None:
            return None
        return min(len(s.moves) for s in found.states) + (0 if found.tree is self.root_tree else 100)

    def _illegal(self, reading: Reading, board: Seen) -> Verdict:
        best = self._nearest(board)
        target = self._position(best.node)
        reading_counts, target_counts = reading.counts(), position_counts(target)
        return Verdict("illegal", position=None, target=target,
                       differs=differing_locations(reading_counts, target_counts),
                       steps=steps_between(self.variant, reading_counts, target_counts),
                       refusals=refusals(self.position, tuple(self.turn.dice), reading, self.turn.rules,
                                         self._legal_starts))

    @cached_property
    def _legal_starts(self) -> frozenset[str] | None:
        """The locations the roll's legal plays move a checker from: every move of the play tree, once
        a roll (None for a cascade, whose later stages' trees are built only as boards need them)."""
        if len(self.turn.stages) > 1:
            return None
        point = self.frame.point
        return frozenset(point(move[0]) for moves in self.root_tree.edges.values() for move, _ in moves)


class _CascadeSearch:
    """Where one board lies in a roll's play: the search behind `Referee._locate`.

    A cascade is searched depth first through the stage ends from which `board` may still be
    reached (`may_reach`: forward moves with the dice to come), each stage end once, to the end
    unless a bound on its `work` is given (guidance only: a verdict's board is always found when
    it is on the way to a legal play). Where a board lies on
    several stage paths, the verdict is the same on each (the same state, the same dice to come);
    only a complete play's moves may name another order of the same play.
    """

    def __init__(self, referee: Referee, board: Seen, work: Work | None = None):
        self.referee = referee
        self.work = work
        self.board = board
        self.me, self.opp = board
        self.pips = _pips(self.me)
        self.tried: set[tuple[Node, int]] = set()
        # Bearing off, a larger die can waste pips: one board may end the turn on one path and be
        # on the way on another. Then the search goes on for a path that ends the turn there.
        self.bearing_off = not any(self.me[:19])
        self.on_the_way: list[_Found] = []
        self.path: dict[int, Node] = {}  # stage -> the root of its tree, on the way to `board`
        self._stops: frozenset[int] | None = None

    def stage(self, root: Node, stage: int, before: tuple) -> _Found | None:
        """Searches the tree of `stage` from `root`, then the later stages from its ends. A board
        further on than the stage's dice move from `root` lies in none of its states: then only
        the stage's ends are needed, and its tree is not built."""
        referee = self.referee
        later = referee._later[stage]
        if (root, stage) not in referee._trees and \
                self.pips - _pips(root.me) > referee._stage_pips[stage]:
            if not later:
                return None
            ends, kept = referee._stage_ends(root, stage, self.work), referee._whole is None
        else:
            ends, kept = self._stage_tree(root, stage, before), True
            if isinstance(ends, _Found):
                return ends
            if not later:
                return None
        for end in self._candidate_ends(ends, root, stage, kept):
            found = self.stage(end.node, stage + 1, before + end.moves)
            if found is not None:
                self.path[stage + 1] = end.node
                return found
        return None

    def _stage_tree(self, root: Node, stage: int, before: tuple) -> _Found | dict[Node, TreeState]:
        """The board where the tree of `stage` from `root` shows it ending the turn (or on the
        way, not bearing off), else the tree's ends."""
        referee = self.referee
        built = (root, stage) not in referee._trees
        tree = referee._tree(root, stage)
        if built and self.work is not None:
            self.work.spent += len(tree)
        states = tree.match(self.board)
        if states:
            found = _Found(tree, states, stage, referee._later[stage], before)
            if not self.bearing_off or any(referee._ends_turn(found, state) for state in states):
                return found
            self.on_the_way.append(found)
        return tree.ends

    def _candidate_ends(self, ends: dict[Node, TreeState], root: Node, stage: int, kept: bool
                        ) -> Iterator[TreeState]:
        """The `ends` of the stage from `root` (`kept`: already narrowed by the whole cascade's rule)
        from which the board may still be reached, each stage end once: the one on the way to the
        last board located first (readings come one move after another), then those already most
        like the board (all moved the same pips)."""
        referee, me = self.referee, self.me
        last = referee._last_path.get(stage + 1)
        later = referee._later[stage]
        for end in referee._indexed_ends(root, stage, ends).covering(me, self.opp, last):
            key = (end.node, stage + 1)
            if key in self.tried:
                continue
            if self.work is not None:
                if self.work.left <= 0:
                    return
                self.work.spent += 1
            self.tried.add(key)
            # Once the board is known to be on the way, only a path where the turn ends there
            # is sought.
            stop = self._dice_that_cannot_move() if self.on_the_way else None
            if (end.node == last or may_reach(end.node.me, me, later, referee._closed, stop, self.work)) \
                    and (kept or referee._whole.keeps(end, stage)):
                yield end

    def _dice_that_cannot_move(self) -> frozenset[int]:
        if self._stops is None:
            frame, node = self.referee.frame, Node(self.me, self.opp)
            self._stops = frozenset(die for die in range(1, 7) if not frame.steps(node, die))
        return self._stops


def _within_one_step(board: Seen, opp_boards: frozenset[tuple[int, ...]]) -> Iterator[Seen]:
    """`board` and the boards one checker move away from it (of either colour, from any location
    to any other), with the opponent's checkers as in one of `opp_boards`."""
    me, opp = board
    if opp in opp_boards:
        yield board
        for origin, n in enumerate(me):
            if n:
                lifted = list(me)
                lifted[origin] -= 1
                for target in range(OFF + 1):
                    if target != origin:
                        lifted[target] += 1
                        yield tuple(lifted), opp
                        lifted[target] -= 1
    for other in opp_boards:
        if _frame_distance(opp, other) == 1:
            yield me, other


def _added(counts: tuple[int, ...], index: int) -> tuple[int, ...]:
    changed = list(counts)
    changed[index] += 1
    return tuple(changed)


def _frame_distance(have: tuple[int, ...], want: tuple[int, ...]) -> int:
    """Checkers too many in `have` (the surplus over `want`, location by location)."""
    return sum(map(max, map(sub, have, want), _ZEROS))


_ZEROS = (0,) * (OFF + 1)


def _pips(counts: tuple[int, ...]) -> int:
    """How far on the route the checkers stand, in pips, all together."""
    return sum(map(mul, counts, _LOCATIONS))


_LOCATIONS = range(OFF + 1)


def _travel(have: tuple[int, ...], want: tuple[int, ...]) -> int:
    """Pips the checkers must travel to turn `have` into `want` (1-D earth mover's distance)."""
    total = behind = 0
    for h, w in zip(have, want):
        behind += h - w
        total += abs(behind)
    return total


def restore(target: Position, reading: Reading | Mapping[str, Any]) -> tuple[Step, ...]:
    """The ordered steps that turn any reading into the target position."""
    if not isinstance(reading, Reading):
        reading = Reading.from_json(reading, target.variant)
    return steps_between(target.variant, reading.counts(), position_counts(target))


def judge(position: Position, dice: tuple[int, int], reading: Reading | Mapping[str, Any],
          rules: Rules | Mapping[str, Any] | None = None) -> Verdict:
    """One-off judging; build a `Referee` once per roll to judge many readings."""
    return Referee(position, dice, rules).judge(reading)
