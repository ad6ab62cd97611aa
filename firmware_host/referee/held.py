"""Judging a turn held to one chosen play: a bot's, which a person moves for it.

A `HeldReferee` judges like a `Referee`, but the only legal boards are those on the way to the
chosen play, its moves made in the order given (the order the lights show them): the turn's start,
the board after each move, and the play's end, which alone is complete. Any other board, even one
legal under the dice, is illegal, with the nearest board on that way as the one to go back to.
Pure, like the referee: the play is chosen elsewhere and passed in.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from firmware_host.referee.judge import Reading, Referee, Verdict, VerdictKind, restore
from firmware_host.referee.refusal import Refusal, Rule
from firmware_host.referee.steps import differing_locations, position_counts, steps_between
from firmware_host.rules import Move, Play, Rules, Turn
from firmware_host.rules.position import Position


class HeldReferee(Referee):
    """The referee of a roll whose play is chosen before it is moved: `choose(turn)` picks it."""

    def __init__(self, position: Position, dice: tuple[int, ...], rules: Rules | Mapping[str, Any] | None,
                 choose: Callable[[Turn], Play]):
        super().__init__(position, dice, rules)
        self.play = choose(self.turn)
        # The board before each move of the play and after the last: the way the lights lead.
        self.way: tuple[Position, ...] = self._way(self.play.moves)
        self._index = {Reading.of(position): index for index, position in enumerate(self.way)}

    def _way(self, moves: tuple[Move, ...]) -> tuple[Position, ...]:
        node, way = self.turn.start, [self.position]
        for move in moves:
            node = next(after for after, frame_move in self.frame.steps(node, move.die)
                        if self.frame.moves((frame_move,))[0] == move)
            way.append(self._position(node))
        return tuple(way)

    def moves_made(self, reading: Reading) -> int | None:
        """How many of the play's moves `reading` shows made; None off the way."""
        return self._index.get(reading)

    def judge(self, reading: Reading | Mapping[str, Any]) -> Verdict:
        if not isinstance(reading, Reading):
            reading = Reading.from_json(reading, self.variant)
        verdict = super().judge(reading)
        if verdict.kind in ("fault", "in_hand"):
            return verdict
        made = self.moves_made(reading)
        if made is None:
            return self._guided_back(reading, verdict)
        moves = self.play.moves
        if made == len(moves):
            return Verdict("complete", position=self.way[made], play=self.play)
        if made == 0:
            return Verdict("unchanged", position=self.position, remaining=self._dice_left(0),
                           destinations=self._next(0))
        return replace(verdict, kind="partial", position=self.way[made], play=None,
                       remaining=self._dice_left(made), destinations=self._next(made))

    def _dice_left(self, made: int) -> tuple[int, ...]:
        return tuple(move.die for move in self.play.moves[made:])

    def _next(self, made: int) -> dict[str, tuple[str, ...]]:
        move = self.play.moves[made]
        return {move.origin: (move.destination,)}

    def _guided_back(self, reading: Reading, judged: Verdict) -> Verdict:
        """Illegal: back to the board on the way that takes the fewest checker moves. Why: the rules
        the board breaks where no play of the roll leads to it (`judged`), else that it is off the
        chosen play's way."""
        target = min(self.way, key=lambda position: (len(restore(position, reading)), -self.way.index(position)))
        reading_counts, target_counts = reading.counts(), position_counts(target)
        refused = judged.refusals if judged.kind is VerdictKind.ILLEGAL else (
            Refusal(Rule.OFF_THE_CHOSEN_PLAY, self.position.turn, self.variant, tuple(self.turn.dice)),)
        return Verdict("illegal", target=target, differs=differing_locations(reading_counts, target_counts),
                       steps=steps_between(self.variant, reading_counts, target_counts), refusals=refused)
