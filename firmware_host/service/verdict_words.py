"""The referee's verdict in words, for people rather than LEDs: what the board means now, why a board
is illegal (the rules the referee found it breaks, `referee.explain`) and what to do, one step at a time.

    verdict_words(controller.view())   # {"kind": "illegal", "headline": ..., "why": [...], "steps": [...]}

Every location is named as the board labels it (`controller.numbering`): the words and the lights
name the same place whichever way the board lies; a play is written in the position format. Why a
board is illegal is only ever the verdict's own refusals worded, so the words cannot say more or
other than the verdict: a legal board, one in hand or a sensor fault has no rule broken to name.
"""
from __future__ import annotations

from typing import Any

from firmware_host.controller import machine as m
from firmware_host.controller.numbering import place_words, play_text
from firmware_host.controller.view import GameView
from firmware_host.referee import VerdictKind
from firmware_host.referee.explain import explain
from firmware_host.rules.plays import dice_text


def verdict_words(view: GameView) -> dict[str, Any] | None:
    """The words for the board as the controller sees it now; None outside a game's turn."""
    state, verdict = view.state, view.verdict
    guidance = [str(step) for step in view.guidance]
    if state == m.SETUP:
        return {"kind": "setup", "headline": f"Set up the board for {view.variant}", "why": [], "steps": guidance}
    if state == m.CORRECTING:
        return {"kind": "illegal", "headline": "Illegal board: put it back as the lights show",
                "why": _why(view), "steps": guidance}
    if state == m.REFEREE:
        return {"kind": "referee", "headline": "Referee mode: a press shows the next page, a long press leaves",
                "why": [], "steps": guidance}
    if state in _BETWEEN_TURNS:
        return {"kind": state.value, "headline": _BETWEEN_TURNS[state](view), "why": [], "steps": []}
    if not view.in_turn or verdict is None:
        return None
    return _turn_words(view)


def _turn_words(view: GameView) -> dict[str, Any]:
    """The words for a board judged in a turn."""
    verdict, labels, guidance = view.verdict, view.labels, [str(step) for step in view.guidance]
    mover, roll = view.turn, dice_text(view.dice or ())
    kind = verdict.kind
    words: dict[str, Any] = {"kind": kind.value, "why": [], "steps": []}
    if view.bot_steps and kind in (VerdictKind.UNCHANGED, VerdictKind.PARTIAL):
        words["headline"] = (f"The bot plays {mover}'s {roll}: {play_text(view.bot_play.moves)}; move its checkers "
                             "as the lights show")
        words["steps"] = [str(step) for step in view.bot_steps]
    elif kind is VerdictKind.UNCHANGED:
        words["headline"] = f"{mover} to play {roll}" + (": no legal move, press to pass" if view.no_legal_move else "")
    elif kind is VerdictKind.PARTIAL:
        words["headline"] = f"{mover} has played part of {roll}: {dice_text(verdict.remaining)} still to play"
    elif kind is VerdictKind.COMPLETE:
        words["headline"] = f"{mover} has played {roll}: a complete play, press the button to commit it"
    elif kind is VerdictKind.IN_HAND:
        lifted_from = f" from {labels.place(verdict.origin)}" if verdict.origin else ""
        where = sorted({labels.label(d) for targets in verdict.destinations.values() for d in targets}, key=_order)
        words["headline"] = f"A checker is in hand{lifted_from}" + \
            (f": it may go to {', '.join(place_words(d) for d in where)}" if where else ": it has nowhere legal to go")
    elif kind is VerdictKind.ILLEGAL:
        words["headline"] = f"Not a legal play of {roll}"
        words["why"] = _why(view)
        words["steps"] = guidance
    elif kind is VerdictKind.FAULT:
        words["headline"] = "The sensors cannot be trusted here"
        if verdict.fault is not None:
            words["why"] = [f"{labels.place(verdict.fault.location)}: {verdict.fault.reason}"]
    return words


def _game_result(view: GameView) -> str:
    last = view.match.games[-1]
    result = last.result
    won = "a tie" if result.winner is None else f"{result.winner} wins {result.points} ({result.reason})"
    return f"Game {view.game_number} of {last.variant} is over: {won}"


def _faults(view: GameView) -> str:
    faults = "; ".join(f"{fault.location or 'the board'}: {fault.reason}" for fault in view.sensor_faults)
    return f"Sensor fault ({faults}): no verdict until it clears; the game is kept"


# What the board waits for outside a turn, in words.
_BETWEEN_TURNS = {
    m.OPENING_ROLL: lambda view: "Opening roll: press the button; each side gets one die and the higher starts",
    m.AWAITING_ROLL: lambda view: f"{view.turn} to roll: press the button",
    m.BLOCKADE: lambda view: "Neither side can ever move again: a press ends the game drawn",
    m.GAME_OVER: _game_result,
    m.MATCH_OVER: lambda view: f"The match is over: {view.match.winner} wins; a press starts a new match",
    m.RESUMING: lambda view: "Resumed from the journal: waiting for the board to show the game",
    m.LINK_LOST: lambda view: "The sensor link is lost: the game is kept; check the sensor cable",
    m.SENSOR_FAULT: _faults,
    m.BUTTON_STUCK: lambda view: "The dice button is stuck down: release it; the game is kept",
}


def _order(location: str) -> tuple[bool, str]:
    return (not location.isdigit(), location.zfill(3))


def _why(view: GameView) -> list[str]:
    """The rules the verdict says the board breaks, each point named as the board labels it."""
    verdict, labels = view.verdict, view.labels
    if verdict is None or verdict.kind is not VerdictKind.ILLEGAL:
        return []
    return explain(verdict.refusals, label=lambda point: labels.label(str(point)))
