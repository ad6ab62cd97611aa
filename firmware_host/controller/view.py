"""The one view of the game: what every surface shows, as one immutable value (`Controller.view()`).

    view = controller.view()
    view.state, view.turn, view.dice, view.verdict_kind, view.guidance, view.scene.marks
    view.to_json()          # the facts of the companion's snapshot (docs/companion-protocol.md)

The event loop hands it to its observers with each event (`observer(view, event)`); the status
line, the verdict's words, the terminal drawing, the web pages, the demo's players and the HIL rigs
read the game through it and nothing else. Locations a person must find on the board (`guidance`,
`bot_steps`, the scene's marks) are in the board's labels; records (`position`, `verdict`,
`last_play`) in the position format (`numbering`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware_host.controller.machine import State
from firmware_host.controller.numbering import BoardLabels, play_text
from firmware_host.controller.orientation import Orientation
from firmware_host.leds.scene import Scene
from firmware_host.referee import Reading, Step, Verdict, VerdictKind
from firmware_host.rules import Color, Owed, Play, Position, Rules, dice_text
from firmware_host.rules.match import Match
from firmware_host.sensing.events import SensorFault
from firmware_host.sensing.reading import BoardReading


@dataclass(frozen=True)
class RefereePage:
    """What one press in referee mode shows: a move of the last play, a legal play, or the restore."""

    kind: str                 # "replay_move", "best_play" (a move of the bot's choice), "legal_play", "restore"
    index: int = 0            # which move / which play
    of: int = 0               # out of how many


@dataclass(frozen=True)
class LastPlay:
    """The last committed play of the game, and the position it was played from (for restoring)."""

    before: Position
    mover: Color
    dice: tuple[int, ...]      # the roll, or `Owed` dice
    play: Play


@dataclass(frozen=True)
class GameView:
    """The game as the controller holds it after an event."""

    state: State
    returns_to: State | None           # an overlay: the state it goes back to; else None
    match_id: int | None               # the journal's, None before the match's first game begins
    match: Match                       # rules, games played, score, winner
    game_number: int                   # the game under way (or just over), from 1
    variant: str
    rules: Rules
    bots: frozenset[Color]             # the seats the bot plays
    position: Position                 # the turn's start; `.turn` is the side to move
    in_turn: bool                      # a roll is being played (a referee judges the board)
    dice: tuple[int, ...] | None       # the roll being played, or `Owed` dice
    opening_dice: tuple[int, int] | None
    no_legal_move: bool
    verdict: Verdict | None            # on the last reading, in the position format
    judging: bool                      # that reading is still being judged
    orientation: Orientation
    sensed: BoardReading | None        # the last reading, as wired
    board: Reading | None              # the board it stands for, in the position format (as the referee reads it)
    changing: bool
    settled: bool
    guidance: tuple[Step, ...]         # the steps the lights guide through now, in the board's labels
    bot_play: Play | None              # the bot's turn: the play the lights show, move by move
    bot_moves_made: int                # ... and how many of its moves the board shows made
    scene: Scene                       # what the LEDs show (as-wired locations)
    referee_page: RefereePage | None
    last_play: LastPlay | None
    sensor_faults: tuple[SensorFault, ...]
    button_stuck: bool
    storage_fault: str | None          # why the journal refuses records, while it does
    journal_damage: str | None
    remote_seats: frozenset[Color] = frozenset()   # the colour the opponent board plays (a remote match)
    remote_fault: str | None = None    # the last thing refused from the opponent board, or its lateness

    # -- derived -------------------------------------------------------------------------------------

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def labels(self) -> BoardLabels:
        return BoardLabels(self.orientation)

    @property
    def verdict_kind(self) -> str | None:
        return None if self.verdict is None else self.verdict.kind

    @property
    def score(self) -> tuple[int, int]:
        score = self.match.score
        return score[Color.WHITE], score[Color.BLACK]

    @property
    def owed(self) -> bool:
        return isinstance(self.dice, Owed)

    @property
    def bot_steps(self) -> tuple[Step, ...]:
        """The bot's moves still to make, as steps in the board's labels (the lights show the first)."""
        if self.bot_play is None:
            return ()
        return tuple(self.labels.move_step(move, self.turn) for move in self.bot_play.moves[self.bot_moves_made:])

    @property
    def awaiting_remote_play(self) -> bool:
        """The remote seat's turn, its play not yet come from the opponent board."""
        return self.state is State.MOVING and self.turn in self.remote_seats and not self.in_turn

    @property
    def game_state(self) -> State:
        """The state of the game under an overlay (the state itself otherwise)."""
        return self.returns_to or self.state

    def to_json(self) -> dict[str, Any]:
        """The facts as JSON-ready data (the companion's snapshot adds the words and the link's facts)."""
        verdict = self.verdict if self.in_turn else None
        page = self.referee_page
        return {
            "state": self.state.value,
            "overlay_return": None if self.returns_to is None else self.returns_to.value,
            "match": _match_json(self.match, self.match_id),
            "seats": {color.value: "bot" if color in self.bots else "remote" if color in self.remote_seats else "person"
                      for color in (Color.WHITE, Color.BLACK)},
            "game": {"number": self.game_number, "variant": self.variant, "rules": self.rules.to_json()},
            "position": self.position.to_json(),
            "orientation": self.orientation.value,
            "reading": None if self.sensed is None else self.sensed.to_json(),
            "changing": self.changing,
            "lifted": None if verdict is None or verdict.kind is not VerdictKind.IN_HAND else
            {"checkers": {color.value: count for color, count in verdict.lifted.items()}, "from": verdict.origin},
            "destinations": {} if verdict is None else {origin: list(to) for origin, to in verdict.destinations.items()},
            "dice": _listed(self.dice),
            "owed": self.owed,
            "opening_dice": _listed(self.opening_dice),
            "steps": [step.to_json() for step in self.guidance],
            "scene": _scene_json(self.scene),
            "referee": None if page is None else {"page": page.kind, "index": page.index, "of": page.of},
            "last_play": None if self.last_play is None else _last_play_json(self.last_play),
            "faults": {
                "sensors": [{"location": fault.location, "reason": fault.reason} for fault in self.sensor_faults],
                "button_stuck": self.button_stuck,
                "link_lost": self.state is State.LINK_LOST,
                "remote": self.remote_fault,
            },
        }


def _listed(dice: tuple[int, ...] | None) -> list[int] | None:
    return None if dice is None else list(dice)


def _match_json(match: Match, match_id: int | None) -> dict[str, Any]:
    def winner(color: Color | None) -> str | None:
        return None if color is None else color.value
    return {"id": match_id, "sequence": list(match.rules.sequence), "target": match.rules.target,
            "score": {color.value: points for color, points in match.score.items()},
            "games": [{"variant": game.variant, "points": game.result.points, "reason": game.result.reason,
                       "winner": winner(game.result.winner)} for game in match.games],
            "winner": winner(match.winner)}


def _scene_json(scene: Scene) -> dict[str, Any]:
    score = scene.score
    return {"marks": {location: mark.value for location, mark in scene.marks.items()},
            "dice": _listed(scene.dice),
            "dice_signal": None if scene.dice_signal is None else scene.dice_signal.value,
            "turn": scene.turn,
            "score": None if score is None else {"white": score.white, "black": score.black, "target": score.target}}


def _last_play_json(last: LastPlay) -> dict[str, Any]:
    return {"side": last.mover.value, "dice": list(last.dice), "text": dice_text(last.dice) + ": " + play_text(last.play.moves),
            "moves": [move.to_json() for move in last.play.moves]}
