"""The soak's own judge of where a turn may end: the final boards of the rules engine's legal plays.

Most rolls have a few plays, listed once (`Turn.plays`). A gulbara cascade of low doubles can have
hundreds of thousands, too many to list: then each board asked about is looked for stage by stage
through the engine's own stage ends (`Turn.stage_ends`), as `Turn.final_visits` plays a cascade,
following only the stage ends from which the board can still be reached (nothing is hit in the
games with cascades, so checkers only move forward and the opponent's stand still). So every
board gets an answer, whatever the size of the turn. Most boards asked about lie on the way of a
play, where the turn cannot end: those are answered at once (`_turn_may_end_at`).
"""
from __future__ import annotations

from itertools import accumulate

from firmware_host.referee import Reading
from firmware_host.referee.reach import may_reach
from firmware_host.rules import Position, Turn
from firmware_host.rules.plays import OFF, ROUTES, Node, TooManyPlays

FINALS_LIMIT = 5000       # plays listed; beyond (deep cascades) boards are looked for one at a time
STAGE_ENDS_KEPT = 20_000  # stage roots whose ends are kept between the boards of a turn


class LegalFinals:
    """`reading in finals`: whether the board is the final board of a legal play of the roll."""

    def __init__(self, position: Position, dice, rules) -> None:
        self.turn = Turn(position, dice, rules)
        try:
            self._listed: set[Reading] | None = {Reading.of(play.position)
                                                 for play in self.turn.plays(limit=FINALS_LIMIT)}
        except TooManyPlays:
            self._listed = None
        self._asked: dict[Reading, bool] = {}
        self._stage_ends: dict[tuple[Node, int], list] = {}   # shared by the boards asked about

    @property
    def listed(self) -> bool:
        """Whether the plays were few enough to list (else boards are looked for one at a time)."""
        return self._listed is not None

    def __contains__(self, reading: Reading) -> bool:
        if self._listed is not None:
            return reading in self._listed
        if reading not in self._asked:
            board = _frame_counts(self.turn, reading)
            self._asked[reading] = _turn_may_end_at(self.turn, *board) and self._ends_a_play(*board)
        return self._asked[reading]

    def _ends_a_play(self, me: tuple[int, ...], opp: tuple[int, ...]) -> bool:
        """Whether some legal play of a cascade ends with the mover's checkers `me` and the
        opponent's `opp`: a depth-first walk over the stage ends of the engine, each stage end
        once, those most like the board first."""
        return _ends_a_play(self.turn, me, opp, self._ends_of)

    def _ends_of(self, node: Node, stage: int) -> list:
        key = (node, stage)
        if key not in self._stage_ends:
            if len(self._stage_ends) >= STAGE_ENDS_KEPT:
                self._stage_ends.clear()
            self._stage_ends[key] = self.turn.stage_ends(node, self.turn.stages[stage])
        return self._stage_ends[key]


def _frame_counts(turn: Turn, reading: Reading) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The reading in the mover's frame, as the engine's nodes count: bar, his route, off."""
    mover = turn.mover
    route = ROUTES[(turn.rules.variant.family, mover)]

    def frame(points: tuple[int, ...], side: int) -> tuple[int, ...]:
        return (reading.bar[side],) + tuple(points[route[p] - 1] for p in range(1, 25)) + (reading.off[side],)
    mine, theirs = (reading.white, reading.black) if mover.index == 0 else (reading.black, reading.white)
    return frame(mine, mover.index), frame(theirs, 1 - mover.index)


def _turn_may_end_at(turn: Turn, me: tuple[int, ...], opp: tuple[int, ...]) -> bool:
    """A necessary condition for a cascade's play to end at the board: it played the first k dice
    (in order: a cascade plays its stages' equal dice one after another), which carry the pips the
    board is ahead of the start (a die larger than needed to bear a checker off wastes all but
    one pip), and either k is all of them or the next die cannot move there: a play that could go
    on is not a play of the most dice. With rules that may end a play short of a possible move (a
    limit judged at its end, an obligation, the start rules' counts), it says yes."""
    frame, start = turn.frame, turn.start
    if frame.first_checker or frame.head_limit or frame.end_limits \
            or frame.opts.get("prime_rule", "none") != "none" \
            or any(len(set(stage)) > 1 for stage in turn.stages):
        return True
    dice = [die for stage in turn.stages for die in stage]
    board = Node(me, opp)
    cannot_move = {die for die in set(dice) if not frame.steps(board, die)}
    gained = sum(i * (now - then) for i, (then, now) in enumerate(zip(start.me, me)))
    borne_off = me[OFF] - start.me[OFF]
    for k, pips in enumerate(accumulate(dice, initial=0)):
        if k < borne_off or (k < len(dice) and dice[k] not in cannot_move):
            continue
        waste = sum(sorted(dice[:k])[k - borne_off:]) - borne_off if borne_off else 0
        if gained <= pips <= gained + waste:
            return True
    return False


def _ends_a_play(turn: Turn, me: tuple[int, ...], opp: tuple[int, ...], stage_ends) -> bool:
    stages = turn.stages
    most = None if turn.whole_cascade is None else turn.whole_cascade.most
    dice_from = [tuple(d for s in stages[i:] for d in s) for i in range(len(stages))]
    closed = frozenset(p for p in range(1, OFF) if turn.start.opp[p])   # nothing is hit: all stand
    tried: set[tuple[Node, int]] = set()

    def can_still_reach(node: Node, stage: int) -> bool:
        # The referee's own filter (forward moves of the dice to come, in order, onto open points,
        # the pips they carry): it must never rule out a board that can be reached. The answer
        # still comes from the engine's stage ends.
        return node.opp == opp and may_reach(node.me, me, dice_from[stage], closed)

    def unlike(end) -> int:
        return sum(abs(have - want) for have, want in zip(end.node.me, me))

    def search(node: Node, stage: int, used: int) -> bool:
        for end in sorted(stage_ends(node, stage), key=unlike):
            played = used + len(stages[stage]) - len(end.remaining)
            if end.result is None and not end.remaining and stage + 1 < len(stages):
                key = (end.node, stage + 1)
                if key not in tried and can_still_reach(end.node, stage + 1):
                    tried.add(key)
                    if search(end.node, stage + 1, played):
                        return True
            elif end.node.me == me and end.node.opp == opp and (
                    most is None or end.result is not None or played == most):
                return True
        return False

    return search(turn.start, 0, 0)
