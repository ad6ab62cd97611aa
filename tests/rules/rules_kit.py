"""Test support for the rules engine, written from the rule texts, not from the engine.

/work/shared/spec/rules.md (binding), rules-dossier.md (evidence, test situations T01-T64) and
position-json.md (the format). Everything here is an independent second reading of those texts:

* `pos(...)`          builds a position from {point: count} dicts and fills `off` up to 15 a side;
* `after(p, "24/18 13/11*")` applies moves written in the dossier's notation (§0.2);
* `Board`             a tiny board model with its own geometry (routes, home boards, closing rule);
* `model_plays(...)`  an independent brute-force generator of the legal outcomes of every game:
                      plays dice one at a time, applies the parallel games' turn rules (first
                      checker, head rule, starting tables, prime rules, unblock), keeps the plays
                      using the most dice and applies the higher-die rule (rules.md "Common
                      rules"); gul bara cascades stage by stage (without turn restrictions);
* `replay(...)`       applies a Play's moves one by one, checking each against the board before it;
* `describe(...)`     a short readable text of a board, so failing set comparisons are legible.

The model is itself tested: every dossier case runs against it as well as against the engine
(the `generate` fixture of conftest.py).

Positions are compared by `Position.board_key()` (everything but turn and roll counts), as
position-json.md says: "Two plays are the same play when they end in the same canonical position".
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from firmware_host.rules import BLACK, WHITE, Color, Position, legal_plays

CHECKERS = 15
ALL_VARIANTS = ("portes", "tavla", "plakoto", "tapa", "neverfinishing",
                "fevga", "moultezim", "gulbara", "narde")
CONTRARY = ("portes", "tavla", "plakoto", "tapa", "neverfinishing")
PARALLEL = ("fevga", "moultezim", "gulbara", "narde")
HITTING = ("portes", "tavla", "neverfinishing")     # rules.md: bar in portes, tavla, neverfinishing
PINNING = ("plakoto", "tapa", "neverfinishing")     # "Pins (plakoto, tapa, neverfinishing)"

# -- geometry (rules.md "Contrary: White 24 -> 1, Black 1 -> 24 (home 19-24). Parallel: both
#    counter-clockwise, Black 12 -> 1 -> 24 -> 13 (home 13-18)") ---------------------------------

WHITE_ROUTE = tuple(range(24, 0, -1))
BLACK_CONTRARY_ROUTE = tuple(range(1, 25))
BLACK_PARALLEL_ROUTE = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))


def route(variant: str, color: Color) -> tuple[int, ...]:
    """The 24 points in the order `color` travels them; index 18..23 is his home board."""
    if color is WHITE:
        return WHITE_ROUTE
    return BLACK_PARALLEL_ROUTE if variant in PARALLEL else BLACK_CONTRARY_ROUTE


def home_points(variant: str, color: Color) -> tuple[int, ...]:
    return route(variant, color)[18:]


def start_point(variant: str, color: Color) -> int:
    """Where a side's single stack starts (24 / 1 contrary, 24 / 12 parallel)."""
    return route(variant, color)[0]


def starting_table(color: Color) -> tuple[int, ...]:
    """Parallel games: "Starting tables in the parallel games: White 19-24, Black 7-12"."""
    return tuple(range(19, 25)) if color is WHITE else tuple(range(7, 13))


def as_color(value) -> Color:
    return value if isinstance(value, Color) else Color(value)


# -- building positions ------------------------------------------------------------------------------

def pos(variant: str, white: Mapping[int, int] | None = None, black: Mapping[int, int] | None = None,
        *, turn: str | Color = "white", pinned: Mapping[int, str] | None = None,
        bar: tuple[int, int] = (0, 0), off: tuple[int | None, int | None] = (None, None),
        rolls: tuple[int, int] = (0, 0)) -> Position:
    """A position through the JSON reader; `off` defaults to whatever makes 15 a side.

    A pinned stack such as the dossier's `10:[B,W]` is white={10: 1}, black={10: 1},
    pinned={10: "black"} (the colour trapped underneath).
    """
    white, black = dict(white or {}), dict(black or {})
    sides = {}
    for name, points, n_bar, n_off in (("white", white, bar[0], off[0]),
                                       ("black", black, bar[1], off[1])):
        on_board = sum(points.values()) + n_bar
        if n_off is None:
            n_off = CHECKERS - on_board
        assert n_off >= 0 and on_board + n_off == CHECKERS, f"fixture: {name} has {on_board} + {n_off}"
        sides[name] = {"points": {str(p): n for p, n in points.items()}, "bar": n_bar, "off": n_off}
    data = {"variant": variant, "turn": as_color(turn).value, **sides,
            "rolls": {"white": rolls[0], "black": rolls[1]}}
    if pinned:
        data["pinned"] = {str(p): as_color(c).value for p, c in pinned.items()}
    return Position.from_json(data)


# -- an independent board model ----------------------------------------------------------------------

@dataclass(frozen=True)
class Board:
    variant: str
    white: tuple[int, ...]
    black: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]
    pinned: tuple[Color | None, ...]

    @classmethod
    def of(cls, position: Position) -> "Board":
        return cls(position.variant, tuple(position.white), tuple(position.black),
                   tuple(position.bar), tuple(position.off), tuple(position.pinned))

    def key(self) -> tuple:
        """Same layout as Position.board_key()."""
        return (self.white, self.black, self.bar, self.off, self.pinned)

    def counts(self, color: Color) -> tuple[int, ...]:
        return self.white if color is WHITE else self.black

    def n(self, color: Color, point: int) -> int:
        return self.counts(color)[point - 1]

    def total(self, color: Color) -> int:
        i = 0 if color is WHITE else 1
        return sum(self.counts(color)) + self.bar[i] + self.off[i]

    def to_position(self, turn: Color = WHITE, rolls: tuple[int, int] = (0, 0)) -> Position:
        return pos(self.variant,
                   {p: n for p, n in enumerate(self.white, 1) if n},
                   {p: n for p, n in enumerate(self.black, 1) if n},
                   turn=turn, bar=self.bar, off=self.off, rolls=rolls,
                   pinned={p: c for p, c in enumerate(self.pinned, 1) if c is not None})

    # the closing rule, rules.md table "closes a point" ----------------------------------------------
    def closed_to(self, color: Color, point: int) -> bool:
        """Whether `color` may not land or touch down on `point`."""
        opp = self.n(color.opponent, point)
        if self.variant in PARALLEL:
            return opp >= 1                                   # "1+"
        if opp >= 2:
            return True                                       # "2+"
        # plakoto/tapa/neverfinishing: "or 1 that pins" - a lone opposing checker holding one of ours
        return self.variant in PINNING and opp == 1 and self.pinned[point - 1] is color

    def lone_opponent(self, color: Color, point: int) -> bool:
        """A lone opposing checker that is not itself pinning anything: hit / pin / choice."""
        return (self.variant in CONTRARY and self.n(color.opponent, point) == 1
                and self.pinned[point - 1] is None)

    def may_bear_off(self, color: Color, pinned_blocks: bool = True) -> bool:
        """rules.md: all 15 in the home board; a pinned checker of yours anywhere blocks it."""
        i = 0 if color is WHITE else 1
        if self.bar[i]:
            return False
        home = set(home_points(self.variant, color))
        if any(n and p not in home for p, n in enumerate(self.counts(color), 1)):
            return False
        if pinned_blocks and color in self.pinned:
            return False
        return True

    # applying one die's move -------------------------------------------------------------------------
    def move(self, color: Color, origin: str, destination: str, capture: str | None = None) -> "Board":
        """Move one checker of `color`; `capture` is "hit" or "pin" when landing on a lone checker."""
        i = 0 if color is WHITE else 1
        mine, theirs = list(self.counts(color)), list(self.counts(color.opponent))
        bar, off, pinned = list(self.bar), list(self.off), list(self.pinned)
        if origin == "bar":
            assert bar[i] > 0, f"{color} has no checker on the bar"
            bar[i] -= 1
        else:
            o = int(origin)
            assert mine[o - 1] > 0, f"{color} has no checker on {o}"
            assert pinned[o - 1] is not color, f"{color}'s checker on {o} is pinned"
            mine[o - 1] -= 1
            if pinned[o - 1] is color.opponent and mine[o - 1] == 0:
                pinned[o - 1] = None                          # "freed when all pinning checkers have left"
        if destination == "off":
            off[i] += 1
        else:
            d = int(destination)
            if self.lone_opponent(color, d):
                if capture is None:
                    capture = {"portes": "hit", "tavla": "hit", "plakoto": "pin", "tapa": "pin"}.get(
                        self.variant)
                assert capture in ("hit", "pin"), f"landing on a lone checker on {d} needs * or ^"
                if capture == "hit":
                    theirs[d - 1] = 0
                    bar[1 - i] += 1
                else:
                    pinned[d - 1] = color.opponent
            else:
                assert capture is None, f"nothing to capture on {d}"
            mine[d - 1] += 1
        white, black = (mine, theirs) if color is WHITE else (theirs, mine)
        return replace(self, white=tuple(white), black=tuple(black), bar=tuple(bar), off=tuple(off),
                       pinned=tuple(pinned))


# -- the dossier's move notation ---------------------------------------------------------------------

_TOKEN = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<times>\d)\))?$")


def after(position: Position, notation: str, color: Color | None = None) -> Position:
    """The board after moves such as "bar/23* bar/23 23/21(2)", "20/16^ 24/23", "5/off".

    `*` = hit, `^` = trap (pin) on that landing; a landing on a lone checker without a mark hits
    in portes/tavla and pins in plakoto/tapa (neverfinishing needs the mark). "a/b" moves one
    checker from a to b directly (the intermediate touch-down only matters for a hit, so a hit on
    a touch-down is written out, e.g. "20/16*/15"). Returns a Position with the same turn.
    """
    color = color or position.turn
    board = Board.of(position)
    for token in notation.replace(",", " ").split():
        match = _TOKEN.match(token)
        assert match, token
        points = match["path"].split("/")
        for _ in range(int(match["times"] or 1)):
            for origin, destination in zip(points, points[1:]):
                capture = {"*": "hit", "^": "pin"}.get(destination[-1])
                board = board.move(color, origin.rstrip("*^"), destination.rstrip("*^"), capture)
    return board.to_position(position.turn, position.rolls)


# -- readable comparison ---------------------------------------------------------------------------

def describe(item) -> str:
    """'W{24:12 20:2} B{1:14 16:1} bar0/1 off0/0 pin{16:b}' for a Position, Board or Play."""
    if hasattr(item, "position") and hasattr(item, "moves"):
        item = item.position
    board = item if isinstance(item, Board) else Board.of(item)

    def side(counts):
        return " ".join(f"{p}:{n}" for p, n in sorted(enumerate(counts, 1), reverse=True) if n)

    text = (f"W{{{side(board.white)}}} B{{{side(board.black)}}} "
            f"bar{board.bar[0]}/{board.bar[1]} off{board.off[0]}/{board.off[1]}")
    pins = {p: c for p, c in enumerate(board.pinned, 1) if c is not None}
    if pins:
        text += " pin{" + " ".join(f"{p}:{c.value[0]}" for p, c in sorted(pins.items())) + "}"
    return text


def outcomes(position: Position, dice, options=None) -> set[str]:
    """The engine's legal outcomes as readable texts (a set: plays are distinct by position)."""
    return {describe(p) for p in legal_plays(position, dice, options)}


def finals(position: Position, *notations: str) -> set[str]:
    """Expected outcomes from dossier notation ("" = no move)."""
    return {describe(after(position, n)) for n in notations}


def boards(*positions: Position) -> set[str]:
    return {describe(p) for p in positions}


# -- an independent brute-force move generator -------------------------------------------------------
#
# rules.md, "Common rules": the dice are separate moves, touch-downs must be open, use as many dice
# as possible, the higher die if only one can be played; "Game-specific restrictions (first
# checker, head, starting table, prime limits) apply first; the maximisation is over the plays
# that respect them". So: every state reachable die by die (respecting the per-move rules) is a
# candidate play, the end-of-turn rules filter the candidates, then the most dice win.

DEFAULTS = {
    "higher_die_rule": True, "pinned_blocks_bearoff": True, "entry_may_trap": True,
    "first_checker_release_at": "past_start", "first_checker_release_timing": "immediate",
    "head_rule_first_roll_doubles": frozenset({3, 4, 6}), "start_table_check": "end_of_turn",
    "unblock_precedence": "max_dice_first", "gulbara_protected_turns": 3,
    "gulbara_protected_scope": "game", "gulbara_cascade_maximize": "per_stage",
}
PER_GAME_DEFAULTS = {   # rules.md table + house-rule defaults (dossier §5)
    "no_hit_and_run_in_home": {"tavla": True},
    "start_rule": {"fevga": "first_checker", "moultezim": "first_checker", "narde": "head_rule"},
    "start_table_scope": {"fevga": "own"},
    "prime_rule": {"fevga": "unblock_all_on_one_point", "moultezim": "opp_start_table_max4",
                   "narde": "no_prime_without_opponent_ahead"},
    "cascading_doubles": {"gulbara": True},
}
PER_GAME_FALLBACK = {"no_hit_and_run_in_home": False, "start_rule": "none", "start_table_scope": "none",
                     "prime_rule": "none", "cascading_doubles": False}


def model_options(variant: str, options: Mapping | None) -> dict:
    opts = dict(DEFAULTS)
    for name, table in PER_GAME_DEFAULTS.items():
        opts[name] = table.get(variant, PER_GAME_FALLBACK[name])
    for key, value in (options or {}).items():
        name = key.lower().rpartition(".")[2]
        if name == "head_rule_first_roll_doubles":
            value = frozenset(value)
        opts[name] = value
    return opts


def single_moves(board: Board, color: Color, die: int, opts: Mapping, frozen: tuple[int, ...] = ()
                 ) -> Iterable[tuple[str, str, str | None, Board, tuple[int, ...]]]:
    """Every move of one checker by `die` (origin, destination, capture, board, frozen) by the
    geometry, blocking, bar and bearing-off rules alone (no turn restrictions).

    rules.md: bar checkers enter first (White with d on 25-d, Black on d); landing and touch-down
    points must be open; bearing off when all 15 are home - an exact die from its point, a larger
    die from the highest occupied point only when no checker stands further back; a checker that
    hit in its owner's home board moves no further that turn (tavla / option).
    """
    path = route(board.variant, color)
    i = 0 if color is WHITE else 1
    captures_for = {"portes": ("hit",), "tavla": ("hit",), "plakoto": ("pin",), "tapa": ("pin",),
                    "neverfinishing": ("hit", "pin")}.get(board.variant, ())

    def land(origin: str, target: int, entering: bool):
        if board.closed_to(color, target):
            return
        kinds: tuple = (None,)
        if board.lone_opponent(color, target):
            kinds = captures_for
            if entering and board.variant == "neverfinishing" and not opts["entry_may_trap"]:
                kinds = ("hit",)
        for kind in kinds:
            new = board.move(color, origin, str(target), kind)
            new_frozen = frozen
            if (kind == "hit" and opts.get("no_hit_and_run_in_home")
                    and target in home_points(board.variant, color)):
                new_frozen = tuple(sorted(frozen + (target,)))
            yield origin, str(target), kind, new, new_frozen

    if board.bar[i]:
        yield from land("bar", path[die - 1], True)
        return
    counts = board.counts(color)
    bear = board.may_bear_off(color, opts.get("pinned_blocks_bearoff", True))
    for index, point in enumerate(path):
        movable = counts[point - 1] - frozen.count(point)
        if movable <= 0 or board.pinned[point - 1] is color:
            continue
        target = index + die
        if target < 24:
            yield from land(str(point), path[target], False)
        elif bear and (target == 24 or not any(counts[p - 1] for p in path[:index])):
            yield str(point), "off", None, board.move(color, str(point), "off"), frozen


# -- the parallel games' turn restrictions, read from rules.md ---------------------------------------

def released(board: Board, color: Color, at: str = "past_start") -> bool:
    """First checker: "until one checker has passed the opponent's start point (White on 11 or
    lower, Black on 13-23, or borne off)"; start_quarter: White on 12 or lower, Black on 19-24
    once round (route index 12 and beyond in both cases)."""
    path = route(board.variant, color)
    first = 13 if at == "past_start" else 12
    i = 0 if color is WHITE else 1
    return board.off[i] > 0 or any(board.n(color, p) for p in path[first:])


def left_start(board: Board, color: Color) -> int:
    """Checkers that have left the start point (none can come back to it)."""
    return CHECKERS - board.n(color, start_point(board.variant, color))


def holds_all(board: Board, color: Color, points: Iterable[int]) -> bool:
    return all(board.n(color, p) for p in points)


def held_count(board: Board, color: Color, points: Iterable[int]) -> int:
    return sum(1 for p in points if board.n(color, p))


def primes(board: Board, color: Color) -> list[tuple[int, ...]]:
    """Runs of six consecutive points held by `color`, consecutive on the OPPONENT's path (the
    side a prime blocks), as tuples of points in the opponent's order of travel."""
    path = route(board.variant, color.opponent)
    return [path[k:k + 6] for k in range(0, 19) if holds_all(board, color, path[k:k + 6])]


def opponent_ahead_of(board: Board, color: Color, prime: tuple[int, ...]) -> bool:
    """Narde: "unless an opposing checker is ahead of them" - an opposing checker on the board
    that has already passed the prime on its way (a later point of its path)."""
    path = route(board.variant, color.opponent)
    last = path.index(prime[-1])
    return any(board.n(color.opponent, p) for p in path[last + 1:])


def unblock_duty(board: Board, color: Color) -> tuple[int, ...] | None:
    """Fevga: "if all the opponent's checkers on the board stand on the one point just behind six
    consecutive points the mover holds" -> those six points (else None)."""
    opp = color.opponent
    occupied = [p for p in range(1, 25) if board.n(opp, p)]
    if len(occupied) != 1:
        return None
    path = route(board.variant, opp)
    k = path.index(occupied[0])
    six = path[k + 1:k + 7]
    if len(six) == 6 and holds_all(board, color, six):
        return six
    return None


class Restrictions:
    """The per-move and end-of-turn rules of the parallel games, for one turn."""

    def __init__(self, position: Position, dice: tuple[int, ...], opts: Mapping):
        self.variant = position.variant
        self.color = position.turn
        self.opts = opts
        self.start = Board.of(position)
        self.rule = opts.get("start_rule", "none") if self.variant in PARALLEL else "none"
        self.released_at_start = released(self.start, self.color, opts["first_checker_release_at"])
        own_rolls = position.rolls[0 if self.color is WHITE else 1]
        self.head_allowance = 1
        if (dice[0] == dice[1] and own_rolls == 0
                and dice[0] in opts["head_rule_first_roll_doubles"]):
            self.head_allowance = 2
        scope = opts.get("start_table_scope", "none") if self.variant in PARALLEL else "none"
        self.tables = {"own": (starting_table(self.color),),
                       "both": (starting_table(WHITE), starting_table(BLACK)),
                       "none": ()}[scope]
        self.prime_rule = opts.get("prime_rule", "none") if self.variant in PARALLEL else "none"
        self.head = start_point(self.variant, self.color)

    def move_allowed(self, board: Board, origin: str, head_moves: int) -> bool:
        if origin != str(self.head):
            return True
        if self.rule == "head_rule":
            return head_moves < self.head_allowance
        if self.rule == "first_checker":
            if self.opts["first_checker_release_timing"] == "immediate":
                free = released(board, self.color, self.opts["first_checker_release_at"])
            else:
                free = self.released_at_start
            return free or left_start(board, self.color) == 0
        return True

    def table_ok(self, board: Board) -> bool:
        return not any(holds_all(board, self.color, t) for t in self.tables)

    def after_move_ok(self, board: Board) -> bool:
        return self.opts["start_table_check"] != "every_move" or self.table_ok(board)

    def end_ok(self, board: Board) -> bool:
        if not self.table_ok(board):
            return False
        if self.prime_rule == "opp_start_table_max4":
            return held_count(board, self.color, starting_table(self.color.opponent)) <= 4
        if self.prime_rule == "no_prime_without_opponent_ahead":
            before = set(primes(self.start, self.color))
            return all(opponent_ahead_of(board, self.color, p)
                       for p in primes(board, self.color) if p not in before)
        return True

    def opponent_can_move(self, board: Board) -> bool:
        opp = self.color.opponent
        head = start_point(self.variant, opp)
        rule = self.rule
        for die in range(1, 7):
            for origin, *_ in single_moves(board, opp, die, self.opts):
                if origin != str(head) or rule != "first_checker":
                    return True
                if (released(board, opp, self.opts["first_checker_release_at"])
                        or left_start(board, opp) == 0):
                    return True
        return False


def _explore(board: Board, color: Color, dice: tuple[int, ...], opts: Mapping,
             limits: Restrictions | None = None) -> dict[tuple, tuple]:
    """Every play (every state reachable die by die, stopping anywhere): board key ->
    (most dice used, {dice played, sorted}, board)."""
    i = 0 if color is WHITE else 1
    plays: dict[tuple, tuple] = {}
    seen = set()
    stack = [(board, tuple(sorted(dice)), (), (), 0)]
    while stack:
        b, remaining, frozen, played, head_moves = stack.pop()
        state = (b.key(), remaining, frozen, head_moves)
        if state in seen:
            continue
        seen.add(state)
        used = len(played)
        old = plays.get(b.key())
        if old is None or used > old[0]:
            plays[b.key()] = (used, {played}, b)
        elif used == old[0]:
            old[1].add(played)
        if b.off[i] == CHECKERS:
            continue
        for die in sorted(set(remaining)):
            rest = list(remaining)
            rest.remove(die)
            for origin, _, _, new, new_frozen in single_moves(b, color, die, opts, frozen):
                if limits is not None:
                    if not limits.move_allowed(b, origin, head_moves):
                        continue
                    if not limits.after_move_ok(new):
                        continue
                from_head = limits is not None and origin == str(limits.head)
                stack.append((new, tuple(rest), new_frozen, tuple(sorted(played + (die,))),
                              head_moves + from_head))
    return plays


def _maximal(plays: dict, dice: tuple[int, ...], opts: Mapping) -> dict[tuple, tuple]:
    """The plays using the most dice; with one die of two different ones, the higher if possible.

    rules.md: "This holds to the last checker: a play that bears off the last checker with fewer
    dice is not legal when another order uses more" (white on 2, a black blot on 1, 4-1: only
    2/1* 1/off)."""
    if not plays:
        return {}
    most = max(used for used, _, _ in plays.values())
    kept = {k: v for k, v in plays.items() if v[0] == most}
    if most == 1 and dice[0] != dice[1] and opts["higher_die_rule"]:
        high = max(dice)
        if any((high,) in v[1] for v in kept.values()):
            kept = {k: v for k, v in kept.items() if (high,) in v[1]}
    return kept


def cascade_stages(position: Position, dice: tuple[int, int], opts: Mapping) -> list[tuple[int, ...]]:
    """rules.md cascading doubles: "the first three turns of the game play doubles normally. From
    the fourth turn on, n-n is played four times, then four times each higher number up to 6"."""
    if dice[0] != dice[1]:
        return [tuple(dice)]
    n = dice[0]
    if not opts["cascading_doubles"]:
        return [(n,) * 4]
    mover_rolls = position.rolls[0 if position.turn is WHITE else 1]
    played = sum(position.rolls) if opts["gulbara_protected_scope"] == "game" else mover_rolls
    if played < opts["gulbara_protected_turns"]:
        return [(n,) * 4]
    return [(k,) * 4 for k in range(n, 7)]


def _one_roll(position: Position, board: Board, dice: tuple[int, ...], opts: Mapping) -> set[tuple]:
    color = position.turn
    limits = Restrictions(position, dice, opts) if position.variant in PARALLEL else None
    plays = _explore(board, color, dice, opts, limits)
    if limits is None:
        return set(_maximal(plays, dice, opts))
    allowed = {k: v for k, v in plays.items() if limits.end_ok(v[2])}
    if limits.prime_rule == "opponent_must_be_able_to_move":
        mobile = {k: v for k, v in allowed.items() if limits.opponent_can_move(v[2])}
        allowed = mobile or allowed             # "if his dice allow"
    six = unblock_duty(board, color) if limits.prime_rule == "unblock_all_on_one_point" else None
    if six is None:
        return set(_maximal(allowed, dice, opts))

    def opens(item):
        return not holds_all(item[1][2], color, six)

    if opts["unblock_precedence"] == "unblock_first":
        opening = dict(filter(opens, allowed.items()))
        return set(_maximal(opening or allowed, dice, opts))
    best = _maximal(allowed, dice, opts)
    opening = dict(filter(opens, best.items()))
    return set(opening or best)


def model_plays(position: Position, dice, options: Mapping | None = None) -> set[tuple]:
    """Board keys of every legal outcome, by the model."""
    opts = model_options(position.variant, options)
    color = position.turn
    dice = tuple(dice)
    board = Board.of(position)
    stages = cascade_stages(position, dice, opts)
    if len(stages) == 1:
        return _one_roll(position, board, stages[0], opts)
    # cascades (no turn restrictions): each stage as far as possible from where the last one ended
    assert opts["start_rule"] == "none" and opts["prime_rule"] == "none", "model: cascades only bare"
    i = 0 if color is WHITE else 1
    ends: dict[tuple, int] = {}                     # final board -> dice used in all
    frontier = {board.key(): (board, 0)}
    for stage in stages:
        nxt: dict[tuple, tuple] = {}
        for b, used_before in frontier.values():
            plays = _explore(b, color, stage, opts)
            if opts["gulbara_cascade_maximize"] == "per_stage":
                plays = _maximal(plays, stage, opts)
            for key, (used, _, after_stage) in plays.items():
                total = used_before + used
                if used < 4 or after_stage.off[i] == CHECKERS:
                    ends[key] = max(ends.get(key, 0), total)
                else:
                    nxt[key] = (after_stage, max(total, nxt.get(key, (None, 0))[1]))
        frontier = nxt
    for key, (_, total) in frontier.items():
        ends[key] = max(ends.get(key, 0), total)
    if opts["gulbara_cascade_maximize"] == "whole_cascade":
        most = max(ends.values())
        return {k for k, v in ends.items() if v == most}   # the last checker too (rules.md)
    return set(ends)


def model_outcomes(position: Position, dice, options=None) -> set[str]:
    return {describe(Board(position.variant, *key)) for key in model_plays(position, dice, options)}


# -- checking a play move by move -------------------------------------------------------------------

def dice_values(position, dice, options) -> Counter:
    """The dice a play may use: two, four of a double, or a cascade (rules.md)."""
    opts = model_options(position.variant, options)
    if dice[0] != dice[1]:
        return Counter(dice)
    n = dice[0]
    rolls = sum(position.rolls) if opts["gulbara_protected_scope"] == "game" else \
        position.rolls[position.turn.index]
    if opts["cascading_doubles"] and rolls >= opts["gulbara_protected_turns"]:
        return Counter({k: 4 for k in range(n, 7)})
    return Counter({n: 4})


def replay(position, play, options):
    """Apply Play.moves one by one with rules_kit's board, checking each move against the position
    before it; returns the boards before each move and the final board."""
    opts = model_options(position.variant, options)
    color = position.turn
    board = Board.of(position)
    path = route(position.variant, color)
    boards = []
    for move in play.moves:
        boards.append(board)
        where = f"{describe(board)}: {move} in {play}"
        if board.bar[color.index]:
            assert move.origin == "bar", f"checker on the bar must enter first - {where}"
        if move.origin == "bar":
            assert position.variant in HITTING and board.bar[color.index], where
            start = -1
        else:
            origin = int(move.origin)
            assert board.n(color, origin) > 0, f"no checker to move - {where}"
            assert board.pinned[origin - 1] is not color, f"pinned checker moved - {where}"
            start = path.index(origin)
        if move.destination == "off":
            need = 24 - start
            assert board.may_bear_off(color, opts["pinned_blocks_bearoff"]), f"bears off early - {where}"
            assert move.die == need or (move.die > need and not any(
                board.n(color, p) for p in path[:start])), f"bear-off die - {where}"
            assert not move.hit and not move.pin
        else:
            target = int(move.destination)
            assert path.index(target) - start == move.die, f"die does not fit the move - {where}"
            assert not board.closed_to(color, target), f"lands on a closed point - {where}"
            blot = board.lone_opponent(color, target)
            if position.variant in ("portes", "tavla"):
                assert (move.hit, move.pin) == (blot, False), where
            elif position.variant in ("plakoto", "tapa"):
                assert (move.hit, move.pin) == (False, blot), where
            elif position.variant == "neverfinishing":
                assert (move.hit or move.pin) == blot and not (move.hit and move.pin), where
                if move.pin and move.origin == "bar":
                    assert opts["entry_may_trap"], where
            else:
                assert not (move.hit or move.pin), where
        capture = "hit" if move.hit else "pin" if move.pin else None
        board = board.move(color, move.origin, move.destination, capture)
    return boards, board
