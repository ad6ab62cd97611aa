"""The referee's verdict in words, for people rather than LEDs: what the board means now, why a board
is illegal (the rule it breaks, `referee.explain`) and what to do, one step at a time.

    verdict_words(controller)   # {"kind": "illegal", "headline": ..., "why": [...], "steps": [...]}

Read on the loop's thread (the web companion's snapshot); the explanation of an illegal board is
worked out once per verdict and kept, so a snapshot costs no search.
"""
from __future__ import annotations

from typing import Any

from firmware_host.controller import Controller
from firmware_host.controller import machine as m
from firmware_host.referee.explain import explain
from firmware_host.rules import Position, Rules
from firmware_host.rules.plays import dice_text

_PLACES = {"bar": "the bar", "off": "the tray"}


def _place(location: str) -> str:
    return _PLACES.get(location, f"point {location}")


def verdict_words(controller: Controller) -> dict[str, Any] | None:
    """The words for the board as the controller sees it now; None outside a game's turn."""
    state, verdict = controller.state, controller.verdict
    guidance = [str(step) for step in controller.guidance()]
    if state == m.SETUP:
        return {"kind": "setup", "headline": f"Set up the board for {controller.variant}",
                "why": [], "steps": guidance}
    if state == m.CORRECTING:
        return {"kind": "illegal", "headline": "Illegal board: put it back as the lights show",
                "why": list(_explanation(controller)), "steps": guidance}
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
    if kind == "unchanged":
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
        words["why"] = list(_explanation(controller))
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


def _explanation(controller: Controller) -> tuple[str, ...]:
    """Why the board is illegal: the rules it breaks, in the turn's numbering."""
    if controller.sensed is None or controller.dice is None:
        return ()
    reading = controller.orientation.reading(controller.sensed, controller.variant)
    return _explain_cached(controller.position, tuple(controller.dice), reading, controller.rules)


# The last explanation worked out, by what it depends on (the loop's thread only).
_last_explained: list = [None, None, ()]


def _explain_cached(start: Position, dice: tuple[int, ...], reading, rules: Rules) -> tuple[str, ...]:
    key = (start, dice, reading)
    if _last_explained[0] != key or _last_explained[1] is not rules:
        _last_explained[:] = [key, rules, tuple(explain(start, dice, reading, rules))]
    return _last_explained[2]
