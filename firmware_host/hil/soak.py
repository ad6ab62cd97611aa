"""`tavli-board hil soak`: random games in every variant, random physical players, random faults.

    figures = run_campaign(SoakSettings(games=100, fault_rate=0.05, seed=1))
    print(figures.report())

Each match runs on a `VirtualRig` (the real link session, stabiliser, loop, controller, journal and
renderer in virtual time) whose cable ends in the simulated MCU (the real firmware logic) scanning
a `SimBoard`. The players are the demo's (`demo.Players`: they set up, roll, choose
plays, lift or slide, follow the lights back from an illegal board, call the referee), made random:
each turn they may bump a checker and put it back, press before the play is complete, move a
checker backwards (an illegal move, then the guidance back), check the verdict between moves, or
call the referee. Before every action a fault is injected with probability `fault_rate`: bytes
dropped from a frame, a frame with a bad CRC, garbage on the line, an MCU reset, the cable pulled
for up to 2.5 s, the MCU hung for up to 2.5 s, a flickering sensor. The players wait out what a
fault shows (link lost, sensor fault) as people would. With probability `power_cut_rate` the power
is cut instead (in the middle of a turn, or before a roll): the service dies where it stands, as
under kill -9, and a new one resumes the match from the journal on disk, as the service does.

Checked independently of the referee, with the rules engine (`LegalFinals`: every roll, however
many plays it has):
- every committed play is one of the engine's legal plays for the position and dice, and is what
  the board showed (else a false verdict);
- every board the players have made and seen settled gets the verdict they know it deserves: the
  turn's start is unchanged, a legal play's final position is complete, a checker moved backwards
  is illegal, anything on the way of the chosen play is partial;
- a press before the play is complete commits nothing;
- every play the players saw accepted (the lights moved on to the next turn from their play) is in
  the journal on disk, in order, read afresh at the end of the match, power cuts and all (else a
  committed play lost).
Crashes are exceptions the loop logged (it survives them) or raised, and games that got stuck.
"""
from __future__ import annotations

import dataclasses
import random
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

from firmware_host.config import Config, load_config
from firmware_host.controller import machine as m
from firmware_host.controller.view import GameView
from firmware_host.demo import Demo, DemoStuck, Players, Table, physical
from firmware_host.hw.dice import SeededDice
from firmware_host.hw.gpio import simulated_pin_factory
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.hil.legal_finals import LegalFinals
from firmware_host.service.trace import TraceRecorder
from firmware_host.hil.trace_rig import Cable, CableEnd, LoggedErrors, VirtualRig
from firmware_host.journal import JournalReader, Kind
from firmware_host.maker.mechanics import board_mechanics
from firmware_host.referee import Reading, restore
from firmware_host.rules import Color, Play, Position
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import ROUTES
from firmware_host.rules.variants import ALL as VARIANTS
from firmware_host.sensing.clock import ManualClock
from firmware_host.sim.board import SimBoard
from firmware_host.sim.mcu import SimulatedMcu

PATIENCE_S = 120.0        # virtual seconds a player waits for the controller before calling the game stuck
PRESS_S = 0.05            # a finger on the button, and off it before the next press
COMMIT_TRIES = 4          # presses for a complete play before it counts as lost
MATCH_TARGET = 3
# The stunts of a turn and how often the players do each.
STUNTS = {"bump": 0.08, "early_roll": 0.08, "backwards": 0.04, "look_between_moves": 0.3, "referee": 0.02}
FAULTS = ("drop_bytes", "corrupt_crc", "garbage", "reset", "unplug", "hang", "flicker")


@dataclass(frozen=True)
class SoakSettings:
    games: int = 100
    fault_rate: float = 0.05          # chance of a fault before each physical action or press
    seed: int = 1
    power_cut_rate: float = 0.002     # chance of a power cut before a move or a roll
    variants: tuple[str, ...] = VARIANTS
    physics: bool = False             # the sensors are the physical model of the reference design (sim.weighed)
    bots: bool = False                # the bot plays a seat, White or Black by the games played so far

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"games is {self.games}; allowed: 1 or more")
        if not 0 <= self.fault_rate <= 1:
            raise ValueError(f"faults is {self.fault_rate}; allowed: a chance per action, 0 to 1")
        if not 0 <= self.power_cut_rate <= 1:
            raise ValueError(f"power cuts is {self.power_cut_rate}; allowed: a chance per move or roll, 0 to 1")
        unknown = [name for name in self.variants if name not in VARIANTS]
        if unknown or not self.variants:
            raise ValueError(f"unknown variants {unknown}; allowed: {', '.join(VARIANTS)}")


@dataclass
class Figures:
    games: int = 0
    turns: int = 0
    moves_judged: int = 0            # settled boards whose verdict was checked
    commits_checked: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    false_verdicts: int = 0
    crashes: int = 0
    stuck: int = 0
    plays_lost: int = 0
    power_cuts: int = 0
    searched_turns: int = 0          # too many plays to list (gulbara cascades): boards checked one by one
    bot_turns: int = 0               # turns the bot played (--bots), its checkers moved as the lights showed
    stunts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STUNTS, 0))
    virtual_s: float = 0.0
    wall_s: float = 0.0
    interrupted: bool = False        # stopped by Ctrl-C before all the games were played
    problems: list[str] = field(default_factory=list)   # the first few, for the report

    @property
    def faults_injected(self) -> int:
        return sum(self.faults.values())

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)

    def logged(self, message: str) -> None:
        """The application logged an error (the loop survived it): a crash all the same."""
        self.crashes += 1
        self.problem(f"logged: {message}")

    def summary(self) -> str:
        """One line, for progress."""
        return (f"{self.games} games, {self.turns} turns, {self.moves_judged} boards judged, "
                f"{self.faults_injected} faults, {self.false_verdicts} false verdicts, {self.crashes} crashes, "
                f"{self.plays_lost} plays lost, {self.power_cuts} power cuts, {self.wall_s:.0f} s")

    def report(self) -> str:
        faults = ", ".join(f"{name} {count}" for name, count in self.faults.items())
        lines = [f"games played:        {self.games}" + (" (interrupted)" if self.interrupted else ""),
                 f"turns played:        {self.turns}",
                 f"moves judged:        {self.moves_judged} (settled boards checked) + {self.commits_checked} commits",
                 f"faults injected:     {self.faults_injected} ({faults})",
                 f"false verdicts:      {self.false_verdicts}",
                 f"crashes:             {self.crashes} ({self.stuck} of them games stuck)",
                 f"committed plays lost: {self.plays_lost}",
                 f"power cuts:          {self.power_cuts} (the service killed and resumed from the journal)",
                 f"turns too big to list: {self.searched_turns} (their boards checked one by one: "
                 "no turn too big to check)",
                 f"bot turns:           {self.bot_turns}",
                 "stunts:              " + ", ".join(f"{name} {count}" for name, count in self.stunts.items()),
                 f"virtual time {self.virtual_s / 60:.1f} min, wall time {self.wall_s:.1f} s"
                 + (f", {60 * self.games / self.wall_s:.1f} games a minute" if self.wall_s else "")]
        lines += [f"  problem: {text}" for text in self.problems]
        return "\n".join(lines)

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        data["faults_injected"] = self.faults_injected
        return data


def soak_config() -> Config:
    """The built-in configuration (the default timings of a real board)."""
    return load_config(None)


class VirtualTable(Table):
    """The demo's view of the controller, but waiting in virtual time: the rig is stepped until the
    controller shows what the players wait for. A fault's overlay (link lost, sensor fault) is waited
    out: people wait for the lights to come back before they go on."""

    def __init__(self, step: Callable[[], None], now: Callable[[], float]) -> None:
        super().__init__()
        self._step = step
        self._now = now

    def wait(self, ready: Callable[[GameView], bool], what: str) -> GameView:
        give_up = self._now() + PATIENCE_S
        while self.seen is None or self.seen.state in m.OVERLAYS or not ready(self.seen):
            if self._now() > give_up:
                raise DemoStuck(f"waited {PATIENCE_S:.0f} virtual s for {what}; the controller is in "
                                f"{self.seen.state if self.seen else 'no state yet'}")
            self._step()
        return self.seen


class SoakMatch:
    """One match on its own rig: the `Demo` interface the players use, in virtual time, with faults."""

    settled_view = Demo.settled_view     # waits through `table`, which steps the rig

    def __init__(self, config: Config, match: MatchRules, seed: int, fault_rate: float, figures: Figures,
                 folder: Path, *, trace: bool = False, observers: tuple = (), fault_kinds: tuple = FAULTS,
                 resume: bool = False, physics: bool = False, power_cut_rate: float = 0.0) -> None:
        """`trace`: record a trace of the match in `self.trace`, as the service does; `observers`: more
        observers of the loop; `fault_kinds`: the faults to draw from (FAULTS); `resume`: continue the
        unfinished match of the journal in `folder`, as the service does; `power_cut_rate`: the chance
        of a power cut at each `maybe_power_cut`."""
        self.random = random.Random(seed)
        self.fault_rate = fault_rate
        self.power_cut_rate = power_cut_rate
        self.folder = folder
        self.fault_kinds = fault_kinds
        self.figures = figures
        self.config = dataclasses.replace(config, match_rules=match)
        self.settings = SimpleNamespace(boards="none")
        orientation = self.random.choice(list(Orientation))
        self.board = SimBoard(laid_out(Position.start(match.sequence[0]), orientation))
        self.clock = ManualClock()
        self.cable = Cable()
        weighing = None
        if physics:
            from firmware_host.sim.weighed import WeighedBoard   # numpy: the `physics` extra
            weighing = WeighedBoard.for_config(self.config.sensing, board_mechanics(self.config), seed)
        self.mcu = SimulatedMcu(self.board, self.config.sensing.sensors.channels, self.cable, clock=self.clock,
                                weighing=weighing, colour_by=self.config.sensing.sensors.mcu.colour_by)
        self.heals: list[tuple[float, Callable[[], None]]] = []
        self.table = VirtualTable(self.step, self.clock.monotonic)
        self.commits: list = []
        self.games_ended = 0
        self._state: str | None = None
        self.dice = SeededDice(seed)
        self.observers = observers
        self.trace = TraceRecorder.for_config(self.config, clock=self.clock.monotonic) if trace else None
        self.dead: list[VirtualRig] = []     # services killed by power cuts
        self._finals: tuple | None = None
        self.rig = self._start_service(resume)

    def _start_service(self, resume: bool) -> VirtualRig:
        """The service on the board's cable, its journal in the match's folder."""
        open_port, dice, post_filter = self.cable.open_host, self.dice, None
        if self.trace is not None:
            traced_open = self.trace.wrap_opener(lambda url, settings: self.cable.open_host())

            def open_port():
                return traced_open(self.cable.port, self.config.sensing.serial)
            dice, post_filter = self.trace.dice(dice), self.trace.posting
        rig = VirtualRig(self.config, dice, CableEnd(self._mcu_step, open_port), self.folder, clock=self.clock,
                         pins=simulated_pin_factory(), observers=[self.table.observe, self._commit_seen, *self.observers],
                         frame_interval_s=0.2, post_filter=post_filter, resume=resume)
        if self.trace is not None:
            self.trace.follow(rig.journal)
        return rig

    def maybe_power_cut(self) -> bool:
        """With probability `power_cut_rate`, cut the power: the service dies where it stands (its
        journal is left as a kill -9 leaves it, nothing closed or flushed on the way out), the MCU
        restarts, and a new service resumes the match from the journal on disk. Returns whether
        it did; the players then wait for the resumed match to show where it goes on."""
        if self.power_cut_rate == 0 or self.random.random() >= self.power_cut_rate:
            return False
        self.figures.power_cuts += 1
        self.heal_all()
        # The dead service is never stepped again, and its journal connection is left open to the
        # end of the match: nothing is closed or checkpointed on its way out.
        self.dead.append(self.rig)
        self.mcu.reset()
        self._state = None
        self.table.seen = None
        self.rig = self._start_service(resume=True)
        # The resumed service's last play was committed, and checked, before the cut.
        self.commits.append(self.rig.controller.view().last_play)
        self.table.wait(lambda seen: seen.state != m.RESUMING, "the match to resume after a power cut")
        return True

    # -- time -------------------------------------------------------------------------------------

    def step(self) -> None:
        self.rig.step()

    def _mcu_step(self, now: float) -> None:
        due = [heal for heal in self.heals if heal[0] <= now]
        for heal in due:
            self.heals.remove(heal)
            heal[1]()
        self.mcu.step()

    def advance(self, seconds: float) -> None:
        self.rig.advance(seconds)

    # -- the Demo interface the players use -----------------------------------------------------------

    def press(self) -> None:
        self.maybe_fault()
        self.rig.press_pin(True)
        self.advance(PRESS_S)
        self.rig.press_pin(False)
        self.advance(PRESS_S)

    def hold(self, until: Callable[[GameView], bool] | None = None, what: str = "") -> GameView:
        """A long press; held again (as a person would) when a fault's overlay swallowed it."""
        for _ in range(COMMIT_TRIES):
            self.rig.press_pin(True)
            self.advance(self.config.pins.button.hold_s + 2 * PRESS_S)
            self.rig.press_pin(False)
            self.advance(PRESS_S)
            seen = self.table.wait(lambda s: True, "the lights to come back")
            if until is None or until(seen):
                return seen
        raise DemoStuck(f"{COMMIT_TRIES} long presses did not bring {what}; the controller is in {seen.state}")

    def show(self, caption: str, seen: GameView | None = None) -> None:
        pass

    def say(self, text: str) -> None:
        pass

    # -- faults ---------------------------------------------------------------------------------------

    def maybe_fault(self) -> None:
        if self.heals or self.random.random() >= self.fault_rate:
            return   # one fault at a time: a second while the first lasts tests nothing new
        kind = self.random.choice(self.fault_kinds)
        self.figures.faults[kind] += 1
        mcu, later = self.mcu, self.clock.monotonic() + self.random.uniform(0.1, 2.5)
        if kind == "drop_bytes":
            mcu.drop_bytes(self.random.randint(1, 4))
        elif kind == "corrupt_crc":
            mcu.corrupt_next_crc()
        elif kind == "garbage":
            mcu.send_garbage(self.random.randbytes(self.random.randint(1, 40)))
        elif kind == "reset":
            mcu.reset()
        elif kind == "unplug":
            mcu.unplug()
            self.heals.append((later, mcu.replug))
        elif kind == "hang":
            mcu.go_silent()
            self.heals.append((later, mcu.resume))
        else:
            location = self.random.choice([f"point:{n}" for n in range(1, 25)])
            white, black = self.board.count(location, "white"), self.board.count(location, "black")
            mcu.flicker(location, (white + 1, black) if self.random.random() < 0.5 else (white, black + 1),
                        self.random.uniform(0.1, 0.3))   # slower than the MCU's debounce, or it never shows
            self.heals.append((later, lambda: mcu.unstick(location)))

    def heal_all(self) -> None:
        """Let every fault under way end (the players wait for the board to be read again)."""
        while self.heals:
            self.step()

    # -- checks -------------------------------------------------------------------------------------

    def _commit_seen(self, view: GameView, event: object) -> None:
        if view.state == m.GAME_OVER and self._state != m.GAME_OVER:
            self.games_ended += 1   # counted here: the players may not see a game over that a fault hid
        self._state = view.state
        last = view.last_play
        if last is None or (self.commits and self.commits[-1] is last):
            return
        self.commits.append(last)
        figures = self.figures
        figures.commits_checked += 1
        if Reading.of(last.play.position) not in self.finals(last.before, last.dice, view.rules):
            figures.false_verdicts += 1
            figures.problem(f"committed {last.play} of {last.dice} from {last.before.to_json()}: not a legal play")
        sensed = view.board
        if sensed != Reading.of(last.play.position):
            figures.false_verdicts += 1
            figures.problem(f"committed {last.play} but the board read {sensed and sensed.to_json()}")

    def finals(self, position: Position, dice, rules) -> LegalFinals:
        """The turn's `LegalFinals`, kept while the turn lasts: the players' checks and the commit's
        ask the same turn."""
        key = (position, type(dice), tuple(dice), rules.to_json())
        if self._finals is None or self._finals[0] != key:
            self._finals = (key, LegalFinals(position, dice, rules))
        return self._finals[1]

    def journaled_positions(self) -> list[Position]:
        """The position after every play in the journal on disk, read afresh (not the service's view)."""
        with JournalReader.open(self.folder / "journal.sqlite3") as reader:
            return [Position.from_json(event.data["position"]) for event in reader.tail(1_000_000)
                    if event.kind is Kind.PLAY]

    def close(self) -> None:
        for rig in (*self.dead, self.rig):
            rig.close()


def plays_missing(accepted: list[Position], journaled: list[Position]) -> int:
    """How many of the plays the players saw accepted (the position after each, in order) the
    journal lacks: each must appear after the one before it."""
    missing, at = 0, 0
    for position in accepted:
        try:
            at = journaled.index(position, at) + 1
        except ValueError:
            missing += 1
    return missing


class SoakPlayers(Players):
    """The demo's players with random stunts and independent checks of what the controller says."""

    def __init__(self, match: SoakMatch, seed: int) -> None:
        super().__init__(match, seed)
        self.stunts = set()        # the demo's once-a-match stunts: here each turn draws its own
        self.figures = match.figures
        self.accepted: list[Position] = []   # after each play the players saw accepted, in order

    def play_games(self, games_left: int) -> None:
        """Play until the match is over or `games_left` games have ended (`SoakMatch.games_ended`)."""
        self.play_until(lambda seen: seen.state == m.MATCH_OVER or self.demo.games_ended >= games_left)

    # -- a turn ---------------------------------------------------------------------------------------

    def play_turn(self, seen: GameView) -> GameView:
        demo = self.demo
        self.turns += 1
        self.turns_in_game += 1
        self.figures.turns += 1
        dice, mover = seen.dice, seen.position.turn
        rules = demo.config.rules_for(seen.variant)
        finals = demo.finals(seen.position, dice, rules)
        self.figures.searched_turns += not finals.listed
        bot_play = seen.bot_play
        self.figures.bot_turns += bot_play is not None
        if bot_play is not None:   # the bot's turn: the one complete board is its play's end
            finals = {Reading.of(bot_play.position)}
        if self.turns_in_game > 2 and self.draw("referee"):
            seen = self.referee_replay(seen)
        if self.draw("backwards"):
            self.backwards(seen, rules, finals)
        if self.draw("bump"):
            self.bump()
        play = self.choose(seen) if bot_play is None else self.bot_moves_left(seen, bot_play)
        look = self.draw("look_between_moves")
        early = len(play.moves) >= 2 and self.draw("early_roll")
        for index, move in enumerate(play.moves):
            demo.maybe_power_cut() or demo.maybe_fault()
            self.move(seen, move, mover)
            if index + 1 < len(play.moves) and (look or (early and index == 0)):
                called = self.check_verdict(seen, finals, "partial")
                # (A prefix of the play may end another play: 3/off of 6-2 is also 3/1 1/off.)
                if early and index == 0 and called == "partial":
                    self.early_roll()
        self.check_verdict(seen, finals, "complete")
        return self.commit(seen, play)

    def bot_moves_left(self, seen: GameView, bot_play: Play) -> Play:
        """The bot's play from where the board stands: a stunt's correction may have led it on to a
        board further along the way the lights show."""
        made = self.demo.settled_view().bot_moves_made
        return Play(bot_play.moves[made:], bot_play.position, bot_play.result, bot_play.remainder)

    def draw(self, stunt: str) -> bool:
        """Whether this turn has `stunt` (counted when it has)."""
        if self.random.random() >= STUNTS[stunt]:
            return False
        self.figures.stunts[stunt] += 1
        return True

    def check_verdict(self, seen: GameView, finals: LegalFinals, expected: str) -> str:
        """The board the players made, once settled, gets the verdict they know it deserves
        (returned)."""
        demo = self.demo
        after = demo.settled_view()
        reading = seen.orientation.reading(demo.board.reading(), seen.variant)
        if reading in finals:
            expected = "complete"   # (the untouched board too, when the dice cannot be played)
        elif reading == Reading.of(seen.position):
            expected = "unchanged"
        elif expected == "complete":
            self.figures.problem(f"the engine does not list the play the players chose: {reading.to_json()}")
        self.figures.moves_judged += 1
        if after.verdict_kind != expected:
            self.figures.false_verdicts += 1
            self.figures.problem(f"{seen.variant} {seen.dice} from {seen.position.to_json()}: the board "
                                 f"{reading.to_json()} was called {after.verdict_kind}, expected {expected}")
        return expected

    def commit(self, seen: GameView, play: Play) -> GameView:
        """Press until the lights move on from the play: the next turn starts from its position. The
        players then count it as accepted (the journal must have it). A press refused (a fault
        swallowed it) is pressed again; a controller that moves on from another board is wrong."""
        demo = self.demo
        called = None
        for _ in range(COMMIT_TRIES):
            after = self.press()
            if after.position == play.position:
                self.accepted.append(play.position)
                return after
            if after.position != seen.position:
                self.figures.false_verdicts += 1
                self.figures.problem(f"pressed for {play}, the game went on from {after.position.to_json()}")
                return after
            demo.heal_all()
            called = demo.settled_view().verdict
        raise DemoStuck(f"{COMMIT_TRIES} presses did not commit {play} of {seen.dice} ({seen.variant}); "
                        f"the board is called {called}")

    def roll(self, seen: GameView) -> GameView:
        """A press once the board is read (refused while a fault lasts: the players just go on)."""
        if self.demo.maybe_power_cut():
            return self.demo.table.seen     # the resumed match shows where it goes on
        self.demo.settled_view()
        return self.press()

    def move(self, seen: GameView, move, mover: Color, show_lift: bool = False) -> None:
        """One checker's move as hands do it: a hit first; then lifted, held a moment and placed,
        or slid with touch-downs on the points on the way, or slid straight there."""
        demo, board, rnd, orientation = self.demo, self.demo.board, self.random, seen.orientation
        origin, destination = physical(orientation, move.origin), physical(orientation, move.destination)
        if move.hit:
            board.hit(destination, mover.opponent.value)
        style = rnd.random()
        if style < 0.4:
            board.lift(origin, mover.value)
            demo.advance(rnd.uniform(0.02, 0.6))
            board.place(destination, mover.value)
            return
        route = ROUTES[(demo.config.rules_for(seen.variant).variant.family, mover)]
        if style < 0.7 and move.origin.isdigit() and move.destination.isdigit():
            here = origin
            for frame in range(route.index(int(move.origin)) + 1, route.index(int(move.destination))):
                touch = orientation.point(route[frame])
                board.slide(here, touch, mover.value)
                demo.advance(rnd.uniform(0.0, 0.1))
                here = touch
            origin = here
        board.slide(origin, destination, mover.value)

    # -- stunts ---------------------------------------------------------------------------------------

    def early_roll(self) -> None:
        """A press before the play is complete: refused, nothing committed."""
        before = len(self.demo.commits)
        self.press()
        if len(self.demo.commits) != before:
            self.figures.false_verdicts += 1
            self.figures.problem(f"a press on an incomplete play committed {self.demo.commits[-1].play}")

    def bump(self) -> None:
        """A sleeve knocks a checker off the top of a point onto the next point; it is put back before the
        board is read (on top again: a pinned checker under a stack stays pinned). A colour with no
        checker on top of any point (all pinned, on the bar or off) leaves the other to be knocked."""
        demo, board = self.demo, self.demo.board
        drawn = self.random.choice(("white", "black"))
        for colour in (drawn, "black" if drawn == "white" else "white"):
            origins = [n for n in range(1, 25) if board.top(n) == colour]
            if origins:
                break
        else:
            return
        origin = self.random.choice(origins)
        neighbour = origin + 1 if origin < 24 else origin - 1
        board.slide(origin, neighbour, colour)
        demo.advance(self.random.uniform(0.03, 0.2))
        board.slide(neighbour, origin, colour)

    def backwards(self, seen: GameView, rules, finals: LegalFinals) -> None:
        """Move one of the mover's checkers a point backwards: no legal play does that. Wait for the
        lights to call it, follow them back, then put the board back to the turn's start."""
        demo, mover, orientation = self.demo, seen.position.turn, seen.orientation
        route = ROUTES[(rules.variant.family, mover)]
        own, theirs = seen.position.checkers(mover), seen.position.checkers(mover.opponent)
        choices = [(route[frame], route[frame - 1]) for frame in range(2, 25)
                   if own[route[frame] - 1] and not theirs[route[frame] - 1] and not theirs[route[frame - 1] - 1]]
        if not choices:
            return
        origin, destination = self.random.choice(choices)
        demo.board.slide(orientation.point(origin), orientation.point(destination), mover.value)
        self.check_verdict(seen, finals, "illegal")
        seen = demo.table.wait(lambda s: s.state == m.CORRECTING, "the illegal board to be called")
        self.correct(seen)
        self.back_to_start(seen)

    def back_to_start(self, seen: GameView) -> None:
        demo = self.demo
        reading = seen.orientation.reading(demo.board.reading(), seen.variant)
        for step in restore(seen.position, reading):
            demo.board.slide(physical(seen.orientation, step.origin), physical(seen.orientation, step.destination),
                             step.color.value)
        demo.settled_view()


def match_rules_for(game_index: int, variants: tuple[str, ...]) -> MatchRules:
    """A match to MATCH_TARGET whose games go round the variants from `game_index`."""
    start = game_index % len(variants)
    return MatchRules(sequence=variants[start:] + variants[:start], target=MATCH_TARGET)


def run_campaign(settings: SoakSettings, progress: Callable[[Figures], None] | None = None) -> Figures:
    figures = Figures()
    config = soak_config()
    seeds = random.Random(settings.seed)
    folder = Path(tempfile.mkdtemp(prefix="tavli-soak-", dir=_ram_dir()))
    started = time.monotonic()
    try:
        with LoggedErrors(figures.logged):
            while figures.games < settings.games:
                play_match(config, settings, seeds.getrandbits(32), figures, folder)
                figures.wall_s = time.monotonic() - started
                if progress is not None:
                    progress(figures)
    except KeyboardInterrupt:
        figures.interrupted = True    # Ctrl-C (SIGINT): the figures of the matches played so far
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    figures.wall_s = time.monotonic() - started
    return figures


def play_match(config: Config, settings: SoakSettings, seed: int, figures: Figures, folder: Path) -> None:
    """One match on a rig of its own (a journal in `folder`), its games counted in `figures`."""
    match_folder = folder / f"match-{seed}"
    match_folder.mkdir()
    if settings.bots:   # the bot's seat alternates from match to match
        config = dataclasses.replace(config, bots=frozenset({(Color.WHITE, Color.BLACK)[figures.games % 2]}))
    match = SoakMatch(config, match_rules_for(figures.games, settings.variants), seed, settings.fault_rate,
                      figures, match_folder, physics=settings.physics, power_cut_rate=settings.power_cut_rate)
    try:
        players = SoakPlayers(match, seed)
        players.play_games(settings.games - figures.games)
        lost = plays_missing(players.accepted, match.journaled_positions())
        if lost:
            figures.plays_lost += lost
            figures.problem(f"match seed {seed}: {lost} plays the players saw accepted missing from the journal")
    except DemoStuck as error:
        figures.crashes += 1
        figures.stuck += 1
        figures.games += 1   # the game that got stuck counts as played
        figures.problem(f"match seed {seed}: stuck: {error}")
    except Exception as error:   # a crash of the application under test: counted, the campaign goes on
        figures.crashes += 1
        figures.games += 1   # the game that crashed
        where = traceback.extract_tb(error.__traceback__)[-1]
        figures.problem(f"match seed {seed}: {type(error).__name__}: {error} ({Path(where.filename).name}:{where.lineno})")
    finally:
        figures.games += match.games_ended
        figures.virtual_s += match.clock.monotonic()
        match.close()
        shutil.rmtree(match_folder, ignore_errors=True)


def _ram_dir() -> str | None:
    """Journals in RAM where there is a RAM disk: the soak tests the software, not the SD card."""
    return "/dev/shm" if Path("/dev/shm").is_dir() else None
