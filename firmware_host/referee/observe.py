"""What the sensors can observe of a board, and the board such an observation stands for during a turn.

Sensors that weigh each location for its count and tell colour by a magnet under its first checker
(hardware/README.md) see, per point, how many checkers lie there and the colour of the bottom one —
on a pinned point the pinned checker's. They report `count` checkers of the bottom colour, but for a
full stack of 16, which can only be all 15 of one colour on a pinned checker of the other and is reported
as it lies (a snapshot carries at most 15 of a colour: `tavli_mcu.counting.reported`). Such a
report says less than (white, black) only on a point where both colours lie; the referee then judges
the board the observation stands for:

During a turn only the mover's checkers move; the opponent's stay where they stood at the turn's start
or are hit to the bar. So on a point whose bottom colour is the one it had at the start, the opponent
still has the checkers it had there and the rest of the count is the mover's (on a point where the
mover's checker is pinned too: his pinners stay); a point whose bottom colour changed holds only that
colour. `observe` maps any board to what the sensors would report and
`resolve` maps an observation back (a board off every legal path, such as a checker knocked onto
another point, is given a likely layout: a colour short of its 15 takes the top checkers of the points
shown in the other colour, those that gained most first, so guidance never asks for a checker from the hand that
lies on the board); tests/referee/test_observe.py checks over the play trees of every
variant that `resolve(observe(board), start) == board` for every board of a turn, so no two legal
boards of a turn look the same. Pure: no I/O.
"""
from __future__ import annotations

import dataclasses
import enum

from firmware_host.referee.judge import Reading
from firmware_host.referee.steps import HAND, Step
from firmware_host.rules.position import BLACK, CHECKERS, WHITE, Color, Position

FULL_STACK = CHECKERS + 1   # all of one colour on a pinned checker of the other: the most a point holds


class Sensing(str, enum.Enum):
    """What a sensor reports per location (the board file's `[sensors.mcu] colour_by`)."""

    COUNTS = "mass"               # white and black counts (colour by mass)
    BOTTOM_COLOUR = "magnet"      # the count, as checkers of the bottom one's colour


def bottom_colour(position: Position, index: int) -> Color | None:
    """The colour of the checker lying lowest on point `index + 1` (the pinned one on a pinned point)."""
    pinned = position.pinned[index]
    if pinned is not None:
        return pinned
    if position.white[index]:
        return WHITE
    return BLACK if position.black[index] else None


def observe(position: Position) -> Reading:
    """What bottom-colour sensors report for `position` (bar halves and trays hold one colour each)."""
    white, black = [0] * 24, [0] * 24
    for index in range(24):
        colour = bottom_colour(position, index)
        count = position.white[index] + position.black[index]
        if count == FULL_STACK:
            white[index], black[index] = position.white[index], position.black[index]
        elif colour is not None:
            (white if colour is WHITE else black)[index] = count
    return Reading(position.variant, tuple(white), tuple(black), position.bar, position.off)


def resolve(observed: Reading, start: Position, moving: bool = True) -> Reading:
    """The board that `observed` stands for during the turn that began at `start` (`start.turn` moves),
    or, not `moving`, while the players clear the board `start` for the next game (either colour moves;
    a pinned checker stays under its stack until the stack is gone).

    A point reported with both colours (sensors that count both) is taken as it is."""
    opponent = start.turn.opponent
    sides = [list(observed.white), list(observed.black)]
    white, black = sides
    for index in range(24):
        if white[index] and black[index]:
            continue
        count = white[index] + black[index]
        shown = WHITE if white[index] else BLACK
        if not count or shown is not bottom_colour(start, index):
            continue
        pinned = start.pinned[index]
        if pinned is not None and moving and pinned is start.turn:
            # The mover's checker pinned: its pinners cannot come or go in his turn, so whatever lies
            # above them is his (a checker laid there off every legal path).
            kept, stayed = opponent, min(start.count(opponent, index + 1), count - 1)
        elif pinned is not None:
            kept, stayed = pinned.opponent, count - 1
        elif moving:
            kept, stayed = opponent, min(start.count(opponent, index + 1), count)
        else:
            continue
        sides[kept.index][index], sides[kept.opponent.index][index] = stayed, count - stayed
    _balance(white, black, observed, start)
    return Reading(observed.variant, tuple(white), tuple(black), observed.bar, observed.off)


def unpinned(cleared: Position, observed: Reading) -> Position:
    """`cleared` (a board the players clear for the next game) less the pins that `observed` shows gone: a
    pinned point reported with one checker or none, or in the other colour, has no pinner on it any more.
    Kept from one reading to the next, since a checker put there later lies where the pinner did and
    looks the same to the sensors."""
    pins = tuple(None if pin is None or observed.white[index] + observed.black[index] <= 1
                 or not (observed.white, observed.black)[pin.index][index] else pin
                 for index, pin in enumerate(cleared.pinned))
    return cleared if pins == cleared.pinned else dataclasses.replace(cleared, pinned=pins)


def unstacked(steps: tuple[Step, ...], board: Reading, target: Position | None = None,
              seen: Reading | None = None) -> tuple[Step, ...]:
    """`steps` from `board` reordered so that no checker is put on a point that still holds the other
    colour (magnet sensors see only the bottom of such a stack) unless `target` has the other colour
    pinned there (a pinning game's board during play), and none is taken from under the other colour
    (a pinned checker on the board being cleared: nobody can, and the sensors could not tell). Where every
    step waits for another (a checker covered by one that stays, two colours that need each other's
    points cleared first, or a checker to be pinned under one that lies there already), a checker is
    parked first on an empty point no waiting checker of the other colour needs, or on its own bar if
    there is none. `seen`: what the sensors report of `board`, whose colour on a point holding both is the
    bottom one's; without it, the colour with fewer checkers there lies at the bottom, as a pinned one does."""
    counts = {color: dict(sides) for color, sides in board.counts().items()}
    under = {str(point): _bottom(board, seen, point - 1) for point in range(1, 25)
             if board.white[point - 1] and board.black[point - 1]}
    left, ordered = list(steps), []
    while left:
        step = next((s for s in left if _observable(s, counts, under, target)), None)
        if step is None:
            step = _parking(left, counts, under, target)
        else:
            left.remove(step)
        ordered.append(step)
        if step.origin != HAND:
            counts[step.color][step.origin] = counts[step.color].get(step.origin, 0) - 1
            if not counts[step.color][step.origin]:
                under.pop(step.origin, None)
        if step.destination != HAND:
            # Only points stack: each colour's bar and tray is its own (their counts share a name).
            if step.destination.isdigit() and counts[step.color.opponent].get(step.destination) \
                    and not counts[step.color].get(step.destination):
                under[step.destination] = step.color.opponent
            counts[step.color][step.destination] = counts[step.color].get(step.destination, 0) + 1
    return tuple(ordered)


def _bottom(board: Reading, seen: Reading | None, index: int) -> Color:
    """The colour at the bottom of point `index + 1`, which holds both colours: the one `seen` shows, or
    where it shows both (a full stack, or sensors that count both), the one with fewer there, as a pinned
    checker is."""
    if seen is not None and not (seen.white[index] and seen.black[index]):
        return WHITE if seen.white[index] else BLACK
    return WHITE if board.white[index] < board.black[index] else BLACK


def _covered(step: Step, counts: dict[Color, dict[str, int]], under: dict[str, Color],
             target: Position | None) -> bool:
    """Whether `step`'s checker lies under the other colour where it is taken. The bottom colour lies
    below the other, but where the target pins it the pinned checker is a lone one, and any more of
    its colour there were laid on top of the pinners (a checker moved onto them off every legal path)."""
    bottom = under.get(step.origin)
    if bottom is None:
        return False
    laid_on_top = target is not None and step.origin.isdigit() \
        and target.pinned[int(step.origin) - 1] is bottom and counts[bottom][step.origin] > 1
    return (step.color is bottom) != laid_on_top


def _observable(step: Step, counts: dict[Color, dict[str, int]], under: dict[str, Color],
                target: Position | None) -> bool:
    """Whether the board after `step` still shows every point as it is: its checker is on top where it
    is taken, lands on no other colour, except on top of the checker the target pins there, and on none
    before it where it is pinned."""
    if _covered(step, counts, under, target):
        return False
    if not step.destination.isdigit():
        return True
    point, below = int(step.destination), counts[step.color.opponent].get(step.destination, 0)
    pins = target is not None and target.pinned[point - 1] is step.color.opponent
    if pins:   # the pinned checker goes down first
        return below == target.count(step.color.opponent, point)
    return not below


def _parking(left: list[Step], counts: dict[Color, dict[str, int]], under: dict[str, Color],
             target: Position | None) -> Step:
    """A checker parked out of the way when every step in `left` waits: the top checker over a waiting
    step's checker, or the checker of a waiting step that stands where the other colour waits to go (two
    colours that need each other's points), or else the top checker on a point where the target pins a
    waiting step's checker under the other colour. It goes to the nearest empty point no waiting step of
    the other colour goes to, or to its own bar if there is none, and the step that takes it on from
    there (back where it stood, for a covering checker with nowhere else to go) joins `left`. With none
    of these, the first step as it is."""
    wanted = {(s.color, s.destination) for s in left}
    covered = next((s for s in left if _covered(s, counts, under, target)), None)
    blocking = next((s for s in left if s.origin.isdigit() and (s.color.opponent, s.origin) in wanted), None)
    if covered is not None:
        color, origin = covered.color.opponent, covered.origin
        onward = next((s for s in left if s.color is color and s.origin == origin), None)
        destination = origin if onward is None else onward.destination
        if onward is not None:
            left.remove(onward)
    elif blocking is not None:
        color, origin, destination = blocking.color, blocking.origin, blocking.destination
        left.remove(blocking)
    else:
        pinning = next((s for s in left if s.destination.isdigit() and target is not None
                        and target.pinned[int(s.destination) - 1] is s.color), None)
        if pinning is None:
            return left.pop(0)
        color, origin = pinning.color.opponent, pinning.destination
        destination = origin
    empty = [str(p) for p in range(1, 25) if not counts[WHITE].get(str(p)) and not counts[BLACK].get(str(p))
             and (color.opponent, str(p)) not in wanted]
    park = min(empty, key=lambda p: abs(int(p) - int(origin)), default="bar")
    left.append(Step(color, park, destination))
    return Step(color, origin, park)


def _balance(white: list[int], black: list[int], observed: Reading, start: Position) -> None:
    """Give a colour short of its checkers the top ones of the points shown in the other colour that
    hold more than one: first those where it stood at `start`, then those that gained most since."""
    sides = (white, black)
    totals = [sum(white) + observed.bar[0] + observed.off[0], sum(black) + observed.bar[1] + observed.off[1]]
    for short in (WHITE, BLACK):
        shorts, longs = sides[short.index], sides[short.opponent.index]
        missing = min(CHECKERS - totals[short.index], totals[short.opponent.index] - CHECKERS)
        gained = {index: longs[index] - start.white[index] - start.black[index]
                  for index in range(24) if longs[index] > 1 and not shorts[index]}
        had_short = (start.white, start.black)[short.index]
        for index in sorted(gained, key=lambda i: (had_short[i] > 0, gained[i]), reverse=True):
            moved = min(missing, longs[index] - 1)
            if moved <= 0:
                break
            shorts[index], longs[index] = moved, longs[index] - moved
            missing -= moved
