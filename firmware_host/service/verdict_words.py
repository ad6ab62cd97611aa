"""The referee's verdict in words, for people rather than LEDs: what the board means now, why a board
is illegal (the rule it breaks, `referee.explain`) and what to do, one step at a time.

    verdict_words(controller)   # {"kind": "illegal", "headline": ..., "why": [...], "steps": [...]}

Read on the loop's thread (the web companion's snapshot). Why an illegal board is illegal may take a
search of the roll's plays, so the companion takes only its inputs there (`illegal_board`, immutable
values) and works out the `reasons` on its own thread; the last explanation is kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware_host.controller import Controller
from firmware_host.controller import machine as m
from firmware_host.referee import Reading
from firmware_host.referee.explain import explain
from firmware_host.rules import Position, Rules
from firmware_host.rules.plays import dice_text

_PLACES = {"bar": "the bar", "off": "the tray"}


def _place(location: str) -> str:
    return _PLACES.get(location, f"point {location}")


@dataclass(frozen=True)
class IllegalBoard:
    """What explaining an illegal board needs: the turn's start, its dice, the board in the turn's
    numbering and the game's rules."""

    start: Position
    dice: tuple[int, ...]
    reading: Reading
    rules: Rules


def illegal_board(controller: Controller) -> IllegalBoard | None:
    """The inputs of the explanation while the board is illegal (correcting, or judged illegal); else None."""
    illegal = controller.state == m.CORRECTING or (controller.referee is not None and controller.verdict is not None
                                                   and controller.verdict.kind == "illegal")
    if not illegal or controller.sensed is None or controller.dice is None:
        return None
    reading = controller.orientation.reading(controller.sensed, controller.variant)
    return IllegalBoard(controller.position, tuple(controller.dice), reading, controller.rules)


def reasons(board: IllegalBoard) -> list[str]:
    """Why `board` is illegal: the rules it breaks (`referee.explain`), the last answer kept."""
    key = (board.start, board.dice, board.reading)
    if _last_explained[0] != key or _last_explained[1] is not board.rules:
        _last_explained[:] = [key, board.rules, explain(board.start, board.dice, board.reading, board.rules)]
    return list(_last_explained[2])


# The last explanation worked out, by what it depends on.
_last_explained: list = [None, None, []]


def verdict_words(controller: Controller, *, with_reasons: bool = True) -> dict[str, Any] | None:
    """The words for the board as the controller sees it now; None outside a game's turn. Without
    `with_reasons`, "why" of an illegal board is left empty (for `reasons` to fill elsewhere)."""
    state, verdict = controller.state, controller.verdict
    guidance = [str(step) for step in controller.guidance()]
    if state == m.SETUP:
        return {"kind": "setup", "headline": f"Set up the board for {controller.variant}",
                "why": [], "steps": guidance}
    if state == m.CORRECTING:
        return {"kind": "illegal", "headline": "Illegal board: put it back as the lights show",
                "why": _why(controller, with_reasons), "steps": guidance}
    if state == m.REFEREE:
        return {"kind": "referee", "headline": "Referee mode: a press shows the next page, a long press leaves",
                "why": [], "steps": guidance}
    if state in _BETWEEN_TURNS:
        return {"kind": state, "headline": _BETWEEN_TURNS[state](controller), "why": [], "steps": []}
    if controller.referee is None or verdict is None:
        return None
    mover, roll = controller.position.turn, dice_text(controller.dice or ())
    kind = verdict.kind
    words: dict[str, Any] = {"kind": kind, "why": [], "steps": []}
    bot_steps = controller.bot_steps()
    if bot_steps and kind in ("unchanged", "partial"):
        moves = " ".join(str(move) for move in controller.referee.play.moves)
        words["headline"] = f"The bot plays {mover}'s {roll}: {moves}; move its checkers as the lights show"
        words["steps"] = [str(step) for step in bot_steps]
    elif kind == "unchanged":
        words["headline"] = f"{mover} to play {roll}" + (": no legal move, press to pass" if controller.no_legal_move else "")
    elif kind == "partial":
        words["headline"] = f"{mover} has played part of {roll}: {dice_text(verdict.remaining)} still to play"
    elif kind == "complete":
        words["headline"] = f"{mover} has played {roll}: a complete play, press the button to commit it"
    elif kind == "in_hand":
        lifted_from = f" from {_place(verdict.origin)}" if verdict.origin else ""
        where = sorted({d for targets in verdict.destinations.values() for d in targets}, key=_order)
        words["headline"] = f"A checker is in hand{lifted_from}" + \
            (f": it may go to {', '.join(_place(d) for d in where)}" if where else ": it has nowhere legal to go")
    elif kind == "illegal":
        words["headline"] = f"Not a legal play of {roll}"
        words["why"] = _why(controller, with_reasons)
        words["steps"] = [str(step) for step in verdict.steps]
    elif kind == "fault":
        words["headline"] = "The sensors cannot be trusted here"
        if verdict.fault is not None:
            words["why"] = [f"{_place(verdict.fault.location)}: {verdict.fault.reason}"]
    return words


def _game_result(controller: Controller) -> str:
    last = controller.match.games[-1]
    result = last.result
    won = "a tie" if result.winner is None else f"{result.winner} wins {result.points} ({result.reason})"
    return f"Game {len(controller.match.games)} of {last.variant} is over: {won}"


def _faults(controller: Controller) -> str:
    faults = "; ".join(f"{fault.location or 'the board'}: {fault.reason}" for fault in controller.sensor_faults.values())
    return f"Sensor fault ({faults}): no verdict until it clears; the game is kept"


# What the board waits for outside a turn, in words.
_BETWEEN_TURNS = {
    m.OPENING_ROLL: lambda c: "Opening roll: press the button; each side gets one die and the higher starts",
    m.AWAITING_ROLL: lambda c: f"{c.position.turn} to roll: press the button",
    m.BLOCKADE: lambda c: "Neither side can ever move again: a press ends the game drawn",
    m.GAME_OVER: _game_result,
    m.MATCH_OVER: lambda c: f"The match is over: {c.match.winner} wins; a press starts a new match",
    m.RESUMING: lambda c: "Resumed from the journal: waiting for the board to show the game",
    m.LINK_LOST: lambda c: "The sensor link is lost: the game is kept; check the sensor cable",
    m.SENSOR_FAULT: _faults,
    m.BUTTON_STUCK: lambda c: "The dice button is stuck down: release it; the game is kept",
}


def _order(location: str) -> tuple[bool, str]:
    return (not location.isdigit(), location.zfill(3))


def _why(controller: Controller, with_reasons: bool) -> list[str]:
    board = illegal_board(controller) if with_reasons else None
    return [] if board is None else reasons(board)
