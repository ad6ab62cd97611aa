"""The play tree of a roll: every state on the way to a legal play, in every allowed order of dice.

Built once per roll from the rules engine's own search (so the referee can never disagree with
`legal_plays`), then indexed by what the sensors can see: the counts per location of both colours
in the mover's frame (pins are inferred, never sensed).
"""
from __future__ import annotations

from functools import cached_property
from typing import Callable, NamedTuple

from firmware_host.rules.plays import COMPILED, FrameMove, Node, Turn

# `_tree_states` in C where the extension is built (and TAVLI_PURE_PYTHON is not set).
_compiled_tree_states = None
if COMPILED:
    from firmware_host.rules import _search
    _compiled_tree_states = getattr(_search, "tree_states", None)  # (None from a build older than it)

# What a board reading shows, in the mover's frame: (mover's counts, opponent's counts).
Seen = tuple[tuple[int, ...], tuple[int, ...]]


class TreeState(NamedTuple):
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
    """The states on the way to a legal play of `dice` from `root` (one roll, or one cascade stage).

    `kept`, when given, narrows the stage's legal ends further (a whole-cascade rule that judges
    a stage end by what the later stages can still play: `WholeCascade.kept`)."""

    def __init__(self, turn: Turn, root: Node, dice: tuple[int, ...],
                 kept: Callable[[list], list] | None = None):
        self.dice = dice
        edges: dict[tuple, list[tuple[FrameMove, tuple]]] = {}
        keys: list[tuple] = []
        visits = list(turn.search(root, dice, edges, keys))
        complete = turn.select_ends(root, dice, visits)
        if kept is not None:
            complete = kept(complete)
        found = (_tree_states if _compiled_tree_states is None else _compiled_tree_states)(
            visits, keys, edges, complete, TreeState)
        self.edges: dict[tuple, list[tuple[FrameMove, tuple]]] = found[0]
        self.states: dict[tuple, TreeState] = found[1]
        self.by_seen: dict[Seen, list[TreeState]] = found[2]
        self.root_key = (root, tuple(sorted(dice)))

    @cached_property
    def ends(self) -> dict[Node, TreeState]:
        """The states where the stage's dice are all played and the game goes on: the roots of
        the next stage of a cascade."""
        return {state.node: state for state in self.states.values()
                if state.complete and not state.remaining and state.result is None}

    @cached_property
    def opp_boards(self) -> frozenset[tuple[int, ...]]:
        """The opponent's checkers as they stand in some state (the start's, or after hits)."""
        return frozenset(opp for _, opp in self.by_seen)

    def match(self, board: Seen) -> list[TreeState]:
        return self.by_seen.get(board, [])

    def __len__(self) -> int:
        return len(self.states)


def _tree_states(visits: list, keys: list[tuple], edges: dict[tuple, list[tuple[FrameMove, tuple]]],
                 complete: list, state_type: type[TreeState]
                 ) -> tuple[dict[tuple, list[tuple[FrameMove, tuple]]], dict[tuple, TreeState], dict[Seen, list[TreeState]]]:
    """The states of the search's `visits` (with their `keys` and `edges`, `Turn.search`) from which
    a legal play is still reachable, `complete` being the visits where one ends: their edges that
    keep it so, the states, and the states by what they show. The compiled `tree_states`'
    specification (rules/_search.c). The search reports a level after the one before it, so in
    reverse order every state comes after its children."""
    ends = {(v.node, v.remaining) for v in complete}
    kept_edges: dict[tuple, list[tuple[FrameMove, tuple]]] = {}
    states: dict[tuple, TreeState] = {}
    by_seen: dict[Seen, list[TreeState]] = {}
    for key, (node, moves, _, result) in zip(reversed(keys), reversed(visits)):
        ending = key in ends
        onward = [edge for edge in edges.get(key, ()) if edge[1] in states]
        if ending or onward:
            kept_edges[key] = onward
            state = states[key] = state_type(key, moves, ending, result)
            by_seen.setdefault((node.me, node.opp), []).append(state)
    return kept_edges, states, by_seen
