"""Test support for the referee, written from the issue and the rule texts, not from the referee.

/work/shared/spec/architecture.md ("Judging physical moves"), position-json.md and rules.md. The
referee is judged against a second, independent reading of those texts:

* readings are `Reading` values changed here by hand: `moved` applies one move (origin -1,
  destination +1, a hit sends the opposing checker on the destination to the bar), `changed`
  adds or takes away checkers (lifting one into the hand), `after_step` follows one guidance
  `Step` and `follow_guidance` follows them until the verdict is no longer illegal;
* `ModelTree` is an independent play tree: it plays the dice one at a time with its own single-move
  rules (closing, bar first, pins, bearing off, hit-and-run in home, first checker, head rule) and
  keeps every state from which one of the engine's legal plays (`legal_plays`, the finals) is still
  reachable. Its readings are the legal readings of the turn; the model is cross-checked against
  the engine's own plays (every prefix of every play must be in it);
* `CascadeModel` does the same for Gul Bara's cascading doubles, stage by stage, without the engine;
* `random_turns` walks a random game with `Turn.pick_play` (hypothesis draws the dice and choices).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Iterator, Mapping, NamedTuple

from hypothesis import strategies as st

from firmware_host.referee import Reading, Referee, Step, Verdict
from firmware_host.rules import BLACK, WHITE, Color, Position, Turn, legal_plays

CHECKERS = 15
ALL_VARIANTS = ("portes", "tavla", "plakoto", "tapa", "neverfinishing",
                "fevga", "moultezim", "gulbara", "narde")
PARALLEL = ("fevga", "moultezim", "gulbara", "narde")
HITTING = ("portes", "tavla", "neverfinishing")     # rules.md: the games with a bar
# The broad properties keep gulbara's cascades out (the issue: they are tested on fixed positions).
NO_CASCADES = {v: None for v in ALL_VARIANTS} | {"gulbara": {"cascading_doubles": False}}
LOCATIONS = ("bar",) + tuple(str(p) for p in range(1, 25)) + ("off",)

# -- geometry (position-json.md) -----------------------------------------------------------------


def route(variant: str, color: Color) -> tuple[int, ...]:
    """The points in `color`'s order of travel: White 24 -> 1; Black 1 -> 24 in the contrary
    games, 12 -> 1 then 24 -> 13 in the parallel ones. Index 18..23 is the home board."""
    if color is WHITE:
        return tuple(range(24, 0, -1))
    if variant in PARALLEL:
        return tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))
    return tuple(range(1, 25))


# -- readings changed by hand --------------------------------------------------------------------


def count(reading: Reading, color: Color, location: str) -> int:
    i = color.index
    if location == "bar":
        return reading.bar[i]
    if location == "off":
        return reading.off[i]
    return (reading.white if color is WHITE else reading.black)[int(location) - 1]


def changed(reading: Reading, color: Color, location: str, delta: int) -> Reading:
    """`reading` with `delta` checkers of `color` added on `location` (negative: taken away)."""
    i = color.index
    if location in ("bar", "off"):
        pair = list(getattr(reading, location))
        pair[i] += delta
        assert pair[i] >= 0, f"no {color} checker on {location}"
        return replace(reading, **{location: tuple(pair)})
    points = list(reading.white if color is WHITE else reading.black)
    points[int(location) - 1] += delta
    assert points[int(location) - 1] >= 0, f"no {color} checker on {location}"
    return replace(reading, **{color.value: tuple(points)})


def moved(reading: Reading, color: Color, origin: str, destination: str, hit: bool = False) -> Reading:
    """One checker of `color` from `origin` to `destination`; with `hit`, the opposing checker on
    the destination goes to the bar (the issue's recipe for applying a move to a reading)."""
    reading = changed(changed(reading, color, origin, -1), color, destination, +1)
    if hit:
        reading = changed(changed(reading, color.opponent, destination, -1), color.opponent, "bar", +1)
    return reading


def after_step(reading: Reading, step: Step) -> Reading:
    """Follow one guidance step: a checker from the hand is only put down."""
    if step.origin != "hand":
        reading = changed(reading, step.color, step.origin, -1)
    return changed(reading, step.color, step.destination, +1)


def differing(a: Reading, b) -> tuple[str, ...]:
    """Locations where two readings (or a reading and a position) differ, in LOCATIONS order."""
    b = b if isinstance(b, Reading) else Reading.of(b)
    return tuple(loc for loc in LOCATIONS
                 if any(count(a, c, loc) != count(b, c, loc) for c in (WHITE, BLACK)))


def distance(a: Reading, b: Reading) -> int:
    """Single-checker steps (a checker from one location to another) between two full readings."""
    return sum(max(0, count(a, c, loc) - count(b, c, loc)) for c in (WHITE, BLACK) for loc in LOCATIONS)


def reading_of(position: Position) -> Reading:
    return Reading.of(position)


def reading_json(reading: Reading) -> dict:
    """The reading as the position JSON without pins, turn and rolls (position-json.md)."""
    data = {"variant": reading.variant}
    for color, points in (("white", reading.white), ("black", reading.black)):
        i = 0 if color == "white" else 1
        data[color] = {"points": {str(p): n for p, n in enumerate(points, 1) if n},
                       "bar": reading.bar[i], "off": reading.off[i]}
    return data


def position_json_reading(position: Position) -> dict:
    data = position.to_json()
    for key in ("turn", "rolls", "pinned"):
        data.pop(key, None)
    return data


# -- building positions --------------------------------------------------------------------------


def pos(variant: str, white: Mapping[int, int] | None = None, black: Mapping[int, int] | None = None,
        *, turn: str = "white", pinned: Mapping[int, str] | None = None,
        bar: tuple[int, int] = (0, 0), rolls: tuple[int, int] = (0, 0)) -> Position:
    """A position through the JSON reader; whatever is not on the board or the bar is borne off."""
    sides = {}
    for name, points, n_bar in (("white", dict(white or {}), bar[0]), ("black", dict(black or {}), bar[1])):
        on_board = sum(points.values()) + n_bar
        sides[name] = {"points": {str(p): n for p, n in points.items()}, "bar": n_bar,
                       "off": CHECKERS - on_board}
    data = {"variant": variant, "turn": turn, **sides, "rolls": {"white": rolls[0], "black": rolls[1]}}
    if pinned:
        data["pinned"] = {str(p): c for p, c in pinned.items()}
    return Position.from_json(data)


def describe(reading: Reading) -> str:
    def side(points):
        return " ".join(f"{p}:{n}" for p, n in sorted(enumerate(points, 1), reverse=True) if n)
    return (f"W{{{side(reading.white)}}} B{{{side(reading.black)}}} bar{reading.bar[0]}/{reading.bar[1]} "
            f"off{reading.off[0]}/{reading.off[1]}")


# -- an independent play tree ----------------------------------------------------------------------

OPTION_DEFAULTS = {   # rules.md, "Special rules (defaults)" and the option table
    "portes": {},
    "tavla": {"no_hit_and_run_in_home": True},
    "plakoto": {"pinned_blocks_bearoff": True},
    "tapa": {"pinned_blocks_bearoff": True},
    "neverfinishing": {"pinned_blocks_bearoff": True, "entry_may_trap": True},
    "fevga": {"first_checker": True},
    "moultezim": {"first_checker": True},
    "gulbara": {},
    "narde": {"head_rule": True},
}


class State(NamedTuple):
    """A model state in the mover's frame: 0 = his bar, 1..24 his route, 25 = off."""

    me: tuple[int, ...]
    opp: tuple[int, ...]          # the opponent's checkers on the mover's frame
    my_pins: frozenset            # frame points where the mover's checker is pinned
    opp_pins: frozenset           # frame points where the mover pins an opposing checker
    frozen: tuple[int, ...]       # tavla: points of checkers that hit in their home board
    head: int                     # narde: checkers taken off the start this turn
    remaining: tuple[int, ...]    # dice still to play, sorted


class ModelMove(NamedTuple):
    source: int
    target: int
    die: int
    hit: bool
    pin: bool


class ModelTree:
    """Every state on the way to one of the engine's legal plays, by the model's own move rules.

    `readings` maps each legal reading of the turn to its model states; `finals` are the readings
    of the plays' final positions.
    """

    def __init__(self, position: Position, dice: tuple[int, int], options: Mapping | None = None,
                 plays=None):
        self.position = position
        self.variant = variant = position.variant
        self.mover = mover = position.turn
        opts = dict(OPTION_DEFAULTS[variant])
        for key, value in (options or {}).items():
            opts[key] = value
        assert set(opts) <= {"no_hit_and_run_in_home", "pinned_blocks_bearoff", "entry_may_trap",
                             "first_checker", "head_rule", "cascading_doubles"}, opts
        assert not opts.get("cascading_doubles"), "the model plays no cascades"
        self.opts = opts
        self.route = route(variant, mover)
        self.opp_route = route(variant, mover.opponent)
        self.frame_of_point = {p: i for i, p in enumerate(self.route, 1)}
        self.capture = ("none" if variant in PARALLEL else "hit" if variant in ("portes", "tavla")
                        else "pin" if variant in ("plakoto", "tapa") else "choice")
        a, b = dice
        all_dice = (a,) * 4 if a == b else tuple(sorted(dice))
        self.head_limit = 1
        if opts.get("head_rule") and position.rolls[mover.index] == 0 and a == b and a in (3, 4, 6):
            self.head_limit = 2
        self.plays = legal_plays(position, dice, options) if plays is None else plays
        self.start = self._state_of(position, all_dice)
        # A play ends the turn after its moves; one that bears off the last checker ends the game
        # however many dice it took to get there.
        final_keys = {(p.position.board_key(), len(p.moves)) for p in self.plays}
        game_over = {p.position.board_key() for p in self.plays if p.result is not None}
        # Every state reachable die by die, and the edges between them.
        self.edges: dict[State, list[tuple[ModelMove, State]]] = {}
        level = [self.start]
        seen = {self.start}
        ends = set()
        while level:
            nxt = []
            for state in level:
                used = len(all_dice) - len(state.remaining)
                key = self.board_key(state)
                if (key, used) in final_keys or state.me[25] == CHECKERS and key in game_over:
                    ends.add(state)
                children = self.edges.setdefault(state, [])
                for move, child in self.steps(state):
                    children.append((move, child))
                    if child not in seen:
                        seen.add(child)
                        nxt.append(child)
            level = nxt
        alive = reaching(self.edges, ends)
        self.alive = alive
        self.ends = ends
        self.readings: dict[Reading, list[State]] = defaultdict(list)
        for state in alive:
            self.readings[self.reading(state)].append(state)
        self.finals = {self.reading(s) for s in ends}
        self.start_reading = self.reading(self.start)

    # conversions ---------------------------------------------------------------------------------
    def _state_of(self, position: Position, dice: tuple[int, ...]) -> State:
        mover, opp = self.mover, self.mover.opponent
        me = [position.bar[mover.index]] + [position.count(mover, p) for p in self.route] \
            + [position.off[mover.index]]
        them = [position.bar[opp.index]] + [position.count(opp, p) for p in self.route] \
            + [position.off[opp.index]]
        pins = position.pinned_points()
        my_pins = frozenset(self.frame_of_point[p] for p, c in pins.items() if c is mover)
        opp_pins = frozenset(self.frame_of_point[p] for p, c in pins.items() if c is opp)
        return State(tuple(me), tuple(them), my_pins, opp_pins, (), 0, dice)

    def reading(self, state: State) -> Reading:
        mine, theirs = [0] * 24, [0] * 24
        for i, p in enumerate(self.route, 1):
            mine[p - 1], theirs[p - 1] = state.me[i], state.opp[i]
        m = self.mover.index
        bar, off = [0, 0], [0, 0]
        bar[m], bar[1 - m] = state.me[0], state.opp[0]
        off[m], off[1 - m] = state.me[25], state.opp[25]
        white, black = (mine, theirs) if self.mover is WHITE else (theirs, mine)
        return Reading(self.variant, tuple(white), tuple(black), tuple(bar), tuple(off))

    def pinned(self, state: State) -> dict[int, Color]:
        pins = {self.route[f - 1]: self.mover for f in state.my_pins}
        pins.update({self.route[f - 1]: self.mover.opponent for f in state.opp_pins})
        return pins

    def board_key(self, state: State) -> tuple:
        r = self.reading(state)
        pinned = [None] * 24
        for p, c in self.pinned(state).items():
            pinned[p - 1] = c
        return (r.white, r.black, r.bar, r.off, tuple(pinned))

    def name(self, frame: int) -> str:
        return "bar" if frame == 0 else "off" if frame == 25 else str(self.route[frame - 1])

    # the single-move rules (rules.md) --------------------------------------------------------------
    def released(self, state: State) -> bool:
        """First checker: one checker has passed the opponent's start point (White on 11 or lower,
        Black on 13-23) or is borne off."""
        if state.me[25]:
            return True
        passed = range(1, 12) if self.mover is WHITE else range(13, 24)
        return any(state.me[self.frame_of_point[p]] for p in passed)

    def steps(self, state: State) -> Iterator[tuple[ModelMove, State]]:
        for die in sorted(set(state.remaining)):
            rest = list(state.remaining)
            rest.remove(die)
            rest = tuple(rest)
            sources = [0] if state.me[0] else [s for s in range(1, 25) if state.me[s]]
            for source in sources:
                yield from self._move(state, source, die, rest)

    def _move(self, state: State, source: int, die: int, rest: tuple[int, ...]):
        me, opp, opts = state.me, state.opp, self.opts
        movable = me[source] - (source in state.my_pins) - state.frozen.count(source)
        if movable <= 0:
            return
        head = state.head
        if source == 1:
            if opts.get("first_checker") and me[1] != CHECKERS and not self.released(state):
                return
            if opts.get("head_rule"):
                if head >= self.head_limit:
                    return
                head += 1
        target = source + die
        landings = [(False, False)]
        if target >= 25:
            home = all(me[p] == 0 for p in range(0, 19))
            if not home or (opts.get("pinned_blocks_bearoff") and state.my_pins):
                return
            if target > 25 and any(me[p] for p in range(19, source)):
                return
            target = 25
        elif opp[target]:
            if self.capture == "none" or opp[target] >= 2:
                return
            if me[target]:
                if target in state.my_pins:
                    return        # a lone opposing checker pinning ours closes the point
                landings = [(False, False)]   # we pin it already: stack on it
            elif self.capture == "hit":
                landings = [(True, False)]
            elif self.capture == "pin":
                landings = [(False, True)]
            elif source == 0 and not opts.get("entry_may_trap"):
                landings = [(True, False)]
            else:
                landings = [(True, False), (False, True)]
        new_me = list(me)
        new_me[source] -= 1
        new_me[target] += 1
        opp_pins = state.opp_pins
        if source in opp_pins and new_me[source] == 0:
            opp_pins = opp_pins - {source}
        for hit, pin in landings:
            new_opp, pins, frozen = opp, opp_pins, state.frozen
            if hit:
                changed_opp = list(opp)
                changed_opp[target] -= 1
                changed_opp[0] += 1
                new_opp = tuple(changed_opp)
                if opts.get("no_hit_and_run_in_home") and target >= 19:
                    frozen = tuple(sorted(frozen + (target,)))
            if pin:
                pins = pins | {target}
            child = State(tuple(new_me), new_opp, state.my_pins, pins, frozen, head, rest)
            yield ModelMove(source, target, die, hit, pin), child

    # what the referee should say ---------------------------------------------------------------
    def expected_kind(self, reading: Reading) -> str | None:
        if reading in self.finals:
            return "complete"
        if reading == self.start_reading:
            return "unchanged"
        if reading in self.readings:
            return "partial"
        return None

    def remainders(self, reading: Reading) -> set[tuple[int, ...]]:
        return {s.remaining for s in self.readings[reading]}

    def pins_of(self, reading: Reading) -> set[tuple]:
        return {tuple(sorted(self.pinned(s).items())) for s in self.readings[reading]}

    def destinations(self, reading: Reading) -> dict[str, tuple[str, ...]]:
        """For each location a checker may move from next: where it may end up, by one die or
        several dice played in a row by the same checker, staying on the way to a legal play."""
        found: dict[int, set[int]] = defaultdict(set)
        for state in self.readings[reading]:
            stack = [(m.source, m.target, c) for m, c in self.edges[state] if c in self.alive]
            done = set()
            while stack:
                item = stack.pop()
                if item in done:
                    continue
                done.add(item)
                origin, at, child = item
                found[origin].add(at)
                if at == 25:
                    continue
                stack.extend((origin, m.target, c) for m, c in self.edges[child]
                             if c in self.alive and m.source == at)
        return {self.name(o): tuple(sorted((self.name(t) for t in ts), key=self._rank))
                for o, ts in found.items()}

    def _rank(self, name: str) -> int:
        return 0 if name == "bar" else 25 if name == "off" else self.frame_of_point[int(name)]

    def lifted_destinations(self, origin: str) -> set[str]:
        """The issue's definition: the points t such that the turn's start with one checker of the
        mover moved origin -> t (hitting or trapping a lone checker there, where the game does) is
        a legal reading of the turn."""
        start = self.start_reading
        found = set()
        for t in LOCATIONS:
            if t in (origin, "bar"):
                continue
            plain = moved(start, self.mover, origin, t)
            hit = (t not in ("off",) and self.capture in ("hit", "choice")
                   and count(start, self.mover.opponent, t) == 1
                   and moved(start, self.mover, origin, t, hit=True))
            if plain in self.readings or (hit and hit in self.readings):
                found.add(t)
        return found


# -- random games --------------------------------------------------------------------------------


def draw_choice(data):
    def pick(items):
        return items[data.draw(st.integers(0, len(items) - 1), label="choice")]
    return pick


def random_turns(data, variant: str, options=None, max_turns: int = 200):
    """Yield (position, dice) for each turn of one random game; the play is drawn afterwards."""
    position = Position.start(variant, data.draw(st.sampled_from([WHITE, BLACK]), label="starter"))
    for _ in range(max_turns):
        dice = (data.draw(st.integers(1, 6), label="die"), data.draw(st.integers(1, 6), label="die"))
        yield position, dice
        play = Turn(position, dice, options).pick_play(draw_choice(data))
        if play.result is not None:
            return
        position = play.position


def follow_guidance(referee: Referee, reading: Reading, limit: int | None = None
                    ) -> tuple[Verdict, int, list[str]]:
    """Apply steps[0] of each verdict and judge again until the verdict is not illegal.

    Returns the last verdict, the number of steps followed and a trail for messages; stops after
    `limit` + 1 steps (a guidance that does not converge)."""
    verdict = referee.judge(reading)
    followed, trail = 0, [describe(reading)]
    while verdict.kind == "illegal":
        if limit is not None and followed > limit:
            break
        assert verdict.steps, f"an illegal verdict without steps: {describe(reading)}"
        step = verdict.steps[0]
        reading = after_step(reading, step)
        followed += 1
        trail.append(f"{step} -> {describe(reading)}")
        verdict = referee.judge(reading)
    return verdict, followed, trail


@dataclass
class Seat:
    """A referee for one roll together with the model's answer for it."""

    position: Position
    dice: tuple[int, int]
    referee: Referee
    model: ModelTree

    @classmethod
    def of(cls, position: Position, dice, options=None) -> "Seat":
        return cls(position, dice, Referee(position, dice, options), ModelTree(position, dice, options))


# -- gulbara's cascades, modelled from rules.md -----------------------------------------------------


class CascadeModel(ModelTree):
    """Gul Bara from the fourth turn on: n-n is played four times, then four times each higher
    number up to 6; a stage that cannot be played in full is played as far as possible and ends
    the turn; each stage is maximised on its own (rules.md, "Cascading doubles"). Gul Bara has no
    turn restrictions, so the model's own moves and this maximisation give the legal plays without
    the engine. A state's `remaining` holds the dice of the current stage and of the later ones.

    Meant for small fixed positions: low cascades in open positions have huge trees.
    """

    def __init__(self, position: Position, dice: tuple[int, int]):
        assert position.variant == "gulbara" and dice[0] == dice[1]
        self.position = position
        self.variant = "gulbara"
        self.mover = position.turn
        self.opts = {}
        self.route = route("gulbara", self.mover)
        self.frame_of_point = {p: i for i, p in enumerate(self.route, 1)}
        self.capture = "none"
        self.head_limit = 1
        low = dice[0]
        protected = sum(position.rolls) < 3
        values = (low,) if protected else tuple(range(low, 7))
        self.start = self._state_of(position, tuple(v for v in values for _ in range(4)))
        self.edges = {}
        ends: set[State] = set()
        roots = [self.start]
        done_roots = set()
        while roots:
            next_roots = []
            for root in roots:
                if root in done_roots:
                    continue
                done_roots.add(root)
                stage_left = len(root.remaining) % 4 or 4   # dice of the current stage
                level, stage_states = [root], [(root, 0)]
                seen = {root}
                while level:
                    nxt = []
                    for state in level:
                        used = len(root.remaining) - len(state.remaining)
                        if state.me[25] == CHECKERS or used == stage_left:
                            self.edges.setdefault(state, [])
                            continue    # the game is over, or the stage is played in full
                        children = self.edges.setdefault(state, [])
                        for move, child in self.steps(state):
                            if move.die != state.remaining[0]:
                                continue
                            children.append((move, child))
                            if child not in seen:
                                seen.add(child)
                                nxt.append(child)
                                stage_states.append((child, used + 1))
                    level = nxt
                most = max(used for _, used in stage_states)
                for state, used in stage_states:
                    if state.me[25] == CHECKERS:
                        ends.add(state)
                    elif used == most:
                        if used == stage_left and state.remaining:
                            next_roots.append(state)
                        else:
                            ends.add(state)
            roots = next_roots
        alive = reaching(self.edges, ends)
        self.alive, self.ends = alive, ends
        self.readings = defaultdict(list)
        for state in alive:
            self.readings[self.reading(state)].append(state)
        self.finals = {self.reading(s) for s in ends}
        self.start_reading = self.reading(self.start)


def reaching(edges: dict, ends: set) -> set:
    """The states from which one of `ends` can be reached along `edges` (ends included)."""
    parents = defaultdict(list)
    for state, children in edges.items():
        for _, child in children:
            parents[child].append(state)
    alive, frontier = set(ends), list(ends)
    while frontier:
        for parent in parents[frontier.pop()]:
            if parent not in alive:
                alive.add(parent)
                frontier.append(parent)
    return alive
