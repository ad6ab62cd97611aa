"""The demo's scripted players: two people at the board, driven by what the lights show.

They only do what people do: look at the lights (here: the controller's guidance, which the lights
show), lift, slide and place checkers, and press or hold the button. They act through a rig's
`Hands` (the demo's, the soak's, the kill test's) and see the controller through a `Table`, which the
event loop's thread updates after every event. Used by the demo, the HIL soak and the seeded HIL
player, and by the kill test's child service.
"""
from __future__ import annotations

import random
import threading
import time
from typing import Callable, Protocol

from firmware_host.config import Config
from firmware_host.controller import machine as m
from firmware_host.controller.numbering import BoardLabels, play_text
from firmware_host.controller.orientation import Orientation
from firmware_host.controller.view import GameView
from firmware_host.hw.events import DicePressed
from firmware_host.leds.scene import DiceSignal, Mark
from firmware_host.referee import Referee, VerdictKind, restore
from firmware_host.rules import Color, Move, Play, Turn, dice_text
from firmware_host.rules.plays import ROUTES
from firmware_host.sim.board import SimBoard

# Real waits for the controller are bounded by this; a demo that waits longer is stuck, and says so.
PATIENCE_S = 30.0


class DemoStuck(RuntimeError):
    """The controller did not reach what a player waited for."""

class Table:
    """The players' view of the game: the controller's view after every event (the loop's thread
    updates it), and the presses the controller has handled."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self.seen: GameView | None = None
        self.presses = 0

    def observe(self, view: GameView, event: object) -> None:
        with self._condition:
            self.presses += isinstance(event, DicePressed)
            self.seen = view
            self._condition.notify_all()

    def wait_press(self, before: int) -> GameView:
        """What the controller made of the press after the `before`-th."""
        return self.wait(lambda view: self.presses > before, "the press")

    def wait(self, ready: Callable[[GameView], bool], what: str) -> GameView:
        with self._condition:
            if not self._condition.wait_for(lambda: self.seen is not None and ready(self.seen), PATIENCE_S):
                raise DemoStuck(f"waited {PATIENCE_S:.0f} s for {what}; the controller is in "
                                f"{self.seen.state if self.seen else 'no state yet'}")
            return self.seen


def physical(orientation: Orientation, location: str) -> str | int:
    """A location of the position format where the hands find it on the simulated board (its label;
    a point as a number, "bar"/"off" per colour)."""
    label = BoardLabels(orientation).label(location)
    return int(label) if label.isdigit() else label


class Hands(Protocol):
    """What the players need of a rig: the board under their hands, the button, the table and a voice."""

    board: SimBoard
    table: Table
    config: Config
    settings: object           # .boards: which boards the voice shows ("moments", "every-turn", "none")

    def press(self) -> None: ...
    def hold(self, until: Callable[[GameView], bool] | None = None, what: str = "") -> GameView: ...
    def settled_view(self) -> GameView: ...
    def say(self, text: str) -> None: ...
    def show(self, caption: str, seen: GameView | None = None) -> None: ...


class Players:
    """Two scripted players sharing one seeded random source."""

    def __init__(self, demo: Hands, seed: int):
        self.demo = demo
        self.random = random.Random(seed ^ 0x5EED)
        self.turns = 0           # in the match
        self.turns_in_game = 0
        self.stunts = {"too_early", "illegal", "replay"}   # each done once, in the first game

    def play_match(self) -> GameView:
        return self.play_until(lambda seen: seen.state == m.MATCH_OVER)

    def play_until(self, done: Callable[[GameView], bool]) -> GameView:
        """Play on until what the controller shows is `done`; returns what it showed."""
        demo = self.demo
        seen = demo.table.wait(lambda s: True, "the controller")
        last_game = 0
        while not done(seen):
            if seen.game_number != last_game and seen.state in (m.OPENING_ROLL, m.AWAITING_ROLL):
                last_game, self.turns_in_game = seen.game_number, 0
                demo.show(f"game {seen.game_number}: {seen.variant}; the board lies {seen.orientation.value}", seen)
            if seen.state == m.RESUMING:
                seen = demo.table.wait(lambda s: s.state != m.RESUMING, "the board read after a restart")
            elif seen.state == m.SETUP:
                seen = self.set_up(seen)
            elif seen.state in (m.OPENING_ROLL, m.AWAITING_ROLL):
                seen = self.roll(seen)
            elif seen.awaiting_remote_play:
                seen = demo.table.wait(lambda s: not s.awaiting_remote_play, "the opponent board's play")
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

    def set_up(self, seen: GameView) -> GameView:
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

    def roll(self, seen: GameView) -> GameView:
        demo = self.demo
        state = seen.state
        demo.settled_view()
        seen = self.press_taken()
        if state == m.OPENING_ROLL:
            white, black = seen.opening_dice
            demo.say(f"opening roll: white {white}, black {black}" + ("  (a tie: again)" if white == black else ""))
        return seen

    def press(self) -> GameView:
        """A short press; returns what the controller made of it."""
        before = self.demo.table.presses
        self.demo.press()
        return self.demo.table.wait_press(before)

    def press_taken(self) -> GameView:
        """A press, made again once the lights stop refusing it where they refuse it for the dice (a
        remote match: the other board's secret not in yet); returns what the controller made of it."""
        deadline = time.monotonic() + PATIENCE_S
        seen = self.press()
        while seen.remote_seats and seen.scene.dice_signal is DiceSignal.ROLL_REFUSED:
            if time.monotonic() > deadline:
                raise DemoStuck(f"presses refused for {PATIENCE_S:.0f} s in {seen.state}")
            self.demo.table.wait(lambda s: s.scene.dice_signal is not DiceSignal.ROLL_REFUSED, "the refusal to end")
            seen = self.press()
        return seen

    def end_blockade(self, seen: GameView) -> GameView:
        """Neither side can ever move again (BLOCKADE on the dice): a press ends the game drawn."""
        self.demo.show("a permanent blockade: no roll can change the board; a press ends the game drawn", seen)
        return self.press()

    # -- a turn -----------------------------------------------------------------------------------

    def play_turn(self, seen: GameView) -> GameView:
        demo = self.demo
        self.turns += 1
        self.turns_in_game += 1
        if seen.bot_play is not None:
            return self.move_for_bot(seen)
        mover = seen.position.turn
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

    def move_for_bot(self, seen: GameView) -> GameView:
        """The bot's turn: move its checkers as the lights show, one move after the other (the
        player takes a hit checker to the bar, as the rules say), then press."""
        demo, play, mover = self.demo, seen.bot_play, seen.position.turn
        who = "the other board's player" if mover in seen.remote_seats else "the bot"
        demo.say(f"{who} plays {mover}: {play_text(play.moves)}; the lights show each move")
        for index, move in enumerate(play.moves):
            origin, destination = seen.labels.led(move.origin, mover), seen.labels.led(move.destination, mover)
            if seen.bot_moves_made != index or seen.scene.marks.get(origin) is not Mark.TAKE_FROM \
                    or seen.scene.marks.get(destination) is not Mark.PUT_ON:
                raise DemoStuck(f"the lights do not show the bot's move {index + 1}, {move}: {seen.scene.marks}")
            if self.turns_in_game <= 2 and index == 0:
                demo.show(f"the bot's move for {mover}: {seen.labels.move_step(move, mover)}", seen)
            self.move(seen, move, mover)
            seen = demo.settled_view()
        return self.commit_play(seen, play)

    def commit_play(self, seen: GameView, play: Play) -> GameView:
        """The board shows `play` complete: the press commits it (and rolls for the other side)."""
        demo, mover, dice = self.demo, seen.position.turn, seen.dice
        after = demo.settled_view()
        if after.verdict_kind != VerdictKind.COMPLETE:
            raise DemoStuck(f"the board after {play} reads {after.verdict_kind}, not a complete play")
        seen = self.press_taken()
        summary = f"{mover} {dice_text(dice)}: {play_text(play.moves)}"
        if seen.state == m.MOVING and seen.dice is not None:
            summary += f"   -> {seen.position.turn} rolls {dice_text(seen.dice)}"
        demo.say(summary)
        if demo.settings.boards == "every-turn":
            demo.show(summary, seen)
        return seen

    def choose(self, seen: GameView) -> Play:
        """A reasonable play: the one that wins, bears off most, or leaves the fewest pips to go;
        ties broken by the seeded random source."""
        progress = self.progress(seen)
        return self.rules_turn(seen).pick_play(lambda options: self._best(options, progress))

    def rules_turn(self, seen: GameView) -> Turn:
        return Turn(seen.position, seen.dice, self.demo.config.rules_for(seen.variant))

    def progress(self, seen: GameView) -> Callable[[Play], tuple]:
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

    def listed_plays(self, seen: GameView) -> list[Play] | None:
        """Every legal play of the roll; None for a roll played in stages (a cascade, owed dice),
        whose plays can run into the hundreds of thousands."""
        turn = self.rules_turn(seen)
        return turn.plays() if len(turn.stages) == 1 else None

    def replan(self, seen: GameView, plays: list[Play]) -> Play:
        """The lights led the board to the nearest legal board, which may be a stage of some play
        rather than the turn's start. As a player would, go on from the board as it lies: the plays
        that need the fewest checkers moved from it, the best of those."""
        reading = seen.orientation.reading(self.demo.board.reading(), seen.variant)
        steps = {play: len(restore(play.position, reading)) for play in plays}
        fewest = min(steps.values())
        play = self._best([play for play in plays if steps[play] == fewest], self.progress(seen))
        self.demo.say(f"{seen.position.turn} goes on from the board the lights led to: "
                      f"{play_text(play.moves)}")
        return play

    def finish(self, seen: GameView, play: Play) -> None:
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

    def move(self, seen: GameView, move: Move, mover: Color, show_lift: bool = False) -> None:
        """One checker's move the way hands do it: hit first, then lift and place, or slide."""
        board, orientation = self.demo.board, seen.orientation
        origin, destination = physical(orientation, move.origin), physical(orientation, move.destination)
        if move.hit:
            board.hit(destination, mover.opponent.value)
        if show_lift or self.random.random() < 0.5:
            board.lift(origin, mover.value)
            if show_lift:
                now = self.demo.mcu.sensed_reading()
                lifted = self.demo.table.wait(lambda s: s.verdict_kind == VerdictKind.IN_HAND and s.sensed == now and not s.judging,
                                              "the lift to be seen")
                self.demo.show(f"{mover} lifts a checker from {origin}: its legal destinations light up", lifted)
            board.place(destination, mover.value)
        else:
            board.slide(origin, destination, mover.value)

    # -- the stunts -------------------------------------------------------------------------------

    def illegal_move(self, seen: GameView, move: Move) -> bool:
        """Move a checker where no legal play goes, wait for the referee, follow the lights back
        (to the nearest legal board, not always the turn's start). False: no such move of it."""
        demo, board, mover = self.demo, self.demo.board, seen.position.turn
        referee = Referee(seen.position, seen.dice, demo.config.rules_for(seen.variant))
        origin = physical(seen.orientation, move.origin)
        for point in range(1, 25):
            board.slide(origin, seen.orientation.point(point), mover.value)
            reading = seen.orientation.reading(board.reading(), seen.variant)
            if referee.judge(reading).kind == VerdictKind.ILLEGAL:
                break
            board.slide(seen.orientation.point(point), origin, mover.value)
        else:
            return False   # no single wrong move of this checker: nothing to show
        demo.say(f"{mover} moves a checker from {seen.labels.place(move.origin)} to {seen.labels.place(str(point))}: "
                 "no legal play does that")
        seen = demo.table.wait(lambda s: s.state == m.CORRECTING, "the illegal board to be called")
        self.correct(seen)
        return True

    def correct(self, seen: GameView) -> GameView:
        demo = self.demo
        while seen.state == m.CORRECTING:
            demo.show("illegal board: take from the blinking place, put on the lit one", seen)
            step = seen.guidance[0]
            demo.board.slide(physical(Orientation.AS_WIRED, step.origin),
                             physical(Orientation.AS_WIRED, step.destination), step.color.value)
            seen = demo.settled_view()
        demo.say("the board is legal again: play on")
        return seen

    def referee_replay(self, seen: GameView) -> GameView:
        demo = self.demo
        demo.say(f"{seen.position.turn} disputes the last play: a long press calls the referee")
        seen = demo.hold(lambda s: s.state == m.REFEREE, "referee mode")
        while seen.referee_page is not None and seen.referee_page.kind == "replay_move":
            demo.show("referee: the last play, one move at a time", seen)
            seen = self.press()
        demo.show("referee: the first legal play of the current roll", seen)
        seen = demo.hold(lambda s: s.state != m.REFEREE, "the end of referee mode")
        demo.say("a long press again: back to the game")
        return seen
