"""Why the referee refuses a board: the rule, the points, the dice, as values the verdict carries.

The referee decides a board is illegal when no legal play of the roll leads to it; at that moment
(`Referee._illegal`) it records here which rule of shared/spec/rules.md the board breaks, tested
from the mover's checkers that left points (origins) and arrived on others (destinations), most
basic first. When no single rule explains the board (the checkers moved by legal single steps, but
not in an order or amount the roll allows), the last refusal says so, with where the referee's own
play tree starts the roll's legal plays. `referee.explain` only words these values; nothing else
reads the rules again. Pure.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable

from firmware_host.rules.plays import ROUTES
from firmware_host.rules.position import CHECKERS, WHITE, Color, Position
from firmware_host.rules.variants import VARIANTS, Rules, Variant

class Rule(enum.StrEnum):
    """The rule a refused board breaks. A str enum: it reads, prints and journals as its name."""

    ONLY_THE_MOVER_MOVES = "only_the_mover_moves"   # the opponent's checkers changed on `points` (none: the tray)
    BAR_FIRST = "bar_first"                  # a checker on the bar enters before any other moves
    BEARING_OFF = "bearing_off"              # borne off with checkers on `points` (none: the bar) outside `table`
    PINNED = "pinned"                        # the pinned checkers on `points` moved
    POINT_HELD = "point_held"                # landed on `points`, which `count` opposing checkers hold
    PINNER_HOLDS = "pinner_holds"            # landed on `points`, where `count` opposing checkers pin the mover's
    FIRST_CHECKER = "first_checker"          # a second checker left the start `points[1]` before one passed `points[0]`
    HEAD_RULE = "head_rule"                  # `count` checkers left the head `points`; `limit` may
    STARTING_TABLE = "starting_table"        # ends holding all six points of `owner`'s starting `table`
    OPPONENTS_TABLE = "opponents_table"      # ends holding `points` of the opponent's starting `table`: over 4
    PRIME = "prime"                          # ends holding six in a row, `points`, none of his ahead
    TOO_FAR = "too_far"                      # the checkers moved `count` pips; the dice allow `limit`
    NO_PLAY_AT_ALL = "no_play_at_all"        # the roll cannot be played: the board must stay
    NO_PLAY_FROM = "no_play_from"            # moved from `points`; the legal plays start from `table`
    NOT_BY_THE_DICE = "not_by_the_dice"      # the checkers moved from legal starts, but not by the dice
    NO_PLAY_LEADS_HERE = "no_play_leads_here"   # too many plays to say more (a cascade)
    OFF_THE_CHOSEN_PLAY = "off_the_chosen_play"  # a bot's turn: legal only on the way of its chosen play


@dataclass(frozen=True)
class Refusal:
    """One rule a board breaks, with what it names. Locations are in the position format ("bar", "1"
    .. "24"); a surface names them as the board labels them."""

    rule: Rule
    mover: Color
    variant: str
    dice: tuple[int, ...]
    points: tuple[str, ...] = ()     # the locations the rule names
    table: tuple[str, ...] = ()      # the points of a table (home, starting) or the legal starts
    count: int = 0                   # checkers or pips, as the rule counts them
    limit: int = 0                   # what the rule allows
    owner: Color | None = None       # whose starting table

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", Rule(self.rule))   # a rule given by name is checked

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rule": self.rule.value, "mover": self.mover.value}
        for name in ("points", "table"):
            if getattr(self, name):
                data[name] = list(getattr(self, name))
        for name in ("count", "limit"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.owner is not None:
            data["owner"] = self.owner.value
        return data


@dataclass(frozen=True)
class _Board:
    """The turn's start and the board read, as every check reads them: each side's (points, bar, off)
    before and after, and the points the mover's checkers left and arrived on."""

    start: Position
    dice: tuple[int, ...]
    rules: Rules
    before: tuple          # the mover's (points, bar, off) at the turn's start
    after: tuple           # ... on the board read
    other_before: tuple    # the opponent's
    other_after: tuple
    origins: tuple[int, ...]        # the points the mover's checkers left
    destinations: tuple[int, ...]   # ... and arrived on

    @classmethod
    def of(cls, start: Position, dice: tuple[int, ...], board: Any, rules: Rules) -> _Board:
        mover, other = start.turn, start.turn.opponent
        before, after = _counts(start, mover), _counts(board, mover)
        return cls(start, dice, rules, before, after, _counts(start, other), _counts(board, other),
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

    def refusal(self, rule: Rule, points: Iterable[int | str] = (), table: Iterable[int | str] = (),
                **values: Any) -> Refusal:
        return Refusal(rule, self.mover, self.start.variant, self.dice, tuple(map(str, points)),
                       tuple(map(str, table)), **values)


def _counts(board: Any, color: Color) -> tuple[tuple[int, ...], int, int]:
    """(points, bar, off) of `color` on a position or a reading."""
    points = board.white if color is WHITE else board.black
    return tuple(points), board.bar[color.index], board.off[color.index]


def _home(color: Color, parallel: bool) -> range:
    """The mover's home table (where bearing off starts): White's 1..6; Black's 19..24 in the
    contrary games, 13..18 in the parallel ones (Black starts on 12 and runs 12..1, 24..13)."""
    if color is WHITE:
        return range(1, 7)
    return range(13, 19) if parallel else range(19, 25)


def refusals(start: Position, dice: tuple[int, ...], board: Any, rules: Rules,
             legal_starts: frozenset[str] | None) -> tuple[Refusal, ...]:
    """The rules `board` (a reading: each side's points, bar and off) breaks, for `start.turn` to play
    `dice` from `start`. `legal_starts`: the locations from which the roll's legal plays move a
    checker, as the referee's play tree has them (None when it cannot list them: a cascade)."""
    checked = _Board.of(start, tuple(dice), board, rules)
    found = [refusal for check in _CHECKS for refusal in check(checked)]
    if not found:
        found += _too_far(checked)
    if not found:
        found.append(_no_play_leads_here(checked, legal_starts))
    return tuple(found)


def _only_the_mover_moves(board: _Board) -> list[Refusal]:
    """The opponent's checkers change only by being hit (to the bar, where the game has one)."""
    before, after, variant = board.other_before, board.other_after, board.variant
    hit_points = [p for p in range(1, 25) if after[0][p - 1] < before[0][p - 1]]
    moved_back = [p for p in range(1, 25) if after[0][p - 1] > before[0][p - 1]]
    hits = after[1] - before[1]
    if not (moved_back or after[2] != before[2] or (hit_points and not variant.has_bar)
            or len(hit_points) > max(hits, 0)):
        return []
    return [board.refusal(Rule.ONLY_THE_MOVER_MOVES, sorted(set(hit_points) | set(moved_back)))]


def _bar_first(board: _Board) -> list[Refusal]:
    if board.before[1] > 0 and board.after[1] == board.before[1] and board.origins:
        return [board.refusal(Rule.BAR_FIRST, ["bar"])]
    return []


def _bearing_off(board: _Board) -> list[Refusal]:
    before, after = board.before, board.after
    if after[2] <= before[2]:
        return []
    home = _home(board.mover, board.parallel)
    outside = [p for p in range(1, 25) if before[0][p - 1] and p not in home]
    if not (outside or before[1]):
        return []
    return [board.refusal(Rule.BEARING_OFF, outside, home, limit=CHECKERS)]


def _pinned(board: _Board) -> list[Refusal]:
    moved = [p for p in board.origins if board.variant.has_pins and board.start.pinned[p - 1] is board.mover]
    return [board.refusal(Rule.PINNED, moved)] if moved else []


def _held_points(board: _Board) -> list[Refusal]:
    variant, found = board.variant, []
    single_holds = not (variant.has_bar or variant.has_pins)
    for point in board.destinations:
        held = board.other_before[0][point - 1]
        pinner_on_top = variant.has_pins and board.start.pinned[point - 1] is board.mover
        if held >= 1 and pinner_on_top:
            found.append(board.refusal(Rule.PINNER_HOLDS, [point], count=held))
        elif held >= 2 or (held >= 1 and single_holds):
            found.append(board.refusal(Rule.POINT_HELD, [point], count=held, limit=1 if single_holds else 2))
    return found


def _start_rules(board: _Board) -> list[Refusal]:
    """The parallel games' rules about leaving the start point: the first checker (fevga, moultezim)
    and the head rule (narde)."""
    start, dice, rules = board.start, board.dice, board.rules
    before, after, mover = board.before, board.after, board.mover
    start_rule = rules.options.get("start_rule", "none")
    head = 24 if mover is WHITE else 12
    left_now = before[0][head - 1] - after[0][head - 1]
    if start_rule == "first_checker":
        # Passed the opponent's start: White on 11 or lower, Black on 13-23, or borne off.
        passed = range(1, 12) if mover is WHITE else range(13, 24)
        off_the_start = sum(after[0]) - after[0][head - 1]
        if left_now > 0 and off_the_start >= 2 and after[2] == 0 and not any(after[0][p - 1] for p in passed):
            return [board.refusal(Rule.FIRST_CHECKER, [12 if mover is WHITE else 24, head])]
    elif start_rule == "head_rule":
        doubles = len(dice) == 2 and dice[0] == dice[1]
        first_roll = start.rolls[mover.index] == 0
        allowed = 2 if doubles and first_roll and dice[0] in rules.options["head_rule_first_roll_doubles"] else 1
        if left_now > allowed:
            return [board.refusal(Rule.HEAD_RULE, [head], count=left_now, limit=allowed)]
    return []


def _starting_tables(board: _Board) -> list[Refusal]:
    """The parallel games' limits on starting tables, judged on the board a play ends in: fevga's
    (start_table_scope: not all six points of the own table, or of either with `both`) and moultezim's
    (prime_rule = opp_start_table_max4: not more than four points of the opponent's table)."""
    start, after, mover, rules = board.start, board.after, board.mover, board.rules
    route = ROUTES[(VARIANTS[start.variant].family, mover)]
    own, opponents = [route[f] for f in range(1, 7)], [route[f] for f in range(13, 19)]
    tables = {"own": ((own, mover),), "both": ((own, mover), (opponents, mover.opponent))}.get(
        rules.options.get("start_table_scope", "none"), ())
    found = [board.refusal(Rule.STARTING_TABLE, table=table, owner=owner)
             for table, owner in tables if all(after[0][p - 1] for p in table)]
    if rules.options.get("prime_rule") == "opp_start_table_max4":
        held = [p for p in opponents if after[0][p - 1]]
        if len(held) > 4:
            found.append(board.refusal(Rule.OPPONENTS_TABLE, held, opponents, count=len(held), limit=4,
                                       owner=mover.opponent))
    return found


def _prime_limit(board: _Board) -> list[Refusal]:
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
            return [board.refusal(Rule.PRIME, prime)]
    return []


def _too_far(board: _Board) -> list[Refusal]:
    """The mover's checkers went further than all the dice together (None when some left the board:
    bearing off may use more of a die than the distance)."""
    before, after, mover, dice = board.before, board.after, board.mover, board.dice
    if after[2] != before[2]:
        return []

    def to_go(points: tuple[int, ...], bar: int) -> int:
        if mover is WHITE:
            return sum(p * n for p, n in enumerate(points, 1)) + 25 * bar
        if board.parallel:   # black runs 12..1 then 24..13: point p has p + 12 pips to go when p <= 12
            return sum((p + 12 if p <= 12 else p - 12) * n for p, n in enumerate(points, 1)) + 25 * bar
        return sum((25 - p) * n for p, n in enumerate(points, 1)) + 25 * bar

    pips = to_go(*before[:2]) - to_go(*after[:2])
    allowed = sum(dice) * (2 if len(dice) == 2 and dice[0] == dice[1] else 1)
    return [board.refusal(Rule.TOO_FAR, count=pips, limit=allowed)] if pips > allowed else []


def _no_play_leads_here(board: _Board, legal_starts: frozenset[str] | None) -> Refusal:
    """No single rule: where the legal plays start, as the referee's play tree has them."""
    if legal_starts is None:
        return board.refusal(Rule.NO_PLAY_LEADS_HERE)
    held_at_start = [str(p) for p in range(1, 25) if board.before[0][p - 1]] + ["bar"] * bool(board.before[1])
    starts = [place for place in held_at_start if place in legal_starts]
    if not starts:
        return board.refusal(Rule.NO_PLAY_AT_ALL)
    wrong = [p for p in board.origins if str(p) not in starts]
    if wrong:
        return board.refusal(Rule.NO_PLAY_FROM, wrong, starts)
    return board.refusal(Rule.NOT_BY_THE_DICE)


# The rules checked in turn, most basic first.
_CHECKS = (_only_the_mover_moves, _bar_first, _bearing_off, _pinned, _held_points, _start_rules,
           _starting_tables, _prime_limit)
