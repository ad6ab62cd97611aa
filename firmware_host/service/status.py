"""The one line `systemctl status tavli-board` shows: where the match stands, from the controller.

    status_line(controller)   # "match 3, game 2 of tavli (plakoto): white to move 6-5; white 1, black 0 (to 5)"

The match's number is the journal's (`journal.events.Event.match_id`), as `history`, `export` and the
web companion show it; a match is numbered once its first game begins.

Overlays (link lost, a sensor fault) say what is wrong first and then what they keep.
"""
from __future__ import annotations

from firmware_host.controller import Controller
from firmware_host.controller import machine as m
from firmware_host.rules.match import PRESETS
from firmware_host.rules.plays import dice_text
from firmware_host.rules.position import Color


def status_line(controller: Controller) -> str:
    state = controller.state
    if controller.storage_fault is not None:
        return f"storage fault ({controller.storage_fault.reason}), the game is held; {_game_line(controller, state)}"
    if state == m.LINK_LOST:
        return f"sensor link lost, waiting for the board; {_game_line(controller, controller.overlay_return)}"
    if state == m.SENSOR_FAULT:
        faults = "; ".join(f"{fault.location}: {fault.reason}" if fault.location else fault.reason
                           for fault in controller.sensor_faults.values())
        return f"sensor fault ({faults}); {_game_line(controller, controller.overlay_return)}"
    if state == m.BUTTON_STUCK:
        return f"dice button stuck down; {_game_line(controller, controller.overlay_return)}"
    return _game_line(controller, state)


def _game_line(controller: Controller, state: str) -> str:
    return ("" if controller.match_id is None else f"match {controller.match_id}, ") + _match_line(controller, state)


def _match_line(controller: Controller, state: str) -> str:
    match = controller.match
    score = match.score
    points = f"white {score[Color.WHITE]}, black {score[Color.BLACK]} (to {match.rules.target})"
    if state == m.MATCH_OVER:
        return f"match of {_match_name(match.rules.sequence)} over: {match.winner} wins; {points}"
    if state == m.GAME_OVER:
        last = match.games[-1]
        outcome = "a tie" if last.result.winner is None else f"{last.result.winner} wins {last.result.points}"
        return f"game {len(match.games)} of {_match_name(match.rules.sequence)} ({last.variant}) over: {outcome}; {points}"
    turn = controller.position.turn
    doing = {
        m.RESUMING: "resumed from the journal, waiting for the board to show it",
        m.SETUP: "setting up the board",
        m.OPENING_ROLL: "opening roll",
        m.AWAITING_ROLL: f"{turn} to roll",
        m.MOVING: f"{turn} to move" + ("" if controller.dice is None else f" {dice_text(controller.dice)}"),
        m.BLOCKADE: "blockade, neither side can ever move: a press ends the game drawn",
        m.CORRECTING: "illegal board, guiding it back",
        m.REFEREE: f"referee mode ({turn} to move)",
    }.get(state, f"in state {state}")   # a state added later still gives a line, never an error
    return (f"game {len(match.games) + 1} of {_match_name(match.rules.sequence)} ({controller.variant}): "
            f"{doing}; {points}")


def _match_name(sequence: tuple[str, ...]) -> str:
    """The preset's name ("tavli"), or the games in order."""
    for name, games in PRESETS.items():
        if games == sequence:
            return name
    return "+".join(sequence)
