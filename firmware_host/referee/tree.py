"""The play tree of a roll: every state on the way to a legal play, in every allowed order of dice.

Built once per roll from the rules engine's own search (so the referee can never disagree with
`legal_plays`), then indexed by what the sensors can see: the counts per location of both colours
in the mover's frame (pins are inferred, never sensed).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

from firmware_host.rules.plays import FrameMove, Node, Turn

# What a board reading shows, in the mover's frame: (mover's counts, opponent's counts).
Seen = tuple[tuple[int, ...], tuple[int, ...]]


def seen(node: Node) -> Seen:
    return node.me, node.opp


@dataclass(frozen=True)
class TreeState:
    key: tuple                    # (node, dice still to play) in the search
    moves: tuple[FrameMove, ...]  # one way of reaching it from the root
    complete: bool                # a legal play of the stage ends here
    result: object                # the game's end, when the state ends the game

    @property
    def node(self) -> Node:
        return self.key[0]

    @property
    def remaining(self) -> tuple[int, ...]:
        return self.key[1]


class StageTree:
    """The states on the way to a legal play of `dice` from `root` (one roll, or one cascade stage)."""

    def __init__(self, turn: Turn, root: Node, dice: tuple[int, ...]):
        self.dice = dice
        edges: dict[tuple, list[tuple[FrameMove, tuple]]] = {}
        visits = list(turn.search(root, dice, edges))
        ends = turn.select_ends(root, dice, visits)
        by_key = {(v.node, v.remaining): v for v in visits}
        complete = {(v.node, v.remaining) for v in ends}
        parents: dict[tuple, list[tuple]] = defaultdict(list)
        for parent, children in edges.items():
            for _, child in children:
                parents[child].append(parent)
        alive = set(complete)  # states from which a legal play is still reachable
        frontier = list(complete)
        while frontier:
            for parent in parents[frontier.pop()]:
                if parent not in alive:
                    alive.add(parent)
                    frontier.append(parent)
        self.edges = {k: [(m, c) for m, c in edges.get(k, ()) if c in alive] for k in alive}
        self.states: dict[tuple, TreeState] = {
            k: TreeState(k, by_key[k].moves, k in complete, by_key[k].result) for k in alive}
        self.by_seen: dict[Seen, list[TreeState]] = defaultdict(list)
        for state in self.states.values():
            self.by_seen[seen(state.node)].append(state)
        self.root_key = (root, tuple(sorted(dice)))

    @cached_property
    def ends(self) -> dict[Node, TreeState]:
        """The states where the stage's dice are all played and the game goes on: the roots of
        the next stage of a cascade."""
        return {state.node: state for state in self.states.values()
                if state.complete and not state.remaining and state.result is None}

    def match(self, board: Seen) -> list[TreeState]:
        return self.by_seen.get(board, [])

    def __len__(self) -> int:
        return len(self.states)
