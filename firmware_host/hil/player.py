"""The seeded player of `play-on`: plays on the rig's board the way the demo's players do.

It looks only at what the lights show (the controller's guidance and state, as `View`), lifts and
places or slides checkers on the simulated board, and presses the button: it follows the setup and
correction lights, rolls, and plays a legal play of the roll chosen with its seeded random source,
then commits it with a press.
"""
from __future__ import annotations

import random

from firmware_host.controller import machine as m
from firmware_host.demo import physical
from firmware_host.controller.orientation import Orientation
from firmware_host.referee import VerdictKind
from firmware_host.rules import Turn

# A player that has acted this many times without the match moving on is stuck, and says so.
MOST_ACTIONS_PER_TURN = 40
WAIT_S = 0.25    # how long it waits before looking again at a board it cannot act on (a fault, a timer)


class PlayerStuck(RuntimeError):
    """The seeded player cannot go on (the controller does not move on, or the dice ran out)."""


class SeededPlayer:
    def __init__(self, rig, seed: int):
        self.rig = rig
        self.random = random.Random(seed ^ 0x5EED)

    def play_on(self, until: str) -> None:
        """Play until the current turn ("turn"), game ("game") or match ("match") is over."""
        rig = self.rig
        game, turn_of = rig.view.game_number, (rig.view.turn, rig.view.position)
        idle = 0
        while True:
            view = rig.view
            if view.state == m.MATCH_OVER or until == "game" and (view.state == m.GAME_OVER or view.game_number != game) \
                    or until == "turn" and (view.turn, view.position) != turn_of and view.state != m.CORRECTING:
                return
            before = (view.state, view.position, view.sensed, view.dice)
            self.act(view)
            rig.settle()
            after = rig.view
            idle = 0 if (after.state, after.position, after.sensed, after.dice) != before else idle + 1
            if idle > MOST_ACTIONS_PER_TURN:
                raise PlayerStuck(f"the seeded player got nowhere in {after.state} "
                                  f"({idle} tries; verdict {after.verdict_kind})")

    def act(self, view) -> None:
        rig = self.rig
        if view.state in (m.SETUP, m.CORRECTING):
            steps = view.guidance if view.state == m.SETUP else view.guidance[:1]
            for step in steps:
                rig.board.slide(physical(Orientation.AS_WIRED, step.origin),
                                physical(Orientation.AS_WIRED, step.destination), step.color.value)
                rig.advance(0.1)
        elif view.state in (m.OPENING_ROLL, m.AWAITING_ROLL):
            rig.press()
        elif view.state == m.MOVING and view.dice is not None:
            self.play_turn(view)
        elif view.state == m.REFEREE:
            rig.hold()
        else:   # game over (a timer), link lost, a sensor fault, resuming: wait for the controller
            rig.advance(WAIT_S)

    def play_turn(self, view) -> None:
        rig, board, orientation = self.rig, self.rig.board, view.orientation
        mover = view.position.turn
        rules = rig.config.rules_for(view.variant)
        # The bot's turn: its moves, as the lights show them; else a play of the seeded choice.
        moves = view.bot_play.moves[view.bot_moves_made:] if view.bot_play is not None else \
            Turn(view.position, view.dice, rules).pick_play(self.random.choice).moves
        for move in moves:
            origin, destination = physical(orientation, move.origin), physical(orientation, move.destination)
            if move.hit:
                board.hit(destination, mover.opponent.value)
            if self.random.random() < 0.5:
                board.lift(origin, mover.value)
                rig.advance(0.2)
                board.place(destination, mover.value)
            else:
                board.slide(origin, destination, mover.value)
            rig.advance(0.1)
        rig.settle()
        if rig.view.verdict_kind not in (VerdictKind.COMPLETE, None) and moves:
            raise PlayerStuck(f"the board after {' '.join(map(str, moves))} reads {rig.view.verdict_kind}, "
                              "not a complete play")
        rig.press()
