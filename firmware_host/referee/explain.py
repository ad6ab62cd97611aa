"""Why a board is not a legal play, in the words of the rule it breaks.

    explain(start, dice, reading, rules)   # ["Only white's checkers move in white's turn: ...", ...]

The referee's verdict says *that* a reading is illegal and how to put it right; a player who
disputes it wants to know *why*. Each check below is one rule of shared/spec/rules.md, tested from
the mover's checkers that left points (origins) and arrived on others (destinations). The first rules
broken are named, most basic first; when none of them explains the board (the checkers moved by legal
single steps, but not in an order or amount the roll allows), the last line says so. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from firmware_host.referee.judge import Reading
from firmware_host.rules import CHECKERS, Color, Position, Rules
from firmware_host.rules.plays import ROUTES, TooManyPlays, Turn, dice_text
from firmware_host.rules.variants import VARIANTS, Variant

# Past this many plays (a gulbara cascade) the plays are not listed to compare with.
MOST_PLAYS_COMPARED = 500


def _counts(board: Position | Reading, color: Color) -> tuple[tuple[int, ...], int, int]:
    points = board.white if color is Color.WHITE else board.black
    index = 0 if color is Color.WHITE else 1
    return tuple(points), board.bar[index], board.off[index]


def _home(color: Color, parallel: bool) -> range:
    """The mover's home table (where bearing off starts): White's 1..6; Black's 19..24 in the
    contrary games, 13..18 in the parallel ones (Black starts on 12 and runs 12..1, 24..13)."""
    if color is Color.WHITE:
        return range(1, 7)
    return range(13, 19) if parallel else range(19, 25)


@dataclass(frozen=True)
class _Board:
    """The turn's start and the board read, as every check reads them: each side's (points, bar, off)
    before and after, and the points the mover's checkers left and arrived on."""

    start: Position
    dice: tuple[int, ...]
    reading: Reading
    rules: Rules
    label: Callable[[int], str]
    before: tuple          # the mover's (points, bar, off) at the turn's start
    after: tuple           # ... on the board read
    other_before: tuple    # the opponent's
    other_after: tuple
    origins: tuple[int, ...]        # the points the mover's checkers left
    destinations: tuple[int, ...]   # ... and arrived on

    @classmethod
    def of(cls, start: Position, dice: tuple[int, ...], reading: Reading, rules: Rules,
           label: Callable[[int], str]) -> _Board:
        mover, other = start.turn, start.turn.opponent
        before, after = _counts(start, mover), _counts(reading, mover)
        return cls(start, dice, reading, rules, label, before, after, _counts(start, other), _counts(reading, other),
                   tuple(p for p in range(1, 25) if after[0][p - 1] < before[0][p - 1]),
                   tuple(p for p in range(1, 25) if after[0][p - 1] > before[0][p - 1]))

    @property
    def mover(self) -> Color:
        return self.start.turn

    @property
    def other(self) -> Color:
        return self.start.turn.opponent

    @property
    def variant(self) -> Variant:
        return VARIANTS[self.start.variant]

    @property
    def parallel(self) -> bool:
        return self.variant.family.name == "PARALLEL"

    def where(self, points: Iterable[int | str]) -> str:
        """Points as a person finds them (`label`), "bar" as it is, listed in words."""
        names = [self.label(point) if isinstance(point, int) else point for point in points]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def explain(start: Position, dice: Iterable[int], reading: Reading, rules: Rules,
            label: Callable[[int], str] = str) -> list[str]:
    """The rules the board `reading` breaks, for `start.turn` to play `dice` from `start`. `label(point)`
    names a point as the person reading it finds it on the board (default: the position format's number)."""
    board = _Board.of(start, tuple(dice), reading, rules, label)
    reasons = [reason for check in _CHECKS for reason in check(board)]
    pips = _pips_moved(board.before, board.after, board.mover, board.parallel)
    allowed = sum(board.dice) * (2 if len(board.dice) == 2 and board.dice[0] == board.dice[1] else 1)
    if pips is not None and pips > allowed and not reasons:
        reasons.append(f"The checkers moved {pips} pips; {dice_text(board.dice)} allows at most {allowed}.")
    if not reasons:
        reasons += _mother_stops_nothing(board)
    if not reasons:
        reasons.append(_no_play_explains(board))
    return reasons


def _checker_counts(board: _Board) -> list[str]:
    """Each side has all its checkers on the board, the bar and the tray."""
    reasons = []
    before, after, mover = board.before, board.after, board.mover
    missing = sum(before[0]) + before[1] + before[2] - (sum(after[0]) + after[1] + after[2])
    if missing:
        reasons.append(f"{abs(missing)} {mover} checker{'s' if abs(missing) > 1 else ''} "
                       f"{'missing from' if missing > 0 else 'too many on'} the board: each side has {CHECKERS}.")
    other_total = sum(board.other_after[0]) + board.other_after[1] + board.other_after[2]
    if other_total != sum(board.other_before[0]) + board.other_before[1] + board.other_before[2]:
        reasons.append(f"{board.other} has {other_total} checkers on the board, not {CHECKERS}.")
    return reasons


def _only_the_mover_moves(board: _Board) -> list[str]:
    """The opponent's checkers change only by being hit (to the bar, where the game has one)."""
    before, after, variant = board.other_before, board.other_after, board.variant
    hit_points = [p for p in range(1, 25) if after[0][p - 1] < before[0][p - 1]]
    moved_back = [p for p in range(1, 25) if after[0][p - 1] > before[0][p - 1]]
    hits = after[1] - before[1]
    if not (moved_back or after[2] != before[2] or (hit_points and not variant.has_bar)
            or len(hit_points) > max(hits, 0)):
        return []
    changed = sorted(set(hit_points) | set(moved_back))
    return [f"Only {board.mover}'s checkers move in {board.mover}'s turn: {board.other}'s checkers changed"
            + (f" on {board.where(changed)}." if changed else " in the tray.")]


def _bar_first(board: _Board) -> list[str]:
    if board.before[1] > 0 and board.after[1] == board.before[1] and board.origins:
        return [f"{board.mover} has a checker on the bar: it must enter the opponent's home table before "
                "any other checker moves."]
    return []


def _bearing_off(board: _Board) -> list[str]:
    before, after, mover = board.before, board.after, board.mover
    if after[2] <= before[2]:
        return []
    home = _home(mover, board.parallel)
    outside = [p for p in range(1, 25) if before[0][p - 1] and p not in home]
    if not (outside or before[1]):
        return []
    return [f"Bearing off starts only once all {CHECKERS} of {mover}'s checkers are in the home table "
            f"({board.label(home.start)}-{board.label(home.stop - 1)}); at the turn's start "
            + (f"{mover} still had checkers on {board.where(outside)}." if outside else "one was on the bar.")]


def _pinned(board: _Board) -> list[str]:
    moved = [p for p in board.origins if board.variant.has_pins and board.start.pinned[p - 1] is board.mover]
    if not moved:
        return []
    return [f"The {board.mover} checker on {board.where(moved)} is pinned by {board.other}: a pinned checker "
            "cannot move until every pinning checker has left the point."]


def _held_points(board: _Board) -> list[str]:
    variant, reasons = board.variant, []
    single_holds = not (variant.has_bar or variant.has_pins)
    for point in board.destinations:
        held = board.other_before[0][point - 1]
        pinner_on_top = variant.has_pins and board.start.pinned[point - 1] is board.mover
        if held >= 2 or (held >= 1 and (pinner_on_top or single_holds)):
            reasons.append(f"Point {board.label(point)} is held by {board.other} ({held} checker{'s' if held > 1 else ''}): "
                           f"{board.mover} may not land there"
                           f"{' (in ' + board.start.variant + ' a single checker holds a point)' if single_holds else ''}.")
    return reasons


def _start_rules(board: _Board) -> list[str]:
    """The parallel games' rules about leaving the start point: the first checker (fevga, moultezim)
    and the head rule (narde)."""
    start, dice, before, after, mover, rules = board.start, board.dice, board.before, board.after, board.mover, board.rules
    start_rule = rules.options.get("start_rule", "none")
    if start_rule == "none":
        return []
    head = 24 if mover is Color.WHITE else 12
    left_now = before[0][head - 1] - after[0][head - 1]
    if start_rule == "first_checker":
        # Passed the opponent's start: White on 11 or lower, Black on 13-23, or borne off.
        passed = range(1, 12) if mover is Color.WHITE else range(13, 24)
        off_the_start = sum(after[0]) - after[0][head - 1]
        if left_now > 0 and off_the_start >= 2 and after[2] == 0 and not any(after[0][p - 1] for p in passed):
            opponent_start = 12 if mover is Color.WHITE else 24
            return [f"The first checker has not passed the opponent's start ({board.label(opponent_start)}) yet: until "
                    f"one has, no second {mover} checker may leave the start point ({board.label(head)})."]
        return []
    if start_rule == "head_rule":
        doubles = len(dice) == 2 and dice[0] == dice[1]
        first_roll = start.rolls[0 if mover is Color.WHITE else 1] == 0
        allowed = 2 if doubles and first_roll and dice[0] in rules.options["head_rule_first_roll_doubles"] else 1
        if left_now > allowed:
            return [f"Head rule: only {allowed} checker{'s' if allowed > 1 else ''} may leave the head "
                    f"({board.label(head)}) in a turn; {left_now} left it."]
    return []


def _mother_stops_nothing(board: _Board) -> list[str]:
    """The mother rule judged at the end of the turn (mother_check = end_of_turn): a play that stops on
    pinning the opponent's last checker on his start, with dice still to play, as if the game had ended
    there (it would have, judged after every move)."""
    start, dice, reading, rules = board.start, board.dice, board.reading, board.rules
    if not rules.options.get("mother_rule") or rules.options.get("mother_check") != "end_of_turn":
        return []
    other = start.turn.opponent
    mother = ROUTES[(VARIANTS[start.variant].family, other)][1]
    if not (_counts(reading, other)[0][mother - 1] == 1 and _counts(reading, start.turn)[0][mother - 1]):
        return []
    every_move = Rules.for_variant(start.variant, {**rules.changed(), "mother_check": "every_move"})
    try:
        ends_there = any(Reading.of(play.position) == reading
                         for play in Turn(start, dice, every_move).plays(limit=MOST_PLAYS_COMPARED))
    except TooManyPlays:
        return []
    if not ends_there:
        return []
    return [f"The mother rule is judged at the end of the turn: pinning {other}'s last checker on its start "
            f"({board.label(mother)}) ends the game only if it is still pinned once all of {dice_text(dice)} that can be "
            "played has been played."]


def _starting_tables(board: _Board) -> list[str]:
    """The parallel games' limits on starting tables, judged on the board a play ends in: fevga's
    (start_table_scope: not all six points of the own table, or of either with `both`) and moultezim's
    (prime_rule = opp_start_table_max4: not more than four points of the opponent's table)."""
    start, after, mover, rules = board.start, board.after, board.mover, board.rules
    route = ROUTES[(VARIANTS[start.variant].family, mover)]
    own, opponents = [route[f] for f in range(1, 7)], [route[f] for f in range(13, 19)]
    tables = {"own": ((own, mover),), "both": ((own, mover), (opponents, mover.opponent))}.get(
        rules.options.get("start_table_scope", "none"), ())
    reasons = [f"{mover} may not end a play holding all six points of {owner}'s starting table ({board.where(table)})."
               for table, owner in tables if all(after[0][p - 1] for p in table)]
    if rules.options.get("prime_rule") == "opp_start_table_max4":
        held = [p for p in opponents if after[0][p - 1]]
        if len(held) > 4:
            reasons.append(f"{mover} may not end a play holding more than four of the six points of "
                           f"{mover.opponent}'s starting table ({board.where(opponents)}); it holds {board.where(held)}.")
    return reasons


def _prime_limit(board: _Board) -> list[str]:
    """Narde's prime limit (prime_rule = no_prime_without_opponent_ahead): the play ends holding six
    points in a row along the opponent's path, at least one of them newly, with none of his checkers
    ahead of them."""
    start, before, after, other_after, mover, rules = (board.start, board.before, board.after, board.other_after,
                                                       board.mover, board.rules)
    if rules.options.get("prime_rule") != "no_prime_without_opponent_ahead":
        return []
    route = ROUTES[(VARIANTS[start.variant].family, mover.opponent)][1:]   # his path, board points
    for first in range(len(route) - 5):
        prime = route[first:first + 6]
        if all(after[0][p - 1] for p in prime) and not all(before[0][p - 1] for p in prime) \
                and not any(other_after[0][p - 1] for p in route[first + 6:]):
            return [f"{mover} may not end a play holding six points in a row ({board.where(prime)}) with no {mover.opponent} "
                    f"checker ahead of them on {mover.opponent}'s path."]
    return []


def _pips_moved(before, after, mover: Color, parallel: bool) -> int | None:
    """How far the mover's checkers went in all (None when some left the board: bearing off may
    use more of a die than the distance)."""
    if after[2] != before[2]:
        return None

    def to_go(points: tuple[int, ...], bar: int) -> int:
        if mover is Color.WHITE:
            return sum(p * n for p, n in enumerate(points, 1)) + 25 * bar
        if parallel:   # black runs 12..1 then 24..13: point p has p + 12 pips to go when p <= 12
            return sum((p + 12 if p <= 12 else p - 12) * n for p, n in enumerate(points, 1)) + 25 * bar
        return sum((25 - p) * n for p, n in enumerate(points, 1)) + 25 * bar

    return to_go(*before[:2]) - to_go(*after[:2])


def _no_play_explains(board: _Board) -> str:
    start, dice, rules, before = board.start, board.dice, board.rules, board.before
    held_at_start = [str(p) for p in range(1, 25) if before[0][p - 1]] + ["bar"] * bool(before[1])
    roll = dice_text(dice)
    try:
        plays = Turn(start, dice, rules).plays(limit=MOST_PLAYS_COMPARED)
    except TooManyPlays:
        return f"No legal play of {roll} leads to this board."
    starts = [place for place in held_at_start if any(move.origin == place for play in plays for move in play.moves)]
    if not starts:
        return f"{roll} cannot be played at all: the board must stay as it was."
    used_up = "; the whole roll must be played where it can be (the larger die when only one can)"
    wrong = [p for p in board.origins if str(p) not in starts]
    if wrong:
        return (f"No legal play of {roll} moves a checker from {board.where(wrong)}: the legal plays start from "
                f"{board.where(int(p) if p.isdigit() else p for p in starts)}{used_up}.")
    return f"No legal play of {roll} leads to this board: the checkers moved, but not by the dice{used_up}."


# The rules checked in turn, most basic first.
_CHECKS = (_checker_counts, _only_the_mover_moves, _bar_first, _bearing_off, _pinned, _held_points, _start_rules,
           _starting_tables, _prime_limit)
