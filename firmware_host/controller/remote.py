"""A remote seat: the colour whose plays are made on the opponent board of a remote match.

The network (firmware_host/service/remote_seat.py) checks each message's signature and number and
posts what it carries to the loop as one of these events; the controller alone decides what they
change. A play is taken for the remote seat's turn only if its moves are a whole legal play of that
turn's roll from that turn's position (checked here, by the rules, never taken on trust): the lights
then show it move by move and the referee holds the board to it, as for the bot's seat.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware_host.referee import Reading, Referee, VerdictKind
from firmware_host.referee.held import HeldReferee
from firmware_host.rules import Color, Move, Play, Position, Rules


@dataclass(frozen=True)
class RemotePlay:
    """The opponent board's player's play, as its journal recorded it (`side`, `dice`, `moves`,
    `position`): signed by that board and new (the network checked both)."""

    board: str
    side: str
    dice: tuple[int, ...]
    moves: tuple[Any, ...]
    position: Any


@dataclass(frozen=True)
class RemoteFault:
    """Something from the opponent board was refused (a forged, replayed or wrong message) or is late
    (its dice secret): journaled and shown; nothing of it is applied."""

    fault: str       # "remote_refused", "remote_late"
    message: str


@dataclass(frozen=True)
class RemoteForfeit:
    """`loser` forfeits the match: its board did not reveal its dice secret in time after a warning
    (or this board's player, when the opponent board says so in a signed message)."""

    loser: Color
    reason: str


class RemotePlayRefused(ValueError):
    """A remote play that is not a legal play of the turn it is for."""


def held_play(event: RemotePlay, position: Position, dice: tuple[int, ...], rules: Rules) -> Play:
    """The play `event` carries, checked against the remote seat's turn (`position` to move with
    `dice`): its moves in its order, its end, result and remainder as this board's rules find them."""
    if event.side != position.turn.value:
        raise RemotePlayRefused(f"{event.board}'s play is for {event.side}, but {position.turn.value} is to move")
    if list(event.dice) != list(dice):
        raise RemotePlayRefused(f"{event.board}'s play is of the dice {list(event.dice)}, but the roll here is {list(dice)}")
    try:
        moves = tuple(Move(str(move["from"]), str(move["to"]), int(move["die"]), bool(move["hit"]), bool(move["pin"]))
                      for move in event.moves)
        claimed = Reading.of(Position.from_json(event.position))
    except (KeyError, TypeError, ValueError) as error:
        raise RemotePlayRefused(f"{event.board}'s play cannot be read: {error}") from None
    try:
        way = HeldReferee(position, dice, rules, lambda turn: Play(moves, position)).way
    except StopIteration:
        raise RemotePlayRefused(f"{event.board}'s moves are not moves of this roll from this position") from None
    verdict = Referee(position, dice, rules).judge(Reading.of(way[-1]))
    if verdict.kind != VerdictKind.COMPLETE:
        raise RemotePlayRefused(f"{event.board}'s moves are not a whole legal play of this roll")
    if claimed != Reading.of(verdict.play.position):
        raise RemotePlayRefused(f"{event.board}'s play ends on another board than its moves lead to")
    return Play(moves, verdict.play.position, verdict.play.result, verdict.play.remainder)
