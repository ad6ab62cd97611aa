"""gulbara_cascade_maximize = whole_cascade, as the referee judges it.

rules.md: each cascade stage is maximised on its own, or (this house rule) the whole cascade at
once. The rules engine (`Turn.final_visits`) plays the cascade stage by stage as ever, then keeps
only the plays that use the most dice of the whole cascade, and any play that ends the game. The
referee builds one stage tree at a time, so it asks here whether a stage end still leads to such a
play: the most dice the later stages can play from it, and whether they can end the game.
Nothing is hit in the games with cascades, so this depends only on the stage end's node.
"""
from __future__ import annotations

from firmware_host.rules.plays import OFF, Node, Turn


class WholeCascade:
    """Which stage ends lead to a legal play when the whole cascade is maximised at once."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.stages = turn.stages
        # Dice of the stages from index i on.
        self._dice_from = [sum(len(s) for s in self.stages[i:]) for i in range(len(self.stages) + 1)]
        self._ends: dict[tuple[Node, int], list] = {}
        self._most: dict[tuple[Node, int], int] = {}
        self._ends_game: dict[tuple[Node, int], bool] = {}
        self.most = self.most_dice(turn.start, 0)

    def keeps(self, end, stage: int) -> bool:
        """Whether the stage end `end` (a visit of `Turn.select_ends` for stage `stage`) is on the
        way to a legal play of the whole cascade."""
        if end.result is not None:
            return True
        played = self._dice_from[0] - self._dice_from[stage] + len(self.stages[stage]) - len(end.remaining)
        if end.remaining or stage + 1 == len(self.stages):
            return played == self.most
        return played + self.most_dice(end.node, stage + 1) == self.most \
            or self.can_end_game(end.node, stage + 1)

    def most_dice(self, node: Node, stage: int) -> int:
        """The most dice the stages from `stage` on can play from `node` (each stage maximised on
        its own, a stage not played in full ending the turn)."""
        key = (node, stage)
        if key not in self._most:
            best = 0
            for end in self._stage_ends(node, stage):
                played = len(self.stages[stage]) - len(end.remaining)
                if end.result is None and not end.remaining and stage + 1 < len(self.stages):
                    played += self.most_dice(end.node, stage + 1)
                best = max(best, played)
                if best == self._dice_from[stage]:
                    break  # every die played: no play can use more
            self._most[key] = best
        return self._most[key]

    def can_end_game(self, node: Node, stage: int) -> bool:
        """Whether some play of the stages from `stage` on ends the game (all borne off)."""
        key = (node, stage)
        if key not in self._ends_game:
            pips_to_bear_off = sum((OFF - p) * n for p, n in enumerate(node.me))
            pips = sum(sum(s) for s in self.stages[stage:])
            self._ends_game[key] = pips >= pips_to_bear_off and any(
                end.result is not None or (not end.remaining and stage + 1 < len(self.stages)
                                           and self.can_end_game(end.node, stage + 1))
                for end in self._stage_ends(node, stage))
        return self._ends_game[key]

    def _stage_ends(self, node: Node, stage: int) -> list:
        key = (node, stage)
        if key not in self._ends:
            self._ends[key] = self.turn.stage_ends(node, self.stages[stage])
        return self._ends[key]
