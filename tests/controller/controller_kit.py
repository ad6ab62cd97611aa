"""Driving the controller in virtual time: a board in hand, the button, a clock that moves when told,
a real journal in a temporary folder, and the beeps collected."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from firmware_host.controller import Controller, Orientation, Timings
from firmware_host.hw import DiceHeld, DicePressed, ScriptedDice
from firmware_host.journal import Journal, Kind
from firmware_host.leds.scene import DiceSignal, Mark
from firmware_host.rules import Play, Position, Rules, Turn
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.events import BoardChanging, BoardSettled, BoardStable
from firmware_host.sensing.reading import BoardReading, SideReading

STEP_S = 0.1   # virtual time between two events a test sends

NEVERFINISHING = MatchRules(sequence=("neverfinishing",), target=3)
# Both start points are pinned (White's last checker on 24, Black's on 1) and every other checker
# stands on the far end with nowhere to go: Black's last free checker, on 23, moves 23/24 with the 1
# (the 2 cannot be played: no bearing off while a checker of one's own is pinned), and after that
# neither side can ever move again.
BEFORE_THE_BLOCKADE = Position.from_json({
    "variant": "neverfinishing", "turn": "black",
    "white": {"points": {"1": 14, "24": 1}, "bar": 0, "off": 0},
    "black": {"points": {"1": 1, "23": 1, "24": 13}, "bar": 0, "off": 0},
    "pinned": {"1": "black", "24": "white"},
})


@dataclass
class Board:
    """Checkers on a board in the unified numbering, handled by a test; `sensed()` is what the
    sensors of a board lying in `orientation` read."""

    points: dict[str, list[int]]                   # colour -> 24 counts, point 1 first
    bar: dict[str, int]
    off: dict[str, int]
    orientation: Orientation = Orientation.AS_WIRED
    hand: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, position: Position, orientation: Orientation = Orientation.AS_WIRED) -> "Board":
        return cls({"white": list(position.white), "black": list(position.black)},
                   {"white": position.bar[0], "black": position.bar[1]},
                   {"white": position.off[0], "black": position.off[1]}, orientation)

    def _take(self, location: str, colour: str) -> None:
        if location == "bar":
            self.bar[colour] -= 1
        elif location == "off":
            self.off[colour] -= 1
        else:
            self.points[colour][int(location) - 1] -= 1

    def _put(self, location: str, colour: str) -> None:
        if location == "bar":
            self.bar[colour] += 1
        elif location == "off":
            self.off[colour] += 1
        else:
            self.points[colour][int(location) - 1] += 1

    def lift(self, location: str, colour: str) -> "Board":
        self._take(location, colour)
        self.hand.append(colour)
        return self

    def place(self, location: str, colour: str) -> "Board":
        self.hand.remove(colour)
        self._put(location, colour)
        return self

    def move(self, origin: str, destination: str, colour: str) -> "Board":
        self._take(origin, colour)
        self._put(destination, colour)
        return self

    def sensed(self) -> BoardReading:
        sides = []
        for colour in ("white", "black"):
            points = [0] * 24
            for unified, count in enumerate(self.points[colour], 1):
                points[self.orientation.point(unified) - 1] = count
            sides.append(SideReading(tuple(points), self.bar[colour], self.off[colour]))
        return BoardReading(*sides)


class Rig:
    def __init__(self, tmp_path, dice=(), *, match: MatchRules | None = None,
                 orientation: Orientation = Orientation.AS_WIRED, timings: Timings = Timings(), dice_source=None,
                 sensing: str = "mass", bots=(), choose_play=None, hints: bool = False):
        self.journal_path = tmp_path / "journal.sqlite3"
        self.journal = Journal.open(self.journal_path)
        self.beeps = []
        self.match_rules = match or MatchRules(sequence=("portes",), target=3)
        self.timings = timings
        self.sensing = sensing
        self.bots, self.choose_play, self.hints = bots, choose_play, hints
        self.controller = Controller(self.journal, dice_source or ScriptedDice(dice), self.match_rules,
                                     timings=timings, beep=self.beeps.append, sensing=sensing, bots=bots,
                                     choose_play=choose_play, hints=hints)
        self.orientation = orientation
        self.now = 0.0
        self.board = Board.of(Position.start(self.match_rules.sequence[0]), orientation)

    def restart(self, dice=(), *, match: MatchRules | None = None, bots=None) -> None:
        """A power cut and a restart: the journal reopened from its file and a new controller resuming
        its unfinished match (given `match` rules for a new one; `bots`: the seats the config gives
        now, default as before). The board stays as it was, unread."""
        if bots is not None:
            self.bots = bots
        self.journal.close()
        self.journal = Journal.open(self.journal_path)
        self.beeps.clear()
        self.controller = Controller(self.journal, ScriptedDice(dice), match or self.match_rules,
                                     timings=self.timings, beep=self.beeps.append, resume=self.journal.resume(),
                                     sensing=self.sensing, bots=self.bots, choose_play=self.choose_play,
                                     hints=self.hints)

    # -- time and events ----------------------------------------------------------------------------

    def send(self, event) -> None:
        self.now += STEP_S
        self.controller.handle(event, self.now)

    def wait(self, seconds: float) -> None:
        self.now += seconds
        self.controller.tick(self.now)

    def show(self, board: Board | None = None, settle: bool = False) -> None:
        """The board changes to `board` (default: the rig's) and stands still past the quiet time."""
        if board is not None:
            self.board = board
        reading = self.board.sensed()
        self.send(BoardChanging(reading))
        self.send(BoardStable(reading))
        if settle:
            self.send(BoardSettled(reading))

    def lay_out(self, position: Position) -> None:
        self.show(Board.of(position, self.orientation))

    def changing(self) -> None:
        self.send(BoardChanging(self.board.sensed()))

    def press(self) -> None:
        self.send(DicePressed(self.now))

    def hold(self) -> None:
        self.send(DiceHeld(self.now))

    # -- what came out --------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self.controller.state

    @property
    def scene(self):
        return self.controller.scene

    def marked(self, mark: Mark) -> set[str]:
        return {location for location, shown in self.scene.marks.items() if shown is mark}

    def records(self, kind: Kind) -> list[dict]:
        """The data of every journal record of `kind`, oldest first (in a match or not)."""
        return [dict(event.data) for event in self.journal.tail(1_000_000) if event.kind is kind]

    # -- getting somewhere quickly --------------------------------------------------------------------

    def start_game(self) -> None:
        """Set up the board (as the rig's orientation lays it) and let the game begin."""
        self.lay_out(self.controller.position)

    def to_moving(self) -> None:
        """Set up, opening roll, first roll: the scripted dice must decide the opening at once."""
        self.start_game()
        self.press()
        if self.state == "awaiting_roll":
            self.press()
        assert self.state == "moving", self.state


def journal_game_at(rig: Rig, position: Position, roll: tuple[int, int] | None = None,
                    rules: Rules | None = None) -> None:
    """Journal a match whose game stands at `position` (its side to move started it), with `roll`
    rolled for that side, as if the service had stopped there; `rig.restart()` then takes it up.
    The rig's board is laid out with the position."""
    rig.journal.start_match(rig.match_rules)
    rig.journal.start_game(position.variant, rules or Rules.for_variant(position.variant), starter=position.turn,
                           position=position, orientation=rig.orientation.value)
    if roll is not None:
        rig.journal.record_roll(position.turn, roll)
    rig.board = Board.of(position, rig.orientation)


@dataclass
class MatchLog:
    """What a whole match showed along the way."""

    turns: int = 0
    no_move_turns: int = 0
    game_over_scenes: list = field(default_factory=list)   # (scene, result) at each game's end


def play_whole_match(rig: Rig, seed: int, max_events: int = 20_000) -> MatchLog:
    """Play until the match is over: engine plays chosen by a seeded random source, put on the board
    as a whole, committed with a press; each game's end waited out or skipped with a press
    (alternately); each new game set up. Checks
    that every turn shows its side and dice (or that the dice cannot be played)."""
    choose = random.Random(seed).choice
    controller = rig.controller
    log = MatchLog()
    for _ in range(max_events):
        state = rig.state
        if state == "match_over":
            return log
        if state == "setup":
            rig.start_game()
        elif state in ("opening_roll", "awaiting_roll"):
            rig.press()
        elif state == "moving":
            scene = rig.scene
            assert (scene.turn, scene.dice) == (controller.position.turn.value, controller.dice)
            play = Turn(controller.position, controller.dice, controller.rules).pick_play(choose)
            if not play.moves:
                log.no_move_turns += 1
                assert scene.dice_signal is DiceSignal.NO_LEGAL_MOVE
            rig.show(Board.of(play.position, controller.orientation))
            before = controller.position
            rig.press()
            assert controller.position is not before, f"the press did not commit {play} of {controller.dice}"
            log.turns += 1
        elif state == "game_over":
            log.game_over_scenes.append((rig.scene, controller.result_play.result))
            if len(log.game_over_scenes) % 2:
                rig.wait(controller.timings.game_over_s)
            else:
                rig.press()   # a press skips the wait
        else:
            raise AssertionError(f"the match stopped in {state}")
    raise AssertionError(f"the match did not end within {max_events} events")


def fixed_play(moves: tuple[str, ...]):
    """A chooser that plays the legal play with these moves, in this order (for a test that knows
    the play)."""
    def choose(turn: Turn) -> Play:
        play = next(play for play in turn.plays() if sorted(map(str, play.moves)) == sorted(moves))
        by_name = {str(move): move for move in play.moves}
        return Play(tuple(by_name[name] for name in moves), play.position, play.result, play.remainder)
    return choose
