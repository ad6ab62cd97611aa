"""Legal plays: one shared move generator over the rule choices of `variants.py`.

The generator works in the mover's frame: frame position 0 is the mover's bar, 1..24 his route
from his first point to his last, 25 borne off; the opponent's checkers are mapped onto the same
frame. A play is searched die by die (touch-downs are real sub-moves), level by level, merging
identical states, so doubles and cascades stay cheap. The rule pipeline is the dossier's (§8):
per-move restrictions prune the search; then end-of-turn limits; then the most dice; then the
higher die; then the obligations to open a prime; plays are distinct by their final position.
"""
from __future__ import annotations

import json
import os
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import accumulate, compress, groupby
from operator import itemgetter, mul
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple

from firmware_host.rules.position import BLACK, CHECKERS, WHITE, Color, Position, position_text
from firmware_host.rules.variants import Capture, Family, Rules, RulesError

try:  # the search's inner loop in C, where it was built (setup.py); the Python search otherwise
    from firmware_host.rules import _search
except ImportError:
    _search = None
if os.environ.get("TAVLI_PURE_PYTHON"):  # a switch for measuring and testing the pure path
    _search = None
COMPILED = _search is not None  # whether `Turn.search` runs compiled where the rules allow
# `WholeCascade._walk` in C; None from an extension built before it had one (built once, copied)
_compiled_walk = getattr(_search, "walk", None)
# Whether the compiled search records edges (the referee's trees); not one built before it did.
_COMPILED_EDGES = getattr(_search, "SEARCH_EDGES", False)
# Whether it also gives each visit's key (`search(..., keys)`); not one built before it did.
_COMPILED_KEYS = getattr(_search, "SEARCH_KEYS", False)
_compiled_allowed_ends = getattr(_search, "allowed_ends", None)
# Whether the compiled walk judges `Frame.walk_limits`, the no-prime rule's too (2); not one built
# before it did.
_COMPILED_WALK_LIMITS = getattr(_search, "WALK_LIMITS", 0) >= 2
_CAPTURE_CODES = {Capture.NONE: 0, Capture.HIT: 1, Capture.PIN: 2, Capture.CHOICE: 3}

BAR, OFF = 0, 25
HOME = range(19, 25)         # the mover's home board, in his frame
OWN_START_TABLE = range(1, 7)
OPP_START_TABLE = range(13, 19)  # parallel games: the opponent's starting table in the mover's frame
START = 1                    # the mover's start point (head, mother's point)

# Frame position -> board point, per (family, colour).
_ROUTES: dict[tuple[Family, Color], tuple[int, ...]] = {
    (Family.CONTRARY, WHITE): tuple(range(24, 0, -1)),
    (Family.PARALLEL, WHITE): tuple(range(24, 0, -1)),
    (Family.CONTRARY, BLACK): tuple(range(1, 25)),
    (Family.PARALLEL, BLACK): tuple(range(12, 0, -1)) + tuple(range(24, 12, -1)),
}
ROUTES = {key: (0,) + route for key, route in _ROUTES.items()}  # index = frame position
# Board point 1..24 -> frame position, per (family, colour): reads a frame back as a board.
_FRAME_OF_POINT = {key: itemgetter(*(route.index(p) for p in range(1, 25)))
                   for key, route in ROUTES.items()}
# Per (family, colour): a board's 24 points (index point - 1) -> their values along frame 1..24.
_POINT_OF_FRAME = {key: itemgetter(*(p - 1 for p in route[1:])) for key, route in ROUTES.items()}
# Frame position -> the name of the location in moves ("bar", "1".."24", "off").
_NAMES = {key: ("bar",) + tuple(str(p) for p in route[1:]) + ("off",)
          for key, route in ROUTES.items()}


class Move(NamedTuple):
    """One die's move of one checker; `origin`/`destination` are "1".."24", "bar" or "off"."""

    origin: str
    destination: str
    die: int
    hit: bool = False
    pin: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"from": self.origin, "to": self.destination, "die": self.die,
                "hit": self.hit, "pin": self.pin}

    @lru_cache(maxsize=16384)  # a listing writes the same few moves thousands of times
    def to_json_text(self) -> str:
        """`to_json` as JSON text, keys sorted (as `json.dumps(..., sort_keys=True)` writes it)."""
        return (f'{{"die": {self.die}, "from": "{self.origin}", "hit": {_JSON_BOOL[self.hit]}, '
                f'"pin": {_JSON_BOOL[self.pin]}, "to": "{self.destination}"}}')

    def __str__(self) -> str:
        return f"{self.origin}/{self.destination}{'*' if self.hit else ''}{'^' if self.pin else ''}"


_JSON_BOOL = {False: "false", True: "true"}


@dataclass(frozen=True)
class GameResult:
    winner: Color | None  # None: a tie
    points: int
    reason: str           # bear-off, gammon, koks, mother, tie

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner.value if self.winner else None, "points": self.points,
                "reason": self.reason}

    @lru_cache(maxsize=64)  # a few results in all, one in every play that ends the game
    def to_json_text(self) -> str:
        """`to_json` as JSON text, keys sorted."""
        return json.dumps(self.to_json(), sort_keys=True)


class Play:
    """One legal play: its moves, the position after it (the opponent to move), the game's end
    when the play ends the game, and (gulbara_remainder=opponent_plays) the dice the opponent plays.

    An immutable value. A roll can have thousands of plays of which a caller reads a few, so the
    plays `Turn` finds keep the search's state and build their moves and position on first use.
    """

    __slots__ = ("_moves", "_position", "_result", "_remainder", "_source")

    def __init__(self, moves: tuple[Move, ...], position: Position, result: GameResult | None = None,
                 remainder: tuple[int, ...] = ()):
        self._moves, self._position = tuple(moves), position
        self._result, self._remainder, self._source = result, tuple(remainder), None

    @classmethod
    def _found(cls, frame: "Frame", frame_moves: tuple[FrameMove, ...], node: "Node",
               result: GameResult | None, remainder: tuple[int, ...]) -> "Play":
        """A play the search found, built from its frame moves and final node when first read."""
        play = cls.__new__(cls)
        play._moves = play._position = None
        play._result, play._remainder, play._source = result, remainder, (frame, frame_moves, node)
        return play

    @property
    def moves(self) -> tuple[Move, ...]:
        if self._moves is None:
            frame, frame_moves, _ = self._source
            self._moves = frame.moves(frame_moves)
        return self._moves

    @property
    def position(self) -> Position:
        """After the play; the opponent to move."""
        if self._position is None:
            frame, _, node = self._source
            self._position = frame.to_position(node, played_turn=True)
        return self._position

    @property
    def node(self) -> "Node | None":
        """The search's state after the play, in the mover's frame (what evaluators read without
        building the position); None for a play made from its moves and position."""
        return self._source[2] if self._source else None

    @property
    def result(self) -> GameResult | None:
        return self._result

    @property
    def remainder(self) -> tuple[int, ...]:
        return self._remainder

    def _key(self) -> tuple:
        return self.moves, self.position, self._result, self._remainder

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Play(moves={self.moves!r}, position={self.position!r}, result={self._result!r}, "
                f"remainder={self._remainder!r})")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"moves": [m.to_json() for m in self.moves],
                                "position": self.position.to_json()}
        if self.result is not None:
            data["result"] = self.result.to_json()
        if self.remainder:
            data["remainder"] = list(self.remainder)
        return data

    def to_json_text(self) -> str:
        """`to_json` as JSON text, keys sorted, rendered directly (listings write thousands)."""
        moves = ", ".join([move.to_json_text() for move in self.moves])
        # A found play's position is written from the search's state, unless already built.
        position = self._position.to_json_text() if self._position is not None else \
            self._source[0].position_text(self._source[2])
        text = f'{{"moves": [{moves}], "position": {position}'
        if self.remainder:
            text += ', "remainder": [' + ", ".join(map(str, self.remainder)) + "]"
        if self.result is not None:
            text += ', "result": ' + self.result.to_json_text()
        return text + "}"

    def __str__(self) -> str:
        return " ".join(map(str, self.moves)) or "(no move)"


# A search state in the mover's frame. Tuples so that identical states merge.
#   me, opp:   26 counts (0 = bar, 1..24 route, 25 = off); opp is mapped onto the mover's route
#   my_pins:   bit p set when the mover's checker on p is pinned under an opposing checker
#   opp_pins:  bit p set when the mover pins an opposing checker on p
#   frozen:    frame positions of checkers that hit in their home board (no hit-and-run)
#   head:      checkers moved off the start point this turn (head rule)
class Node(NamedTuple):
    me: tuple[int, ...]
    opp: tuple[int, ...]
    my_pins: int = 0
    opp_pins: int = 0
    frozen: tuple[int, ...] = ()
    head: int = 0


# A move in the frame, kept compact while searching: (source, target, die, hit, pin).
FrameMove = tuple[int, int, int, bool, bool]


class _Visit(NamedTuple):
    """A node reached in the search: the moves that first reached it and the dice still to play.
    A tuple, so that the compiled search builds it as it builds the nodes."""

    node: Node
    moves: tuple[FrameMove, ...]
    remaining: tuple[int, ...]
    result: GameResult | None = None


class TooManyPlays(RulesError):
    """More distinct plays than a caller is prepared to list (low gulbara cascades)."""

    def __init__(self, limit: int):
        super().__init__(f"this roll has more than {limit} distinct plays (a cascade of low "
                         "doubles); raise the limit to list them all")
        self.limit = limit


def legal_plays(position: Position, dice: Iterable[int], rules: Rules | Mapping[str, Any] | None = None
                ) -> list[Play]:
    """Every distinct legal play for the side to move with a roll of two dice.

    A position where nothing can move gives exactly one play with no moves.
    """
    return Turn(position, dice, rules).plays()


def as_rules(position: Position, rules: Rules | Mapping[str, Any] | None) -> Rules:
    if isinstance(rules, Rules):
        if rules.variant.name != position.variant:
            raise RulesError(f"rules of {rules.variant.name} given for a {position.variant} position")
        return rules
    if rules is not None and not isinstance(rules, Mapping):
        raise RulesError(f"rules are an object of options, not {type(rules).__name__} {rules!r}")
    return Rules.for_variant(position.variant, rules)


def _check_dice(dice: Iterable[int]) -> tuple[int, ...]:
    values = tuple(dice)
    if len(values) != 2:
        raise RulesError(f"a roll is two dice, got {len(values)}")
    for d in values:
        _check_die(d)
    return values


def _check_die(d: Any) -> None:
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
        raise RulesError(f"a die shows 1 to 6, got {d!r}")


def dice_text(dice: Iterable[int]) -> str:
    """Dice as players say them, "6-5"; owed dice all of them, "3-3-4".

    >>> dice_text((6, 5)), dice_text(Owed((3, 3, 4)))
    ('6-5', '3-3-4')
    """
    return "-".join(str(d) for d in dice)


class Owed(tuple):
    """Dice owed by the opponent's turn (`Play.remainder`, gulbara_remainder = opponent_plays), given
    to `Turn` instead of a roll: the side to move plays them before its own roll, stage by stage as
    they were owed (the rest of a roll or of a cascade stage, then the later stages). What cannot be
    played of them is lost, not handed back (dossier T49 leaves the procedure open)."""

    def __new__(cls, dice: Iterable[int]) -> "Owed":
        values = tuple(dice)
        if not values:
            raise RulesError("owed dice: at least one die")
        for d in values:
            _check_die(d)
        return super().__new__(cls, values)

    @property
    def stages(self) -> tuple[tuple[int, ...], ...]:
        if len(self) == 2 and self[0] != self[1]:
            return (tuple(self),)   # a whole roll of two different dice: played in either order
        return tuple(tuple(run) for _, run in groupby(self))


class Turn:
    """One side's turn: the position, the roll (or `Owed` dice) and the rules; its plays, and the
    search behind them."""

    def __init__(self, position: Position, dice: Iterable[int],
                 rules: Rules | Mapping[str, Any] | None = None):
        self.position = position
        self.rules = as_rules(position, rules)
        self.dice = dice if isinstance(dice, Owed) else _check_dice(dice)
        # Owed dice are never owed back.
        self.owes_remainder = self.rules.options.get("gulbara_remainder") == "opponent_plays" and \
            not isinstance(dice, Owed)
        for color in (WHITE, BLACK):
            if position.off[color.index] == CHECKERS:
                raise RulesError(f"the game is over: {color} has borne off all {CHECKERS} checkers")
        self.mover = position.turn
        self.frame = Frame(position, self.mover, self.rules, self.dice)
        self.start = self.frame.node
        self.stages = self._stages()

    # -- the roll ------------------------------------------------------------------------------

    def _stages(self) -> tuple[tuple[int, ...], ...]:
        if isinstance(self.dice, Owed):
            return self.dice.stages
        a, b = self.dice
        if a != b:
            return ((a, b),)
        if not self.rules.options.get("cascading_doubles") or self._protected():
            return ((a,) * 4,)
        return tuple((value,) * 4 for value in range(a, 7))

    def _protected(self) -> bool:
        rolls = self.position.rolls
        played = rolls[self.mover.index] if self.rules.gulbara_protected_scope == "per_player" \
            else rolls[0] + rolls[1]
        return played < self.rules.gulbara_protected_turns

    # -- plays ---------------------------------------------------------------------------------

    def plays(self, limit: int | None = None) -> list[Play]:
        """Every distinct legal play; TooManyPlays if there are more than `limit`."""
        return list(self.iter_plays(limit))

    def iter_plays(self, limit: int | None = None) -> Iterator[Play]:
        """`plays` one by one, for a caller that writes each and lets it go (a cascade can have
        hundreds of thousands): the search is done, and TooManyPlays raised, before it returns."""
        frame, start = self.frame, self.start
        ends = self.final_visits(limit)
        if not frame.ends_at_end_of_turn:  # the search has found every end of the game
            return (Play._found(frame, visit.moves, visit.node, visit.result, remainder)
                    for visit, remainder in ends)
        return (Play._found(frame, visit.moves, visit.node,
                            visit.result or frame.result(visit.node, start, end_of_turn=True), remainder)
                for visit, remainder in ends)

    def pick_play(self, pick: Callable[[list], Any]) -> Play:
        """One legal play chosen stage by stage by `pick` (e.g. a seeded random choice).

        Unlike `plays()`, this never enumerates whole cascades, whose distinct outcomes can run
        into the hundreds of thousands: every legal play is some sequence of such choices, of any
        stage end under per-stage maximisation, and under whole-cascade maximisation
        (gulbara_cascade_maximize) of the stage ends that still lead to a play using the most dice
        of the whole cascade (`WholeCascade.keeps`). Those are found lazily:
        an end `pick` chooses that leads to none is set aside and `pick` chooses again (a stage
        end's way on is cheap to find where there is one, dear to rule out where there is none),
        so `pick` gets the same answer as from the kept ends alone when it takes the best of
        them, and a uniform one when it draws at random.
        """
        if len(self.stages) == 1:
            return pick(self.plays())
        whole = self.whole_cascade
        visit, owed = _Visit(self.start, (), ()), ()
        for index, stage in enumerate(self.stages):
            ends = list({end.node: end for end in self.stage_ends(visit.node, stage)}.values())
            end = pick(ends)
            while whole is not None and not whole.keeps(end, index):
                ends.remove(end)        # (one is kept: the way so far leads to a legal play)
                end = pick(ends)
            visit = _Visit(end.node, visit.moves + end.moves, (), end.result)
            if end.result is not None:
                break
            if end.remaining:
                owed = end.remaining + tuple(d for s in self.stages[index + 1:] for d in s)
                break
        result = visit.result or self.frame.result(visit.node, self.start, end_of_turn=True)
        return Play._found(self.frame, visit.moves, visit.node, result,
                           owed if self.owes_remainder else ())

    @cached_property
    def whole_cascade(self) -> WholeCascade | None:
        """A cascade under gulbara_cascade_maximize = whole_cascade: which stage ends lead to a
        legal play (one per turn, so that its searches serve the referee and a chooser alike);
        else None."""
        if len(self.stages) > 1 and self.rules.gulbara_cascade_maximize == "whole_cascade":
            return WholeCascade(self)
        return None

    def final_visits(self, limit: int | None = None) -> Iterator[tuple[_Visit, tuple[int, ...]]]:
        """The end of every distinct legal play, with the dice the opponent is owed (if any).

        The search is done, and TooManyPlays raised, before this returns; each play's whole
        visit is made as it is read, so that a listing of many holds only their stage ends."""
        whole_cascade = len(self.stages) > 1 and self.rules.gulbara_cascade_maximize == "whole_cascade"
        branches = [(_Visit(self.start, (), ()), 0)]  # (visit, dice played so far)
        # (the moves before the stage end, the stage end, dice used, dice owed)
        finished: dict[tuple, tuple[tuple[FrameMove, ...], _Visit, int, tuple[int, ...]]] = {}
        owes_remainder = self.owes_remainder
        for index, stage in enumerate(self.stages):
            later = tuple(d for s in self.stages[index + 1:] for d in s)
            size = len(stage)
            next_branches: dict[Node, tuple[_Visit, int]] = {}
            for visit, used in branches:
                for end in self.stage_ends(visit.node, stage):
                    node, remaining, result = end.node, end.remaining, end.result
                    played = size - len(remaining)
                    if result is None and not remaining and later:
                        if node not in next_branches:
                            # Only node and moves are read from here on.
                            whole = _Visit(node, visit.moves + end.moves, ()) if visit.moves else end
                            next_branches[node] = (whole, used + played)
                        grown = next_branches
                    else:
                        owed = remaining + later if result is None and owes_remainder else ()
                        # Plays are distinct by their board: the node's checkers and pins
                        # (me, opp, my_pins, opp_pins), without the turn's frozen and head. The
                        # whole cascade maximised, a board is reached by its play of most dice.
                        key = (node[:4], owed)
                        known = finished.get(key)
                        if known is None or whole_cascade and known[2] < used + played:
                            finished[key] = (visit.moves, end, used + played, owed)
                        grown = finished
                    if limit is not None and len(grown) > limit:
                        raise TooManyPlays(limit)
            branches = list(next_branches.values())
        ends = list(finished.values())
        if whole_cascade:
            most = max(used for _, _, used, _ in ends)
            ends = [end for end in ends if end[2] == most or _ended_midway(end[1])]
        return ((_Visit(end.node, before + end.moves, (), end.result) if before else end, owed)
                for before, end, _, owed in ends)

    def stage_ends(self, node: Node, dice: tuple[int, ...]) -> list[_Visit]:
        """The legal ways to end playing `dice` from `node`: the whole rule pipeline for one roll."""
        return self.select_ends(node, dice, list(self.search(node, dice)))

    def select_ends(self, node: Node, dice: tuple[int, ...], visits: list[_Visit]) -> list[_Visit]:
        """Of the states `search` reached from `node`, those where a legal play of `dice` ends."""
        frame = self.frame
        # A limit no play can keep (a hand-set position that already breaks it) lapses.
        candidates = (frame.allowed_ends(visits, node) or visits) if frame.end_limits else visits
        duty = frame.opening_duty(node)
        if duty and self.rules.unblock_precedence == "unblock_first":
            candidates = _prefer(candidates, lambda v: frame.fulfils(duty, v.node))
        total = len(dice)
        # Dice played by each candidate. One that bears off the last checker counts the dice it
        # used: another order that uses more is the legal play (rules.md, common rules).
        counts = [total - len(v.remaining) for v in candidates]
        if frame.mother_every_move:  # a game ended midway (the mother pinned) has nothing left to play
            counts = [total if _ended_midway(v) else n for v, n in zip(candidates, counts)]
        most = max(counts)
        if most != min(counts):
            candidates = list(compress(candidates, [n == most for n in counts]))
        if most == 1 and total == 2 and dice[0] != dice[1] and self.rules.higher_die_rule:
            low = min(dice)
            candidates = _prefer(candidates, lambda v: _ended_midway(v) or v.remaining == (low,))
        if duty and self.rules.unblock_precedence != "unblock_first":
            candidates = _prefer(candidates, lambda v: frame.fulfils(duty, v.node))
        return candidates

    def search(self, start: Node, dice: tuple[int, ...],
               edges: dict[tuple, list[tuple[FrameMove, tuple]]] | None = None,
               keys: list[tuple] | None = None) -> Iterator[_Visit]:
        """Every state reachable by playing some of `dice` in any allowed order, each once.

        A state is keyed by (node, dice still to play). With `edges`, every move found is
        recorded there as key -> [(move, child key), ...], the graph the referee judges on; with
        `keys` too, each visit's key is appended to it as the visit is yielded (from the compiled
        search, the very objects the edges name their children by: the referee's trees match
        them by identity). The compiled search runs it where it is built and the rules allow
        (`COMPILED`, `Frame.search_config`), the Python one otherwise.
        """
        dice = tuple(sorted(dice))
        config = self.frame.search_config
        if config is not None and _search is not None and len(dice) <= _search.MAX_DICE \
                and (edges is None or _COMPILED_EDGES) and (keys is None or _COMPILED_KEYS):
            return self._compiled_search(start, dice, config, edges, keys)
        return self._python_search(start, dice, edges, keys)

    def _compiled_search(self, start: Node, dice: tuple[int, ...], config: tuple[int, ...],
                         edges: dict[tuple, list[tuple[FrameMove, tuple]]] | None = None,
                         keys: list[tuple] | None = None) -> Iterator[_Visit]:
        """`search` in C (firmware_host/rules/_search.c): the same visits in the same order, and the
        same `edges` and `keys`. The visits where all are borne off come back without their result,
        which is set here (the compiled search leaves out the options that end the game otherwise)."""
        if edges is None:
            visits, borne_off = _search.search(_Visit, Node, start, dice, config)
        else:
            visits, borne_off = _search.search(_Visit, Node, start, dice, config, edges, keys)
        frame, turn_start = self.frame, self.start
        for index in borne_off:
            visit = visits[index]
            visits[index] = visit._replace(result=frame.result(visit.node, turn_start, end_of_turn=False))
        return iter(visits)

    def _python_search(self, start: Node, dice: tuple[int, ...],
                       edges: dict[tuple, list[tuple[FrameMove, tuple]]] | None,
                       keys: list[tuple] | None = None) -> Iterator[_Visit]:
        """`search` in Python: the specification the compiled search is tested against."""
        level = {(start, dice): _Visit(start, (), dice)}
        frame = self.frame
        steps, may_end_midway = frame.steps, frame.mother_every_move
        while level:
            next_level: dict[tuple, _Visit] = {}
            for reached, visit in level.items():
                if keys is not None:
                    keys.append(reached)
                yield visit
                if visit.result is not None:
                    continue
                node, moves = visit.node, visit.moves
                out = None if edges is None else edges.setdefault((node, visit.remaining), [])
                for die, rest in _dice_splits(visit.remaining):
                    for child, move in steps(node, die):
                        key = (child, rest)
                        if out is not None:
                            out.append((move, key))
                        if key not in next_level:
                            result = (frame.result(child, self.start, end_of_turn=False)
                                      if may_end_midway or child.me[OFF] == CHECKERS else None)
                            next_level[key] = _Visit(child, moves + (move,), rest, result)
            level = next_level


# -- gulbara_cascade_maximize = whole_cascade, one stage at a time -----------------------------------
#
# rules.md: each cascade stage is maximised on its own, or (this house rule) the whole cascade at
# once. `Turn.final_visits` plays the cascade stage by stage as ever, then keeps only the plays that
# use the most dice of the whole cascade, one that bears off the last checker too (rules.md, common
# rules). Whoever builds or chooses one stage at a time (the referee's stage trees, `Turn.pick_play`)
# asks here whether a stage end still leads to such a play: the most dice the later stages can play
# from it. Nothing is hit in the games with cascades, so this depends only on the stage end's node.
#
# Proving that no play uses more dice than the best found meant searching every stage end of every
# stage (39,008 of them, 11 s, for a 1-1 cascade of which 22 dice can be played). The search is a
# branch and bound: each (node, stage) keeps the most dice a play was found to use (`_found`) and
# the most proven possible (`_possible`, at first `_bound`'s relaxation); a stage end is searched
# only while it can still reach the goal asked for, the most promising first. Before a stage end's
# stage is searched, a walk of the dice one legal move at a time (`_walk`) looks for a way of the goal
# (a proof where the rules make every full stage a legal end) or goes everywhere (a bound): the
# referee asks this of every end of every stage tree it builds (issue 33: 22 of 26 s searching).

class WholeCascade:
    """Which stage ends lead to a legal play when the whole cascade is maximised at once."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.stages = turn.stages
        # Every stage is of equal dice, so the dice a play uses are a prefix of these.
        self._dice_after = [tuple(d for s in self.stages[i:] for d in s) for i in range(len(self.stages))]
        self._dice_from = [len(dice) for dice in self._dice_after] + [0]
        self._dice = self._dice_after[0]
        # The pips the cascade's first k dice add up to, for each k.
        self._pips_of_first = tuple(accumulate(self._dice, initial=0))
        self._start_pips = sum(map(mul, turn.start.me, _FRAME_POSITIONS))   # (`may_show`'s)
        self._ends: dict[tuple[Node, int], list] = {}
        self._found: dict[tuple[Node, int], int] = {}
        self._possible: dict[tuple[Node, int], int] = {}
        # The points the opponent holds, all through the turn.
        self._closed = [False] + [bool(n) for n in turn.start.opp[1:OFF]]
        self._tables: dict[int, _BoundTables | None] = {}
        # `_walk`'s nodes gone through to the end: (node, dice played of the cascade) -> the most
        # dice of the cascade any sequence of moves from there reaches.
        self._walked: dict[tuple[Node, int], int] = {}
        # And the nodes on a way it found: the most dice of the cascade the way reaches (the
        # referee asks the same goal, the most, of every stage end, and their ways meet).
        self._ways: dict[tuple[Node, int], int] = {}
        self._stage_starts = frozenset(accumulate((len(s) for s in self.stages), initial=0))
        self.most = self.most_dice(turn.start, 0)

    def may_show(self, me: tuple[int, ...]) -> bool:
        """Whether a board where the mover's checkers stand as `me` (frame counts) may lie on the
        way to a legal play of the whole cascade, by `_bound`'s relaxation: after the dice its
        pips moved (a prefix of the cascade's; bearing off, a larger die may waste pips), the
        dice to come can still make up the most. A necessary condition, cheap
        enough to ask of every board judged: a board a stage-by-stage play reaches can be far
        from every legal one, and proving that stage end by stage end is dear."""
        start = self.turn.start.me
        gained = sum(map(mul, me, _FRAME_POSITIONS)) - self._start_pips
        # The dice played: those whose pips are the pips gained, or (bearing off) any more.
        pips_of_first = self._pips_of_first
        if me[OFF] > start[OFF]:
            played_counts = range(bisect_left(pips_of_first, gained), len(pips_of_first))
        else:   # (the pips of the first k dice rise with k: one k at most)
            first = bisect_left(pips_of_first, gained)
            played_counts = range(first, first + (first < len(pips_of_first) and pips_of_first[first] == gained))
        node = Node(me, self.turn.start.opp)
        return any(played + self._bound(node, played) >= self.most for played in played_counts)

    def keeps(self, end, stage: int) -> bool:
        """Whether the stage end `end` (a visit of `Turn.select_ends` for stage `stage`) is on the
        way to a legal play of the whole cascade."""
        return bool(self.kept([end], stage))

    def kept(self, ends: list, stage: int) -> list:
        """The stage ends of `ends` (visits of `Turn.select_ends` for stage `stage`) that `keeps`,
        in their order. Asked of every end of every stage tree the referee builds: those that play
        the whole stage share a goal, and its walk is set up once."""
        played = self._played_before(stage) + len(self.stages[stage])   # (the stage played in full)
        most = self.most
        if stage + 1 == len(self.stages):
            return [end for end in ends if _ended_midway(end) or played - len(end.remaining) == most]
        # No play uses more than `most`, so reaching it is reaching it exactly.
        goal, walk, reaches = most - played, None, self._reaches
        kept = []
        for end in ends:
            if end.remaining or end.result is not None:
                if _ended_midway(end) or played - len(end.remaining) == most:
                    kept.append(end)
                continue
            if walk is None:
                walk = self._walker(stage + 1, goal)
            if reaches(end.node, stage + 1, goal, walk):
                kept.append(end)
        return kept

    def most_dice(self, node: Node, stage: int) -> int:
        """The most dice the stages from `stage` on can play from `node` (each stage maximised on
        its own, a stage not played in full ending the turn)."""
        key = (node, stage)
        goal = self._possible_from(key)
        # Ask for the most still possible until a play reaches it: each miss lowers it.
        while not self._reaches(node, stage, goal):
            goal = self._possible[key]
        return goal

    def _reaches(self, node: Node, stage: int, goal: int,
                 walk: Callable[[Node], tuple[int, bool]] | None = None) -> bool:
        """Whether some play of the stages from `stage` on from `node` uses `goal` dice or more.
        Leaves `_found` at `goal` or more, or `_possible` below it. `walk`: `_walker(stage, goal)`,
        where the caller has it."""
        key = (node, stage)
        found = self._found.get(key, 0)
        if found >= goal or self._possible.get(key, goal) < goal:
            return found >= goal
        # The walk first: a way found is the common answer, and proves it without the bound.
        walked, exact = (walk or self._walker(stage, goal))(node)
        if walked >= goal:
            self._found[key] = walked
            return True
        if exact:   # no sequence of moves plays the goal
            self._possible[key] = walked
            return False
        if self._possible_from(key) < goal:
            return False
        size, last = len(self.stages[stage]), stage + 1 == len(self.stages)
        options = []  # (the most this end may lead to, dice it plays, the next stage's root)
        for end in self._stage_ends(node, stage):
            played = size - len(end.remaining)
            if end.result is None and not end.remaining and not last:
                options.append((played + self._possible_from((end.node, stage + 1)), played, end.node))
            else:
                options.append((played, played, None))
        options.sort(key=itemgetter(0), reverse=True)
        best = found
        proven = 0  # the most any end searched so far may lead to, all below `goal`
        for most_possible, played, root in options:
            if most_possible < goal:
                proven = max(proven, most_possible)  # so are all the ends after it
                break
            if root is None:
                best = max(best, played)
            else:
                after = (root, stage + 1)
                if not self._reaches(root, stage + 1, goal - played):
                    proven = max(proven, played + self._possible[after])
                best = max(best, played + self._found.get(after, 0))
            if best >= goal:
                break
        self._found[key] = best
        if best < goal:
            self._possible[key] = max(best, proven)
        return best >= goal

    def _walk(self, node: Node, stage: int, goal: int) -> tuple[int, bool]:
        """A depth-first walk, one legal move at a time (`Frame.steps`), of the next `goal` dice of
        the cascade from `node` (at the start of `stage`): the most dice a way it found plays
        (`goal` or more: one was found), and whether no sequence of moves plays more (the walk
        went everywhere within `_WALK_MOVES` nodes per die; the nodes gone through to the end, and
        those on a way found, are remembered for the turn).

        Every legal play is such a sequence, so the walk's most is a bound on the legal ones. And
        a way of `goal` dice is a legal play's start where a stage played in full is always a legal
        end of it (no limit judged at the end of a play, no obligation to open a prime at the
        stage's start, no game ended otherwise than by bearing off): a stage's legal ends are then
        those of the most dice, so the legal play goes on from it, or stops in a stage where it
        plays as many dice or more. One walk instead of a stage search per stage: a cascade whose
        every die can be played asks it of every stage end the referee meets.

        Where the rules judge a play's end by its board (Fevga's starting table, Moultezim's four
        points of the opponent's, Narde's prime with no opposing checker ahead): a full stage is a
        legal end where its board is allowed at a play's end (the allowed ends are preferred, then
        the most dice), so the walk's way must end each stage it plays in full on an allowed board,
        and a goal within a stage proves nothing (its legal ends may play fewer dice) and is not
        walked. The no-prime rule allows a prime that stood at the stage's start, which the walk
        does not follow: it allows a stage's end only with no such prime at all
        (`Frame.allowed_whatever_the_start`), a stricter test, so a way it finds is still a legal
        play's start, and a board it turns down leaves its answer inexact (the search decides)."""
        return self._walker(stage, goal)(node)

    def _walker(self, stage: int, goal: int) -> Callable[[Node], tuple[int, bool]]:
        """`_walk` of `goal` dice from the start of `stage`, its arguments made once for the nodes
        of many stage ends."""
        frame = self.turn.frame
        start = self._played_before(stage)
        if frame.mother_every_move or frame.end_limits and start + goal not in self._stage_starts:
            return _no_walk
        moves = _WALK_MOVES * goal
        config = frame.search_config
        if _compiled_walk is not None and config is not None:
            # In C (`_search.walk`): the same walk, what it went through remembered for the walk.
            dice = self._dice[start:]
            if _COMPILED_WALK_LIMITS and frame.walk_limits is not None:
                limits = (sum(1 << (index - start) for index in self._stage_starts if index >= start),
                          ) + frame.walk_limits
                return lambda node: _compiled_walk(node, dice, goal, config, moves, limits)
            if not frame.owes_openings and not frame.end_limits:    # (an extension built before)
                return lambda node: _compiled_walk(node, dice, goal, config, moves)
        return lambda node: self._python_walk(node, start, goal, moves)

    def _python_walk(self, node: Node, start: int, goal: int, moves: int) -> tuple[int, bool]:
        """`_walk` in Python, from the cascade's `start`-th die within `moves` nodes expanded: the
        specification of the compiled walk, with what it went through remembered for the turn."""
        frame = self.turn.frame
        target, dice, stage_starts = start + goal, self._dice, self._stage_starts
        steps, known, ways = frame.iter_steps, self._walked, self._ways
        allowed_at_end = frame.allowed_whatever_the_start if frame.end_limits else None
        left = moves

        def walk(node: Node, index: int) -> tuple[int, bool]:
            """(the most dice the walk reaches from `node`, counted from the cascade's first; exact)"""
            nonlocal left
            if allowed_at_end is not None and index != start and index in stage_starts \
                    and not allowed_at_end(node):
                return index - 1, False     # (a stage's full play ends here, not a legal end: no way)
            if index == target:
                return index, False     # (a way found: the callers stop there)
            most = known.get((node, index))
            if most is not None:
                return most, True
            reaches = ways.get((node, index), 0)
            if reaches >= target:
                return reaches, False
            if left <= 0 or index in stage_starts and frame.opening_duty(node) is not None:
                return index, False
            left -= 1
            best, exact = index, True
            for child, _ in steps(node, dice[index]):
                reached, child_exact = walk(child, index + 1)
                if reached >= target:
                    ways[node, index] = reached
                    return reached, False
                best, exact = max(best, reached), exact and child_exact
            if exact:
                known[(node, index)] = best
            return best, exact

        reached, exact = walk(node, start)
        return reached - start, exact

    def _possible_from(self, key: tuple[Node, int]) -> int:
        possible = self._possible.get(key)
        if possible is None:
            node, stage = key
            possible = self._possible[key] = self._bound(node, self._played_before(stage))
        return possible

    def _bound(self, node: Node, played: int) -> int:
        """An upper bound on the most dice after the cascade's first `played` (at a stage's start or
        within a stage) that can be played from `node`, by a relaxation in which the mover's
        checkers move independently, each by any of the dice still to come as often as it likes,
        onto any point the opponent does not hold.

        A checker's forward moves on the board add up to at most how far on it can get; it bears
        off at most once, only from a point a die still to come takes it off from, and only if
        every checker can get into the home board (rules.md). So the dice played, a prefix of those
        to come, add up to at most the pips all can travel (plus a die for each one that may bear
        off), and of those of w pips or more no more are played than the checkers can take such
        steps. The sums are weighted counts over `_BoundTables` (asked of every stage end a
        search meets: tens of thousands a turn)."""
        tables = self._bound_tables(played)
        if tables is None:
            return 0
        me = node.me
        all_home = not any([me[p] for p in tables.short_of_home])
        pips = sum(map(mul, me, tables.pips_per_checker[all_home]))
        most = bisect_right(tables.pips_of_first, pips) - 1
        for steps_per_checker, limit_at in tables.steps[all_home]:
            steps = sum(map(mul, me, steps_per_checker))
            if steps < len(limit_at) and limit_at[steps] < most:
                most = limit_at[steps]
        return most

    def _bound_tables(self, played: int) -> _BoundTables | None:
        """`_bound`'s weights for the dice after the cascade's first `played` (None: no die left)."""
        if played in self._tables:
            return self._tables[played]
        dice = self._dice[played:]
        tables = None
        if dice:
            farthest, may_bear_off = self._reach(played)
            travel = [farthest[p] - p for p in range(OFF)] + [0]
            bears = [int(b) for b in may_bear_off] + [0]   # nothing moves from off
            largest = max(dice)
            steps = ([], [])
            for w in sorted(set(dice)):
                # The die index at which a (m + 1)-th die of w pips or more would be played.
                limit_at = tuple(i for i, die in enumerate(dice) if die >= w)
                for all_home in (False, True):
                    steps[all_home].append((tuple(t // w + (all_home and b) for t, b in zip(travel, bears)),
                                            limit_at))
            tables = _BoundTables(
                short_of_home=tuple(p for p in range(OFF) if farthest[p] < HOME.start),
                pips_per_checker=(tuple(travel), tuple(t + largest * b for t, b in zip(travel, bears))),
                pips_of_first=tuple(accumulate(dice, initial=0)),
                steps=(tuple(steps[False]), tuple(steps[True])))
        self._tables[played] = tables
        return tables

    def _reach(self, played: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        """Per frame position 0..24: the farthest point a checker there can reach with the dice
        after the cascade's first `played` (any of them, any number of times, never onto the
        opponent's points), and whether it can bear off from some point it reaches."""
        values = set(self._dice[played:])
        farthest = [0] * OFF
        for p in range(OFF - 1, -1, -1):
            farthest[p] = max([p] + [farthest[p + v] for v in values
                                     if p + v < OFF and not self._closed[p + v]])
        largest = max(values)
        return tuple(farthest), tuple(far + largest >= OFF for far in farthest)

    def _played_before(self, stage: int) -> int:
        return self._dice_from[0] - self._dice_from[stage]

    def _stage_ends(self, node: Node, stage: int) -> list:
        key = (node, stage)
        if key not in self._ends:
            self._ends[key] = self.turn.stage_ends(node, self.stages[stage])
        return self._ends[key]


# The frame positions 0..25, each a checker's weight in a board's pips (`WholeCascade.may_show`).
_FRAME_POSITIONS = range(OFF + 1)

# `WholeCascade._walk`: the nodes tried per die before the walk gives up (and the search decides).
_WALK_MOVES = 3


def _no_walk(node: Node) -> tuple[int, bool]:
    """`WholeCascade._walk` where the rules leave a way it finds no proof: nothing found, not exact."""
    return 0, False


class _BoundTables(NamedTuple):
    """`WholeCascade._bound`'s weights for the dice after some played: each a per-frame-position
    weight (0..25) of the mover's checkers, by whether all can get into the home board."""

    short_of_home: tuple[int, ...]      # the positions from which a checker cannot get home
    pips_per_checker: tuple[tuple[int, ...], tuple[int, ...]]   # the pips a checker may travel
    pips_of_first: tuple[int, ...]      # the pips of the first k dice, for each k
    # Per die value w: the steps of w pips or more a checker may take, and the index of the die at
    # which the (m + 1)-th such step would be needed, for each m.
    steps: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]


@lru_cache(maxsize=None)
def _dice_splits(remaining: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """For sorted dice still to play: each distinct die, lowest first, with the dice left after it."""
    return tuple((die, remaining[:i] + remaining[i + 1:])
                 for i, die in enumerate(remaining) if i == 0 or remaining[i - 1] != die)


_PLAIN = ((False, False),)  # a landing that neither hits nor pins
_NO_PINS = (None,) * 24
_new_node = tuple.__new__     # Node(...) without the keyword handling, in the search's inner loop


def _ended_midway(visit: _Visit) -> bool:
    """Whether the game ended during the play otherwise than by bearing off the last checker (the
    mother pinned under mother_check = every_move): the dice left have nothing to be played on."""
    return visit.result is not None and visit.node.me[OFF] != CHECKERS


def _prefer(items: list, wanted) -> list:
    """The items that satisfy `wanted`, or all of them when none does (an obligation lapses)."""
    chosen = [item for item in items if wanted(item)]
    return chosen or items


@dataclass(frozen=True)
class _Duty:
    """An obligation at the start of the turn: end the play with one of `points` not held by the
    mover (unblock a prime), or leave the opponent a move (`opponent_moves`)."""

    points: tuple[int, ...] = ()
    opponent_moves: bool = False


# Per rule set (by identity: `Rules` holds a mapping and is not hashable): the `Frame` fields that
# the rules and the mover's side alone decide. A few dozen rule sets at most are in play at once.
_FACTS_KEPT = 64
_facts_by_rules: dict[int, tuple[Rules, dict[Color, dict[str, Any]]]] = {}


def _points_bits(points: range) -> int:
    return sum(1 << p for p in points)


def _frame_facts(rules: Rules, mover: Color) -> dict[str, Any]:
    kept = _facts_by_rules.get(id(rules))
    if kept is None or kept[0] is not rules:
        if len(_facts_by_rules) >= _FACTS_KEPT:
            _facts_by_rules.clear()
        kept = _facts_by_rules[id(rules)] = (rules, {color: _facts_of(rules, color) for color in (WHITE, BLACK)})
    return kept[1][mover]


def _facts_of(rules: Rules, mover: Color) -> dict[str, Any]:
    variant, opts = rules.variant, rules.options
    key = (variant.family, mover)
    start_rule = opts.get("start_rule", "none")
    table_every_move = opts.get("start_table_check") == "every_move"
    prime_rule = opts.get("prime_rule", "none")
    prime_every_move = prime_rule == "no_prime_without_opponent_ahead" and opts.get("prime_check") == "every_move"
    tables = {"none": (), "own": (OWN_START_TABLE,),
              "both": (OWN_START_TABLE, OPP_START_TABLE)}[opts.get("start_table_scope", "none")]
    mother_rule = bool(opts.get("mother_rule"))
    mother_every_move = mother_rule and opts.get("mother_check") == "every_move"
    mutual_no_move_draw = bool(opts.get("mutual_no_move_draw"))
    # The limits judged on the board a play ends on, point sets as bits of frame positions: the
    # sets it may not end holding all of, a set and how many of its points it may hold (-1: any).
    board_limits = (() if table_every_move else tuple(_points_bits(table) for table in tables),
                    _points_bits(OPP_START_TABLE), 4 if prime_rule == "opp_start_table_max4" else -1)
    return {
        "capture": variant.capture, "family": variant.family, "opts": opts,
        "route": ROUTES[key], "_board_of": _FRAME_OF_POINT[key], "_points_of_route": _POINT_OF_FRAME[key],
        "names": _NAMES[key],
        "first_checker": start_rule == "first_checker", "head_rule": start_rule == "head_rule",
        "release_from": 13 if opts.get("first_checker_release_at") == "start_quarter" else 14,
        "release_mid_turn": opts.get("first_checker_release_timing") == "immediate",
        "hit_and_run_frozen": bool(opts.get("no_hit_and_run_in_home")),
        "pinned_blocks_bearoff": bool(opts.get("pinned_blocks_bearoff")),
        "table_every_move": table_every_move, "prime_every_move": prime_every_move, "tables": tables,
        # Whether `allowed_at_end` can ever say no: most rule sets judge nothing at the end.
        "end_limits": bool(tables and not table_every_move)
        or prime_rule in ("opp_start_table_max4", "no_prime_without_opponent_ahead"),
        # `allowed_at_end`'s limits and `opening_duty`'s as the compiled walk judges them, point sets
        # as bits of frame positions: (the sets a play may not end holding all of, a set and how
        # many of its points it may hold, -1: any; whether the duty to unblock a prime applies;
        # whether a prime with no opposing checker ahead is refused, as `allowed_whatever_the_start`);
        # None where they read the opponent's moves.
        "walk_limits": None if prime_rule == "opponent_must_be_able_to_move"
        else board_limits + (int(prime_rule == "unblock_all_on_one_point"),
                             int(prime_rule == "no_prime_without_opponent_ahead")),
        # `allowed_at_end`'s limits as the compiled `allowed_ends` judges them: the board's, and
        # whether a prime with no opposing checker ahead of it must have stood at the play's start.
        "end_limit_bits": board_limits + (int(prime_rule == "no_prime_without_opponent_ahead"),),
        # Whether `opening_duty` can ever name a duty: the prime rules that oblige one.
        "owes_openings": prime_rule in ("unblock_all_on_one_point", "opponent_must_be_able_to_move"),
        "mother_rule": mother_rule, "mother_every_move": mother_every_move,
        "mutual_no_move_draw": mutual_no_move_draw,
        # Whether a play can end the game otherwise than by bearing off, judged on the position it
        # ends in (`result` with end_of_turn); bearing off all is found by the search.
        "ends_at_end_of_turn": mother_rule or mutual_no_move_draw,
        "python_search_only": table_every_move or prime_every_move or mother_every_move,
        "capture_code": _CAPTURE_CODES[variant.capture], "entry_may_trap": bool(opts.get("entry_may_trap")),
    }


class Frame:
    """The mover's view of a position and the per-move rules, used by the search."""

    def __init__(self, position: Position, mover: Color, rules: Rules,
                 dice: tuple[int, ...] | None = None):
        self.position = position
        self.mover = mover
        self.rules = rules
        # What the rules and the mover's side fix, read once per rule set (`_frame_facts`): a
        # turn of one or two plays is otherwise mostly this set-up.
        self.__dict__.update(_frame_facts(rules, mover))
        self.node = self._node_of(position)
        rolls = position.rolls
        self._after_turn = (mover.opponent, (rolls[0] + 1, rolls[1]) if mover is WHITE else (rolls[0], rolls[1] + 1))
        self._last_opp, self._last_opp_board = None, ()
        self._moves_known: dict[FrameMove, Move] = {}
        self.head_limit = 0
        if self.head_rule:
            opts = self.opts
            first_roll = rolls[mover.index] == 0
            doubles = dice is not None and len(dice) == 2 and dice[0] == dice[1]
            two_off = first_roll and doubles and dice[0] in opts["head_rule_first_roll_doubles"]
            self.head_limit = 2 if two_off else 1
        self.released_at_start = self._released(self.node)
        # What the compiled search needs to know of the rules, or None where a move is judged by a
        # Python predicate (the every-move checks of tables, primes and the mother).
        self.search_config: tuple[int, ...] | None = None if self.python_search_only else (
            self.capture_code, self.entry_may_trap, self.pinned_blocks_bearoff, self.first_checker,
            self.released_at_start, self.release_mid_turn, self.release_from, self.head_limit,
            self.hit_and_run_frozen)

    # -- conversion ----------------------------------------------------------------------------

    def _node_of(self, position: Position) -> Node:
        mover, on_route, bar, off = self.mover, self._points_of_route, position.bar, position.off
        # (Once per turn: written out, as the colours' properties cost a third of it.)
        if mover is WHITE:
            mine, theirs, side, other = position.white, position.black, 0, 1
        else:
            mine, theirs, side, other = position.black, position.white, 1, 0
        me = (bar[side],) + on_route(mine) + (off[side],)
        opp = (bar[other],) + on_route(theirs) + (off[other],)
        my_pins = opp_pins = 0
        if any(position.pinned):
            for p, pinned in enumerate(on_route(position.pinned), 1):
                if pinned is mover:
                    my_pins |= 1 << p
                elif pinned is not None:
                    opp_pins |= 1 << p
        return _new_node(Node, (me, opp, my_pins, opp_pins, (), 0))

    def to_position(self, node: Node, played_turn: bool) -> Position:
        return Position(*self._position_fields(node, played_turn))

    def position_text(self, node: Node) -> str:
        """The JSON text of the position after a play ending in `node` (`Position.to_json_text`),
        without building the Position."""
        return position_text(*self._position_fields(node, played_turn=True))

    def _position_fields(self, node: Node, played_turn: bool) -> tuple:
        """`Position`'s fields, in order, of `node` (after the turn, or the mover still to move)."""
        mover = self.mover
        me, opp, my_pins, opp_pins, _, _ = node
        mine = self._board_of(me)
        # The opponent's checkers are the same object in most plays of a roll (all but the hits).
        if opp is not self._last_opp:
            self._last_opp, self._last_opp_board = opp, self._board_of(opp)
        theirs = self._last_opp_board
        pinned: tuple[Color | None, ...] = _NO_PINS
        if my_pins or opp_pins:
            pins: list[Color | None] = [None] * 24
            for bits, trapped in ((opp_pins, mover.opponent), (my_pins, mover)):
                while bits:  # each set bit: a frame position with a pin
                    lowest = bits & -bits
                    pins[self.route[lowest.bit_length() - 1] - 1] = trapped
                    bits ^= lowest
            pinned = tuple(pins)
        if mover is WHITE:
            white, black, bar, off = mine, theirs, (me[BAR], opp[BAR]), (me[OFF], opp[OFF])
        else:
            white, black, bar, off = theirs, mine, (opp[BAR], me[BAR]), (opp[OFF], me[OFF])
        turn, rolls = self._after_turn if played_turn else (mover, self.position.rolls)
        return self.position.variant, turn, white, black, bar, off, pinned, rolls

    def point(self, frame_position: int) -> str:
        return self.names[frame_position]

    def moves(self, frame_moves: Iterable[FrameMove]) -> tuple[Move, ...]:
        known = self._moves_known  # the plays of a roll share most of their moves
        return tuple([known.get(move) or self._move(move) for move in frame_moves])

    def _move(self, frame_move: FrameMove) -> Move:
        source, target, die, hit, pin = frame_move
        move = self._moves_known[frame_move] = Move(self.names[source], self.names[target], die, hit, pin)
        return move

    def steps(self, node: Node, die: int) -> list[tuple[Node, FrameMove]]:
        """Every legal move of one checker by `die` from `node`."""
        return list(self.iter_steps(node, die))

    def iter_steps(self, node: Node, die: int) -> Iterator[tuple[Node, FrameMove]]:
        """`steps` one by one, for a caller that may stop at the first (`WholeCascade._walk`)."""
        me, opp, my_pins, opp_pins, frozen, head = node
        if me[BAR]:
            sources: Iterable[int] = (BAR,)  # a checker on the bar enters first
        else:
            bearing_off = not any(me[:19]) and not (my_pins and self.pinned_blocks_bearoff)
            # Unless bearing off, a checker fewer than `die` points from the end cannot move.
            last = OFF if bearing_off else OFF - die
            sources = compress(range(1, last), me[1:last])  # the occupied points only
        for source in sources:
            movable = me[source] - (my_pins >> source & 1)
            if frozen:
                movable -= frozen.count(source)
            if movable <= 0:
                continue
            moved_head = head
            if source == START:
                if self.first_checker and me[START] != CHECKERS and not (
                        self.released_at_start or self.release_mid_turn and self._released(node)):
                    continue  # no second checker leaves the start before the first has passed
                if self.head_limit:
                    if head >= self.head_limit:
                        continue
                    moved_head = head + 1
            target = source + die
            if target >= OFF:
                if target > OFF and any(me[19:source]):
                    continue  # a larger die bears off only from the highest occupied point
                landings: tuple[tuple[bool, bool], ...] = _PLAIN
                target = OFF
            elif opp[target]:
                landings = self._landings(node, source, target)
                if not landings:
                    continue
            else:
                landings = _PLAIN
            moved = list(me)
            moved[source] -= 1
            moved[target] += 1
            me_t = tuple(moved)
            left_pins = opp_pins
            if opp_pins and source != BAR and not moved[source] and opp_pins >> source & 1:
                left_pins &= ~(1 << source)  # the pinned checker is free once all pinners have left
            for hit, pin in landings:
                child_opp, child_opp_pins, child_frozen = opp, left_pins, frozen
                if hit:
                    hit_opp = list(opp)
                    hit_opp[target] -= 1
                    hit_opp[BAR] += 1
                    child_opp = tuple(hit_opp)
                    if self.hit_and_run_frozen and target in HOME:
                        child_frozen = tuple(sorted(frozen + (target,)))
                elif pin:
                    child_opp_pins |= 1 << target
                child = _new_node(Node, (me_t, child_opp, my_pins, child_opp_pins, child_frozen,
                                         moved_head))
                if not (self.table_every_move and self._holds_table(child)
                        or self.prime_every_move and self._completes_prime(node, child)):
                    yield child, (source, target, die, hit, pin)

    def _landings(self, node: Node, source: int, target: int) -> tuple[tuple[bool, bool], ...]:
        """(hit, pin) for each way the checker may land on a `target` the opponent occupies;
        empty when it is closed."""
        opposing = node.opp[target]
        if self.capture is Capture.NONE or opposing >= 2:
            return ()
        if node.me[target]:
            # One opposing checker on a point we also hold: either it pins us (closed) or we pin it.
            return () if node.my_pins >> target & 1 else ((False, False),)
        if self.capture is Capture.HIT:
            return ((True, False),)
        if self.capture is Capture.PIN:
            return ((False, True),)
        if source == BAR and not self.opts.get("entry_may_trap"):
            return ((True, False),)
        return ((True, False), (False, True))

    def _released(self, node: Node) -> bool:
        me = node.me
        return bool(me[OFF]) or any(me[self.release_from:OFF])

    def _holds_table(self, node: Node) -> bool:
        me = node.me   # (a slice per table: asked of every state a search of a roll reaches)
        return any(all(me[table.start:table.stop]) for table in self.tables)

    # -- end of a play -------------------------------------------------------------------------

    def allowed_at_end(self, node: Node, turn_start: Node) -> bool:
        """The limits judged on the position a play ends in."""
        if self.tables and not self.table_every_move and self._holds_table(node):
            return False
        prime_rule = self.opts.get("prime_rule", "none")
        if prime_rule == "opp_start_table_max4":
            # (points held: those not empty, by a slice; asked of every state a search reaches)
            held = len(OPP_START_TABLE) - node.me[OPP_START_TABLE.start:OPP_START_TABLE.stop].count(0)
            return held <= 4
        if prime_rule == "no_prime_without_opponent_ahead":
            return not any(not all(turn_start.me[q] for q in self._prime(first))
                           for first in self._primes_without_opponent_ahead(node))
        return True

    def allowed_whatever_the_start(self, node: Node) -> bool:
        """`allowed_at_end` after a start that held no point: the board allowed whatever the play's
        start (the no-prime rule, which allows a prime that stood at the start, then refuses every
        prime with no opposing checker ahead; the other limits read the board alone)."""
        return self.allowed_at_end(node, _NO_POINTS_HELD)

    def allowed_ends(self, visits: list[_Visit], turn_start: Node) -> list[_Visit]:
        """The `visits` whose play may end there: the game over, or `allowed_at_end`. Judged in C
        where the extension is built (`end_limit_bits`): asked of every state a search of a roll
        reaches, and under whole-cascade maximisation of every stage searched."""
        if _compiled_allowed_ends is not None and _search is not None:
            return _compiled_allowed_ends(visits, self.end_limit_bits, turn_start.me)
        allowed_at_end = self.allowed_at_end
        return [visit for visit in visits if visit.result or allowed_at_end(visit.node, turn_start)]

    def _primes_without_opponent_ahead(self, node: Node) -> Iterator[int]:
        """The opponent's route index where each such prime starts: a walk along his route, a
        prime being the six points up to where a run of held points reaches six or more."""
        me, run = node.me, 0
        for last, p in enumerate(_OPPONENT_ROUTE):
            run = run + 1 if me[p] else 0
            if run >= 6 and self._prime_without_opponent_ahead(node, last - 5):
                yield last - 5

    def _completes_prime(self, before: Node, after: Node) -> bool:
        """prime_check = every_move: the move from `before` to `after` completes a prime without
        an opposing checker ahead (one that was not already held)."""
        return any(not all(before.me[q] for q in self._prime(first))
                   for first in self._primes_without_opponent_ahead(after))

    @staticmethod
    def _opponent_route_position(opponent_index: int) -> int:
        """Parallel games: the mover's frame position of the opponent's route index 0..23."""
        return (opponent_index + 12) % 24 + 1

    def _prime(self, first: int) -> tuple[int, ...]:
        """The six frame positions from the opponent's route index `first` on."""
        return _OPPONENT_ROUTE[first:first + 6]

    def _prime_without_opponent_ahead(self, node: Node, first: int) -> bool:
        if not all(node.me[p] for p in self._prime(first)):
            return False
        return not any(node.opp[p] for p in _OPPONENT_ROUTE[first + 6:])

    def opening_duty(self, node: Node) -> _Duty | None:
        """The prime the mover must open this turn, if the prime rule demands one."""
        if not self.owes_openings:
            return None
        prime_rule = self.opts.get("prime_rule", "none")
        if prime_rule == "unblock_all_on_one_point":
            occupied = [p for p in range(1, 25) if node.opp[p]]
            if len(occupied) != 1:
                return None
            behind = (occupied[0] - 1 - 12) % 24  # opponent's route index of his one point
            if behind + 6 > 23:
                return None
            prime = self._prime(behind + 1)
            return _Duty(points=prime) if all(node.me[p] for p in prime) else None
        if prime_rule == "opponent_must_be_able_to_move":
            # Never close him in, and free him if he is closed in (dossier A5 form 3 and T39).
            return _Duty(opponent_moves=True)
        return None

    def fulfils(self, duty: _Duty, node: Node) -> bool:
        if duty.opponent_moves:
            return self.opponent_can_move(node)
        return not all(node.me[p] for p in duty.points)

    def opponent_can_move(self, node: Node) -> bool:
        return side_can_move(self.to_position(node, played_turn=True), self.rules)

    def result(self, node: Node, turn_start: Node, end_of_turn: bool) -> GameResult | None:
        """The game's end, if `node` ends it: all borne off, the mother rule, or a draw."""
        if node.me[OFF] == CHECKERS:
            return self._bear_off_result(node)
        if self.mother_rule and (end_of_turn or self.mother_every_move):
            outcome = self._mother_result(node, turn_start)
            if outcome is not None:
                return outcome
        if end_of_turn and self.mutual_no_move_draw and \
                blocked_for_good(self.to_position(node, played_turn=True), self.rules):
            return GameResult(None, 0, "tie")
        return None

    def _bear_off_result(self, node: Node) -> GameResult:
        if node.opp[OFF]:
            return GameResult(self.mover, 1, "bear-off")
        # Koks: the loser still has a checker in the winner's home board.
        if self.opts.get("koks") and any(node.opp[p] for p in HOME):
            return GameResult(self.mover, 3, "koks")
        return GameResult(self.mover, 2, "gammon")

    def _mother_result(self, node: Node, turn_start: Node) -> GameResult | None:
        # Contrary games: the mover's start is frame 1, the opponent's start is frame 24.
        opp_start = 24
        my_mother_pinned = bool(node.my_pins >> START & 1)
        opp_mother_pinned = bool(node.opp_pins >> opp_start & 1)
        if my_mother_pinned and opp_mother_pinned:
            return GameResult(None, 0, "tie")
        if opp_mother_pinned and not (self.opts["mother_exception"] != "none" and node.me[START]):
            newly = not turn_start.opp_pins >> opp_start & 1
            if newly or self.opts["mother_deferred_win"]:
                return GameResult(self.mover, self.opts["mother_loss_points"], "mother")
        # The mover's own mother, if pinned, was judged when it was pinned: only the pinner's
        # turn can clear the pinner's start.
        return None


# Parallel games: the opponent's route (index 0..23) as the mover's frame positions.
_OPPONENT_ROUTE = tuple(Frame._opponent_route_position(i) for i in range(24))
_NO_POINTS_HELD = Node((0,) * (OFF + 1), (0,) * (OFF + 1))   # (`Frame.allowed_whatever_the_start`)


def side_can_move(position: Position, rules: Rules) -> bool:
    """Whether the side to move has any single legal move with some die."""
    frame = Frame(position, position.turn, rules)
    return any(frame.steps(frame.node, die) for die in range(1, 7))


def blocked_for_good(position: Position, rules: Rules) -> bool:
    """Neither side can move with any die, so the position can never change (dossier A20): a
    draw under `mutual_no_move_draw`, otherwise both sides pass for ever."""
    return not side_can_move(position, rules) and \
        not side_can_move(position.with_turn(position.turn.opponent), rules)
