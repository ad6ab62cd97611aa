"""The one line `systemctl status tavli-board` shows: where the match stands, from the controller's view.

    status_line(controller.view())   # "match 3, game 2 of tavli (plakoto): white to move 6-5; white 1, black 0 (to 5)"

The match's number is the journal's (`journal.events.Event.match_id`), as `history`, `export` and the
web companion show it; a match is numbered once its first game begins.

Overlays (link lost, a sensor fault) say what is wrong first and then what they keep.
"""
from __future__ import annotations

from firmware_host.controller import machine as m
from firmware_host.controller.view import GameView
from firmware_host.rules.match import PRESETS
from firmware_host.rules.plays import dice_text
from firmware_host.rules.position import Color


def status_line(view: GameView) -> str:
    state, game = view.state, _game_line(view, view.game_state)
    if view.storage_fault is not None:
        return f"storage fault ({view.storage_fault}), the game is held; {game}"
    if state == m.LINK_LOST:
        return f"sensor link lost, waiting for the board; {game}"
    if state == m.SENSOR_FAULT:
        faults = "; ".join(f"{fault.location}: {fault.reason}" if fault.location else fault.reason
                           for fault in view.sensor_faults)
        return f"sensor fault ({faults}); {game}"
    if state == m.BUTTON_STUCK:
        return f"dice button stuck down; {game}"
    return game


def _game_line(view: GameView, state: str) -> str:
    return ("" if view.match_id is None else f"match {view.match_id}, ") + _match_line(view, state)


def _match_line(view: GameView, state: str) -> str:
    match = view.match
    score = match.score
    points = f"white {score[Color.WHITE]}, black {score[Color.BLACK]} (to {match.rules.target})"
    if state == m.MATCH_OVER:
        return f"match of {_match_name(match.rules.sequence)} over: {match.winner} wins; {points}"
    if state == m.GAME_OVER:
        last = match.games[-1]
        outcome = "a tie" if last.result.winner is None else f"{last.result.winner} wins {last.result.points}"
        return f"game {view.game_number} of {_match_name(match.rules.sequence)} ({last.variant}) over: {outcome}; {points}"
    turn = view.turn
    doing = {
        m.RESUMING: "resumed from the journal, waiting for the board to show it",
        m.SETUP: "setting up the board",
        m.OPENING_ROLL: "opening roll",
        m.AWAITING_ROLL: f"{turn} to roll",
        m.MOVING: f"{turn} to move" + ("" if view.dice is None else f" {dice_text(view.dice)}"),
        m.BLOCKADE: "blockade, neither side can ever move: a press ends the game drawn",
        m.CORRECTING: "illegal board, guiding it back",
        m.REFEREE: f"referee mode ({turn} to move)",
    }.get(state, f"in state {state}")   # a state added later still gives a line, never an error
    return (f"game {view.game_number} of {_match_name(match.rules.sequence)} ({view.variant}): "
            f"{doing}; {points}")


def _match_name(sequence: tuple[str, ...]) -> str:
    """The preset's name ("tavli"), or the games in order."""
    for name, games in PRESETS.items():
        if games == sequence:
            return name
    return "+".join(sequence)
