"""The journal's records, and the fold of one match's records into what resuming it needs.

Every record is an `Event`: a kind, a UTC timestamp and a JSON object. One match's events, in
order, fold (`MatchProgress.apply`) into its rules, its finished games (a `rules.match.Match`) and,
when a game is under way, a `GameState`: the variant, its resolved house rules, the position after
the last committed play, the last play and the roll waiting to be played. The journal folds the
events as it writes them and again when it opens, with this same code, so what `resume()` gives
after a power cut is exactly what it held before.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any, Mapping

from firmware_host.rules import GameResult, Move, Position, Rules
from firmware_host.rules.match import Match, MatchRules
from firmware_host.rules.position import Color


class Kind(enum.StrEnum):
    MATCH_STARTED = "match_started"      # rules: MatchRules fields
    MATCH_ENDED = "match_ended"          # reason: "won" (written with the winning game's end) or "abandoned"
    GAME_STARTED = "game_started"        # variant, rules (every option, resolved), starter, position,
                                         # orientation (how the board lies; absent in older journals)
    OPENING_ROLL = "opening_roll"        # white, black (one die each), starter, first_dice, kept_die
    ROLL = "roll"                        # side, dice
    PLAY = "play"                        # side, dice, moves, position (after), result, remainder
    GAME_ENDED = "game_ended"            # result, last_mover, reason
    REFUSAL = "refusal"                  # reason, details: a roll refused, "rolling too early" ...
    REFEREE = "referee"                  # action, details, position when the referee set one (and the
                                         # dice its side plays again from there, if any)
    FAULT = "fault"                      # fault, message, details
    FAULT_CLEARED = "fault_cleared"      # fault, message, details (a reconnect clears link-lost)
    SERVICE = "service"                  # what, details: the service started, the journal was moved aside


# Events that belong to a game: written with the game's number.
GAME_KINDS = frozenset({Kind.GAME_STARTED, Kind.OPENING_ROLL, Kind.ROLL, Kind.PLAY, Kind.GAME_ENDED})


@dataclass(frozen=True)
class Event:
    seq: int                   # order in the journal, from 1
    match_id: int | None       # the match's number, from 1, the one every surface shows; None outside any
                               # match (journals written before 2026-11-27 hold the seq of its start)
    game: int | None           # the game's number in its match, from 1; None outside a game
    kind: Kind
    at: str                    # UTC, ISO 8601 with milliseconds
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "match": self.match_id, "game": self.game, "kind": self.kind.value, "at": self.at,
                **self.data}


def match_rules_json(rules: MatchRules) -> dict[str, Any]:
    return {"sequence": list(rules.sequence), "target": rules.target, "opening_roll": rules.opening_roll,
            "tie_advances_rotation": rules.tie_advances_rotation, "tie_next_starter": rules.tie_next_starter,
            "resign_points": rules.resign_points}


def move_from_json(data: Mapping[str, Any]) -> Move:
    return Move(data["from"], data["to"], data["die"], data.get("hit", False), data.get("pin", False))


def result_from_json(data: Mapping[str, Any]) -> GameResult:
    return GameResult(None if data["winner"] is None else Color(data["winner"]), data["points"], data["reason"])


@dataclass(frozen=True)
class PlayRecord:
    """A committed play as the journal holds it."""

    seq: int
    side: Color
    dice: tuple[int, int]
    moves: tuple[Move, ...]
    position: Position               # after the play
    result: GameResult | None


@dataclass(frozen=True)
class GameState:
    """The game under way: everything needed to carry on with it."""

    number: int                          # in the match, from 1
    variant: str
    rules: Rules                         # the house rules it was started with (not today's config)
    starter: Color | None                # None until the opening roll has decided
    position: Position                   # after the last committed play (or what the referee set); .turn moves next
    last_play: PlayRecord | None
    pending_roll: tuple[int, int] | None  # rolled by position.turn and not yet committed by a play
    first_mover: Color | None = None     # who played the first turn, for a game begun without an opening roll
    orientation: str | None = None       # how the board lies (controller.Orientation value); None: not journaled
    kept_die: int | None = None          # keep_own_die: the starter's opening die, the first of his first roll

    @property
    def side_to_move(self) -> Color:
        return self.position.turn


@dataclass(frozen=True)
class ResumeState:
    """What the controller needs to continue an unfinished match after a restart.

    `match` carries the match rules and the finished games (`match.score`, `match.next_variant`,
    `match.next_starter`). `game` is the game under way, or None when the next one has not begun.
    """

    match_id: int
    started_at: str
    match: Match
    game: GameState | None
    bots: frozenset[Color] = frozenset()   # the seats the bot plays, as last journaled


class MatchProgress:
    """One match, folded event by event. `apply` raises KeyError/ValueError on a record it cannot read."""

    def __init__(self, started: Event):
        self.match_id = started.match_id
        self.started_at = started.at
        self.match = Match.new(MatchRules(**{**started.data["rules"], "sequence": tuple(started.data["rules"]["sequence"])}))
        self.game: GameState | None = None
        self.bots = frozenset(Color(side) for side in started.data.get("bots", ()))
        self.ended = False

    @property
    def finished(self) -> bool:
        return self.ended or self.match.is_over

    @property
    def next_game_number(self) -> int:
        return len(self.match.games) + 1

    def resume_state(self) -> ResumeState:
        return ResumeState(self.match_id, self.started_at, self.match, self.game, self.bots)

    def apply(self, event: Event) -> None:
        data = event.data
        if event.kind is Kind.GAME_STARTED:
            starter = None if data["starter"] is None else Color(data["starter"])
            position = Position.from_json(data["position"])
            self.game = GameState(event.game, data["variant"], Rules.for_variant(data["variant"], data["rules"]),
                                  starter, position, None, None, orientation=data.get("orientation"))
        elif event.kind is Kind.OPENING_ROLL:
            if data["starter"] is not None:
                starter = Color(data["starter"])
                first = data.get("first_dice")
                self.game = replace(self.game, starter=starter, position=self.game.position.with_turn(starter),
                                    pending_roll=None if first is None else tuple(first), kept_die=data.get("kept_die"))
        elif event.kind is Kind.ROLL:
            self.game = replace(self.game, pending_roll=tuple(data["dice"]), kept_die=None)
        elif event.kind is Kind.PLAY:
            side = Color(data["side"])
            result = None if data.get("result") is None else result_from_json(data["result"])
            play = PlayRecord(event.seq, side, tuple(data["dice"]), tuple(move_from_json(m) for m in data["moves"]),
                              Position.from_json(data["position"]), result)
            self.game = replace(self.game, position=play.position, last_play=play, pending_roll=None,
                                first_mover=self.game.first_mover or side)
        elif event.kind is Kind.REFEREE:
            if data.get("action") == "seats":
                self.bots = frozenset(Color(side) for side in data["bots"])
            if data.get("position") is not None and self.game is not None:
                # Restoring the board before the last play: that side plays the same dice again.
                dice = data.get("dice")
                self.game = replace(self.game, position=Position.from_json(data["position"]),
                                    pending_roll=None if dice is None else tuple(dice))
        elif event.kind is Kind.GAME_ENDED:
            starter = self.game.starter or self.game.first_mover or Color(data["last_mover"])
            self.match = self.match.record(result_from_json(data["result"]), starter, Color(data["last_mover"]))
            self.game = None
        elif event.kind is Kind.MATCH_ENDED:
            self.ended = True
