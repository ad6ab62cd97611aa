"""`tavli-board demo`: the whole referee on the simulated board, with two scripted players.

Everything below the players is the real thing: the simulated MCU (the real firmware logic) scans a
`SimBoard` and talks the real protocol over a pseudo-terminal to the real sensor link; the dice
button is gpiozero on mock pins; the event loop, the controller, the journal (in a temporary
folder) and the LED renderer run as in the service. The players only do what people do: look at the
lights (here: the controller's guidance, which the lights show), lift, slide and place checkers,
and press or hold the button. Along the way they try to roll too early once, make an illegal move
once and follow the guidance back, and use the referee's replay once.

Deterministic for a seed: the dice and the players' choices come from it, and the players wait for
the controller to have seen each board before acting on it, so the thread timing changes nothing.
`--speed` shortens the quiet and grace times of the sensors, the button's hold time and the
controller's signals; the MCU scans at its real rate.
"""
from __future__ import annotations

import dataclasses
import queue
import random
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from firmware_host.app import EventLoop
from firmware_host.config import Config, load_config
from firmware_host.controller import machine as m
from firmware_host.controller.controller import Controller, Timings
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.hw.dice import DiceSource
from firmware_host.hw.events import DicePressed
from firmware_host.journal import Journal
from firmware_host.leds.render import Renderer
from firmware_host.leds.scene import Scene
from firmware_host.leds.terminal import render_board
from firmware_host.referee import Reading, Referee, Step, restore
from firmware_host.rules import Color, Move, Play, Position, Turn, dice_text
from firmware_host.rules.plays import ROUTES
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.config import SCAN_HZ_RANGE
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.hardware import Hardware
from firmware_host.sim.board import SimBoard
from firmware_host.sim.console import ConsoleError, run_command

# Real waits for the controller are bounded by this; a demo that waits longer is stuck, and says so.
PATIENCE_S = 30.0
# The sensing config's bounds for the flicker window (ms).
FLICKER_WINDOW_RANGE = (100, 60_000)
PRESS_S = 0.03   # how long a finger keeps the button down for a press, and off it before the next
# `--speed` shortens the hold time no further than this: on a busy machine the hand's thread can wake
# late from a press's PRESS_S, and a late release must not make the press a hold (referee mode).
SHORTEST_HOLD_S = 0.4


class DemoStuck(RuntimeError):
    """The controller did not reach what a player waited for."""


class SeededDice(DiceSource):
    """Reproducible dice for the demo (never for play: the service rolls with `SecretsDice`)."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)

    def roll_die(self) -> int:
        return self._random.randint(1, 6)


@dataclass(frozen=True)
class Seen:
    """What the players can know after each event: the lights and the controller's guidance."""

    presses: int                   # counts the presses the controller has handled
    state: str
    scene: Scene
    sensed: BoardReading | None
    changing: bool
    judging: bool                  # the board's verdict is still being searched for
    variant: str
    position: Position             # the start of the turn (its .turn moves)
    dice: tuple[int, int] | None
    opening_dice: tuple[int, int] | None
    verdict: str | None
    orientation: Orientation
    guidance: tuple[Step, ...]     # physical points
    referee_page: str | None
    game_number: int
    score: tuple[int, int]


class Table:
    """The players' view of the controller, updated by the loop's thread after every event."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self.seen: Seen | None = None
        self._presses = 0

    def observe(self, controller: Controller, event: object) -> None:
        page = controller.referee_pages[controller.referee_page].kind if controller.state == m.REFEREE else None
        score = controller.match.score
        with self._condition:
            self._presses += isinstance(event, DicePressed)
            self.seen = Seen(
                presses=self._presses,
                state=controller.state, scene=controller.scene, sensed=controller.sensed,
                changing=controller.changing, judging=controller.awaiting_verdict is not None,
                variant=controller.variant, position=controller.position, dice=controller.dice,
                opening_dice=controller.opening_dice, verdict=controller.verdict.kind if controller.verdict else None,
                orientation=controller.orientation, guidance=controller.guidance(), referee_page=page,
                game_number=len(controller.match.games) + (controller.state not in (m.GAME_OVER, m.MATCH_OVER)),
                score=(score[Color.WHITE], score[Color.BLACK]))
            self._condition.notify_all()

    def wait(self, ready: Callable[[Seen], bool], what: str) -> Seen:
        with self._condition:
            if not self._condition.wait_for(lambda: self.seen is not None and ready(self.seen), PATIENCE_S):
                raise DemoStuck(f"waited {PATIENCE_S:.0f} s for {what}; the controller is in "
                                f"{self.seen.state if self.seen else 'no state yet'}")
            return self.seen


@dataclass
class Settings:
    match: MatchRules
    seed: int = 1
    speed: float = 8.0
    out: TextIO = sys.stdout
    boards: str = "moments"      # "moments": at setup, stunts and game ends; "every-turn"; "none"


def demo_config(speed: float, folder: Path) -> Config:
    """The built-in (simulated) configuration, its timings shortened by `speed`, logs in `folder`."""
    config = load_config(None)
    sensors = config.sensing.sensors
    sensors = dataclasses.replace(
        sensors, quiet_ms=max(1, round(sensors.quiet_ms / speed)), grace_ms=max(1, round(sensors.grace_ms / speed)),
        # Faster hands change a location more often a second: the flicker check must keep up.
        flicker_window_ms=max(FLICKER_WINDOW_RANGE[0], round(sensors.flicker_window_ms / speed)),
        scan_hz=min(SCAN_HZ_RANGE[1], round(sensors.scan_hz * speed)))
    button = dataclasses.replace(config.pins.button, hold_s=max(config.pins.button.hold_s / speed, SHORTEST_HOLD_S))
    return dataclasses.replace(
        config, sensing=dataclasses.replace(config.sensing, sensors=sensors),
        pins=dataclasses.replace(config.pins, button=button),
        logging=dataclasses.replace(config.logging, raw_frames_dir=folder / "raw"),
        journal_path=folder / "journal.sqlite3")


class Demo:
    """The rig: hardware, journal and loop, with the players' hands on the board and the button."""

    def __init__(self, settings: Settings, folder: Path, first_board: BoardReading):
        self.settings = settings
        self.config = demo_config(settings.speed, folder)
        self.config = dataclasses.replace(self.config, match_rules=settings.match)
        self.journal = Journal.open(self.config.journal_path)
        self.table = Table()
        events: queue.Queue = queue.Queue()
        self.hardware = Hardware.open(self.config, post=events.put, board=first_board)
        speed = settings.speed
        self.loop = EventLoop.from_config(
            self.config, self.journal, self.hardware, events=events, dice=SeededDice(settings.seed),
            timings=Timings(refusal_s=Timings.refusal_s / speed, game_over_s=Timings.game_over_s / speed),
            observers=[self.table.observe])
        self.renderer = Renderer.from_config(self.config.leds)
        self.board: SimBoard = self.hardware.simulation.board
        self._thread = threading.Thread(target=self.loop.run, name="event-loop", daemon=True)

    def __enter__(self) -> Demo:
        self.hardware.start()
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.loop.stop()
        self._thread.join(5.0)
        self.hardware.close()
        self.journal.close()

    # -- hands ------------------------------------------------------------------------------------

    def press(self) -> None:
        pin = self.config.pins.button.pin
        self.hardware.simulation.press_button(pin)
        time.sleep(PRESS_S)
        self.hardware.simulation.release_button(pin)
        time.sleep(PRESS_S)   # a press within the debounce time of the release would merge with this one

    def hold(self, until: Callable[[Seen], bool] | None = None, what: str = "") -> Seen:
        """Keep the button down until the controller has taken the hold (`until`), or for the hold
        time and a little more where nothing tells (a person's hold)."""
        pin = self.config.pins.button.pin
        self.hardware.simulation.press_button(pin)
        try:
            if until is None:
                time.sleep(self.config.pins.button.hold_s + 2 * PRESS_S)
                return self.table.seen
            return self.table.wait(until, what)
        finally:
            self.hardware.simulation.release_button(pin)
            time.sleep(PRESS_S)

    def settled_view(self) -> Seen:
        """Wait until the controller has seen (and judged) the board as it is now, and it is not changing."""
        now = self.board.reading()
        return self.table.wait(lambda seen: seen.sensed == now and not seen.changing and not seen.judging,
                               "the board to be read")

    # -- the terminal -----------------------------------------------------------------------------

    def say(self, text: str) -> None:
        print(text, file=self.settings.out, flush=True)

    def show(self, caption: str, seen: Seen | None = None) -> None:
        seen = seen or self.table.seen
        frame = self.renderer.render(seen.scene, time.monotonic())
        self.say(f"\n== {caption}  [{seen.state}; game {seen.game_number}, {seen.variant}; "
                 f"score white {seen.score[0]} - black {seen.score[1]}]")
        self.say(render_board(self.config.leds.layout, frame, self.board.reading()))


def physical(orientation: Orientation, location: str) -> str | int:
    """A unified referee location as the simulated board names it ("bar"/"off" are per colour)."""
    return orientation.point(int(location)) if location.isdigit() else location


class Players:
    """Two scripted players sharing one seeded random source."""

    def __init__(self, demo: Demo, seed: int):
        self.demo = demo
        self.random = random.Random(seed ^ 0x5EED)
        self.turns = 0           # in the match
        self.turns_in_game = 0
        self.stunts = {"too_early", "illegal", "replay"}   # each done once, in the first game

    def play_match(self) -> Seen:
        return self.play_until(lambda seen: seen.state == m.MATCH_OVER)

    def play_until(self, done: Callable[[Seen], bool]) -> Seen:
        """Play on until what the controller shows is `done`; returns what it showed."""
        demo = self.demo
        seen = demo.table.wait(lambda s: True, "the controller")
        last_game = 0
        while not done(seen):
            if seen.game_number != last_game and seen.state in (m.OPENING_ROLL, m.AWAITING_ROLL):
                last_game, self.turns_in_game = seen.game_number, 0
                demo.show(f"game {seen.game_number}: {seen.variant}; the board lies {seen.orientation.value}", seen)
            if seen.state == m.SETUP:
                seen = self.set_up(seen)
            elif seen.state in (m.OPENING_ROLL, m.AWAITING_ROLL):
                seen = self.roll(seen)
            elif seen.state == m.MOVING:
                seen = self.play_turn(seen)
            elif seen.state == m.CORRECTING:
                seen = self.correct(seen)
            elif seen.state == m.BLOCKADE:
                seen = self.end_blockade(seen)
            elif seen.state == m.GAME_OVER:
                demo.show(f"game over: {seen.variant}", seen)
                seen = demo.table.wait(lambda s: s.state != m.GAME_OVER, "the next game")
            else:
                raise DemoStuck(f"the players do not know what to do in {seen.state}")
        return seen

    # -- between turns ----------------------------------------------------------------------------

    def set_up(self, seen: Seen) -> Seen:
        """Follow the setup lights: every checker that is wrong goes where a light asks for one."""
        demo = self.demo
        seen = demo.settled_view()
        if seen.state != m.SETUP:
            return seen
        demo.show(f"set up {seen.variant}: take from the blinking places, put on the lit ones", seen)
        for step in seen.guidance:
            demo.board.slide(physical(Orientation.AS_WIRED, step.origin),
                             physical(Orientation.AS_WIRED, step.destination), step.color.value)
        return demo.table.wait(lambda s: s.state != m.SETUP, "the game to begin")

    def roll(self, seen: Seen) -> Seen:
        demo = self.demo
        state = seen.state
        demo.settled_view()
        seen = self.press()
        if state == m.OPENING_ROLL:
            white, black = seen.opening_dice
            demo.say(f"opening roll: white {white}, black {black}" + ("  (a tie: again)" if white == black else ""))
        return seen

    def press(self) -> Seen:
        """A short press; returns what the controller made of it."""
        before = self.demo.table.seen.presses
        self.demo.press()
        return self.demo.table.wait(lambda s: s.presses > before, "the press")

    def end_blockade(self, seen: Seen) -> Seen:
        """Neither side can ever move again (BLOCKADE on the dice): a press ends the game drawn."""
        self.demo.show("a permanent blockade: no roll can change the board; a press ends the game drawn", seen)
        return self.press()

    # -- a turn -----------------------------------------------------------------------------------

    def play_turn(self, seen: Seen) -> Seen:
        demo = self.demo
        self.turns += 1
        self.turns_in_game += 1
        mover, dice = seen.position.turn, seen.dice
        play = self.choose(seen)
        if "replay" in self.stunts and self.turns >= 4:
            self.stunts.discard("replay")
            seen = self.referee_replay(seen)
        if "illegal" in self.stunts and self.turns >= 3 and play.moves:
            plays = self.listed_plays(seen)   # None (a cascade): the stunt waits for a plainer roll
            if plays is not None:
                self.stunts.discard("illegal")
                if self.illegal_move(seen, play.moves[0]):
                    play = self.replan(seen, plays)
                    self.finish(seen, play)
                    return self.commit_play(seen, play)
        moves = list(play.moves)
        if "too_early" in self.stunts and len(moves) >= 2:
            self.stunts.discard("too_early")
            self.move(seen, moves.pop(0), mover)
            demo.settled_view()
            refused = self.press()
            demo.show(f"{mover} pressed after one move: refused, rolling too early", refused)
        lift_to_show = self.turns_in_game <= 2 and moves   # each side's first turn of a game
        for index, move in enumerate(moves):
            self.move(seen, move, mover, show_lift=lift_to_show and index == 0)
        return self.commit_play(seen, play)

    def commit_play(self, seen: Seen, play: Play) -> Seen:
        """The board shows `play` complete: the press commits it (and rolls for the other side)."""
        demo, mover, dice = self.demo, seen.position.turn, seen.dice
        after = demo.settled_view()
        if after.verdict != "complete":
            raise DemoStuck(f"the board after {play} reads {after.verdict}, not a complete play")
        seen = self.press()
        summary = f"{mover} {dice_text(dice)}: {play}"
        if seen.state == m.MOVING and seen.dice is not None:
            summary += f"   -> {seen.position.turn} rolls {dice_text(seen.dice)}"
        demo.say(summary)
        if demo.settings.boards == "every-turn":
            demo.show(summary, seen)
        return seen

    def choose(self, seen: Seen) -> Play:
        """A reasonable play: the one that wins, bears off most, or leaves the fewest pips to go;
        ties broken by the seeded random source."""
        progress = self.progress(seen)
        return self.rules_turn(seen).pick_play(lambda options: self._best(options, progress))

    def rules_turn(self, seen: Seen) -> Turn:
        return Turn(seen.position, seen.dice, self.demo.config.rules_for(seen.variant))

    def progress(self, seen: Seen) -> Callable[[Play], tuple]:
        """How good a play of the mover's is, higher better: it wins, bears off most, leaves the
        fewest pips to go."""
        mover, rules = seen.position.turn, self.demo.config.rules_for(seen.variant)
        # Board point -> how far along the mover's route it is (ROUTES: frame position -> point).
        along = {point: frame for frame, point in enumerate(ROUTES[(rules.variant.family, mover)]) if frame}

        def key(play: Play) -> tuple:
            after = play.position
            pips_to_go = after.bar[mover.index] * 25 + sum(
                count * (25 - along[point]) for point, count in enumerate(after.checkers(mover), 1))
            return (play.result is not None, after.off[mover.index], -pips_to_go)
        return key

    def listed_plays(self, seen: Seen) -> list[Play] | None:
        """Every legal play of the roll; None for a roll played in stages (a cascade, owed dice),
        whose plays can run into the hundreds of thousands."""
        turn = self.rules_turn(seen)
        return turn.plays() if len(turn.stages) == 1 else None

    def replan(self, seen: Seen, plays: list[Play]) -> Play:
        """The lights led the board to the nearest legal board, which may be a stage of some play
        rather than the turn's start. As a player would, go on from the board as it lies: the plays
        that need the fewest checkers moved from it, the best of those."""
        reading = seen.orientation.reading(self.demo.board.reading(), seen.variant)
        steps = {play: len(restore(play.position, reading)) for play in plays}
        fewest = min(steps.values())
        play = self._best([play for play in plays if steps[play] == fewest], self.progress(seen))
        self.demo.say(f"{seen.position.turn} goes on from the board the lights led to: {play}")
        return play

    def finish(self, seen: Seen, play: Play) -> None:
        """Move the checkers still out of place for `play`, one after the other."""
        reading = seen.orientation.reading(self.demo.board.reading(), seen.variant)
        for step in restore(play.position, reading):
            self.demo.board.slide(physical(seen.orientation, step.origin), physical(seen.orientation, step.destination),
                                  step.color.value)

    def _best(self, options: list, key: Callable) -> object:
        if options and isinstance(options[0], Play):
            best = max(key(option) for option in options)
            return self.random.choice([option for option in options if key(option) == best])
        return self.random.choice(options)   # a cascade stage: any of them

    def move(self, seen: Seen, move: Move, mover: Color, show_lift: bool = False) -> None:
        """One checker's move the way hands do it: hit first, then lift and place, or slide."""
        board, orientation = self.demo.board, seen.orientation
        origin, destination = physical(orientation, move.origin), physical(orientation, move.destination)
        if move.hit:
            board.hit(destination, mover.opponent.value)
        if show_lift or self.random.random() < 0.5:
            board.lift(origin, mover.value)
            if show_lift:
                now = board.reading()
                lifted = self.demo.table.wait(lambda s: s.verdict == "in_hand" and s.sensed == now and not s.judging,
                                              "the lift to be seen")
                self.demo.show(f"{mover} lifts a checker from {move.origin}: its legal destinations light up",
                               lifted)
            board.place(destination, mover.value)
        else:
            board.slide(origin, destination, mover.value)

    # -- the stunts -------------------------------------------------------------------------------

    def illegal_move(self, seen: Seen, move: Move) -> bool:
        """Move a checker where no legal play goes, wait for the referee, follow the lights back
        (to the nearest legal board, not always the turn's start). False: no such move of it."""
        demo, board, mover = self.demo, self.demo.board, seen.position.turn
        referee = Referee(seen.position, seen.dice, demo.config.rules_for(seen.variant))
        origin = physical(seen.orientation, move.origin)
        for point in range(1, 25):
            board.slide(origin, seen.orientation.point(point), mover.value)
            reading = seen.orientation.reading(board.reading(), seen.variant)
            if referee.judge(reading).kind == "illegal":
                break
            board.slide(seen.orientation.point(point), origin, mover.value)
        else:
            return False   # no single wrong move of this checker: nothing to show
        demo.say(f"{mover} moves a checker from {move.origin} to {point}: no legal play does that")
        seen = demo.table.wait(lambda s: s.state == m.CORRECTING, "the illegal board to be called")
        self.correct(seen)
        return True

    def correct(self, seen: Seen) -> Seen:
        demo = self.demo
        while seen.state == m.CORRECTING:
            demo.show("illegal board: take from the blinking place, put on the lit one", seen)
            step = seen.guidance[0]
            demo.board.slide(physical(Orientation.AS_WIRED, step.origin),
                             physical(Orientation.AS_WIRED, step.destination), step.color.value)
            seen = demo.settled_view()
        demo.say("the board is legal again: play on")
        return seen

    def referee_replay(self, seen: Seen) -> Seen:
        demo = self.demo
        demo.say(f"{seen.position.turn} disputes the last play: a long press calls the referee")
        seen = demo.hold(lambda s: s.state == m.REFEREE, "referee mode")
        while seen.referee_page == "replay_move":
            demo.show("referee: the last play, one move at a time", seen)
            seen = self.press()
        demo.show("referee: the first legal play of the current roll", seen)
        seen = demo.hold(lambda s: s.state != m.REFEREE, "the end of referee mode")
        demo.say("a long press again: back to the game")
        return seen


def play_scripted_match(demo: Demo) -> Seen:
    """The two scripted players play the match to its end; the final board and score are shown."""
    final = Players(demo, demo.settings.seed).play_match()
    demo.show("match over", final)
    white, black = final.score
    winner = "white" if white > black else "black"
    demo.say(f"\nmatch over: {winner} wins {max(white, black)}-{min(white, black)} (white {white}, black {black})")
    return final


def run_demo(settings: Settings, interactive: bool = False) -> int:
    folder = Path(tempfile.mkdtemp(prefix="tavli-board-demo-"))
    match = settings.match
    chooser = random.Random(settings.seed)
    # The scripted players sit any way round; a person typing point numbers sits as the board is wired.
    orientation = Orientation.AS_WIRED if interactive else chooser.choice(list(Orientation))
    first = Position.start(match.sequence[0])
    board = laid_out(first, orientation)
    out = settings.out
    try:
        with Demo(settings, folder, board) as demo:
            print(f"tavli-board demo: a match of {', '.join(match.sequence)} to {match.target}, seed "
                  f"{settings.seed}, speed {settings.speed:g}; the players sit {orientation.value}", file=out)
            if interactive:
                return run_interactive(demo)
            try:
                play_scripted_match(demo)
            except DemoStuck as error:
                print(f"tavli-board demo: stopped: {error}", file=sys.stderr)
                return 1
            return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


INTERACTIVE_HELP = """\
Type what your hands do; the board and its lights are drawn after each line:
  lift 13 white | place 9 [white] | slide 13 9 white | hit 5 black | bear-off 3 white
  press | hold (a long press: referee mode, again to leave) | board | help | quit
  faults: unplug | replug | reset | flicker LOCATION W B | stick LOCATION W B | unstick LOCATION"""


def run_interactive(demo: Demo, lines=None) -> int:
    """Read actions from `lines` (default: stdin) until quit or the end; draw the board after each."""
    lines = lines if lines is not None else sys.stdin
    demo.say(INTERACTIVE_HELP)
    demo.show("the board", demo.table.wait(lambda s: True, "the controller"))
    for line in lines:
        command = line.strip()
        if command in ("quit", "exit"):
            break
        try:
            if command == "press":
                demo.press()
            elif command == "hold":
                demo.hold()
            elif command == "help":
                demo.say(INTERACTIVE_HELP)
                continue
            elif command and command != "board":
                answer = run_command(demo.hardware.simulation.mcu, command)
                if answer:
                    demo.say(answer)
            time.sleep(demo.config.sensing.sensors.quiet_ms / 1000 + 0.15)   # let the board settle
        except (ConsoleError, DemoStuck) as error:
            demo.say(f"? {error}")
            continue
        demo.show(command or "the board")
    return 0
