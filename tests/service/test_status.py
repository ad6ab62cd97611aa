"""The STATUS= line systemd shows: where the match stands, in every state of the controller."""
import dataclasses

import pytest

from firmware_host.controller import Orientation
from firmware_host.controller import machine as m
from firmware_host.controller.view import GameView
from firmware_host.leds.scene import Scene
from firmware_host.rules import GameResult, Position, Rules
from firmware_host.rules.match import Match, MatchRules
from firmware_host.rules.position import Color
from firmware_host.sensing.events import FaultKind, SensorFault
from firmware_host.service.status import status_line

WHITE, BLACK = Color.WHITE, Color.BLACK


def match_after(*winners: Color, sequence="tavli", target=5) -> Match:
    match = Match.new(MatchRules(sequence=sequence, target=target))
    for winner in winners:
        match = match.record(GameResult(winner, 2, "gammon"), winner, winner)
    return match


def controller(state: str, match: Match, *, turn=WHITE, dice=None, overlay_return=m.SETUP, faults=(),
               storage_fault=None, match_id=None) -> GameView:
    """The controller's view in `state` (an overlay over `overlay_return`), as the status line reads it:
    a game that is over is the last one played, any other the next."""
    variant = match.next_variant
    returns_to = m.State(overlay_return) if state in m.OVERLAYS else None
    over = (returns_to or state) in (m.GAME_OVER, m.MATCH_OVER)
    return GameView(
        state=m.State(state), returns_to=returns_to, match_id=match_id, match=match, game_number=len(match.games) + (not over),
        variant=variant, rules=Rules.for_variant(variant), bots=frozenset(), position=Position.start(variant, turn),
        in_turn=dice is not None, dice=dice, opening_dice=None, no_legal_move=False, verdict=None, judging=False,
        orientation=Orientation.AS_WIRED, sensed=None, board=None, changing=False, settled=False, guidance=(),
        bot_play=None, bot_moves_made=0, scene=Scene(), referee_page=None, last_play=None,
        sensor_faults=tuple(faults), button_stuck=False, storage_fault=storage_fault, journal_damage=None)


@pytest.mark.parametrize("state, turn, dice, line", [
    (m.RESUMING, WHITE, (6, 5), "game 2 of tavli (plakoto): resumed from the journal, waiting for the board to show "
                                "it; white 2, black 0 (to 5)"),
    (m.SETUP, WHITE, None, "game 2 of tavli (plakoto): setting up the board; white 2, black 0 (to 5)"),
    (m.OPENING_ROLL, WHITE, None, "game 2 of tavli (plakoto): opening roll; white 2, black 0 (to 5)"),
    (m.AWAITING_ROLL, BLACK, None, "game 2 of tavli (plakoto): black to roll; white 2, black 0 (to 5)"),
    (m.MOVING, WHITE, (6, 5), "game 2 of tavli (plakoto): white to move 6-5; white 2, black 0 (to 5)"),
    (m.BLOCKADE, BLACK, None, "game 2 of tavli (plakoto): blockade, neither side can ever move: a press ends the "
                              "game drawn; white 2, black 0 (to 5)"),
    (m.CORRECTING, WHITE, (6, 5), "game 2 of tavli (plakoto): illegal board, guiding it back; white 2, black 0 (to 5)"),
    (m.REFEREE, BLACK, (1, 1), "game 2 of tavli (plakoto): referee mode (black to move); white 2, black 0 (to 5)"),
])
def test_a_game_under_way_says_which_game_of_which_match_who_is_to_do_what_and_the_score(state, turn, dice, line):
    assert status_line(controller(state, match_after(WHITE), turn=turn, dice=dice)) == line


def test_a_match_under_way_is_named_by_its_journal_number():
    assert status_line(controller(m.AWAITING_ROLL, match_after(WHITE), turn=BLACK, match_id=3)) == \
        "match 3, game 2 of tavli (plakoto): black to roll; white 2, black 0 (to 5)"


def test_between_games_and_at_the_end_of_the_match():
    assert status_line(controller(m.GAME_OVER, match_after(WHITE, BLACK))) == \
        "game 2 of tavli (plakoto) over: black wins 2; white 2, black 2 (to 5)"
    assert status_line(controller(m.MATCH_OVER, match_after(BLACK, BLACK, BLACK))) == \
        "match of tavli over: black wins; white 0, black 6 (to 5)"


def test_a_match_of_no_preset_is_named_by_its_games():
    assert status_line(controller(m.SETUP, match_after(sequence="fevga,portes", target=3))) == \
        "game 1 of fevga+portes (fevga): setting up the board; white 0, black 0 (to 3)"


def test_an_overlay_says_what_is_wrong_and_what_it_keeps():
    match = match_after(WHITE)
    assert status_line(controller(m.LINK_LOST, match, turn=BLACK, dice=(3, 2), overlay_return=m.MOVING)) == \
        "sensor link lost, waiting for the board; game 2 of tavli (plakoto): black to move 3-2; white 2, black 0 (to 5)"
    faults = [SensorFault("point:7", FaultKind.FLICKER, "7 changes within 1 s"),
              SensorFault("bar:white", FaultKind.UNREADABLE, "its sensor gives no reading")]
    assert status_line(controller(m.SENSOR_FAULT, match, overlay_return=m.OPENING_ROLL, faults=faults)) == \
        "sensor fault (point:7: 7 changes within 1 s; bar:white: its sensor gives no reading); game 2 of tavli " \
        "(plakoto): opening roll; white 2, black 0 (to 5)"
    assert status_line(controller(m.BUTTON_STUCK, match, overlay_return=m.AWAITING_ROLL)) == \
        "dice button stuck down; game 2 of tavli (plakoto): white to roll; white 2, black 0 (to 5)"


def test_a_storage_fault_says_the_game_is_held():
    held = "cannot write to the journal j: database or disk is full"
    assert status_line(controller(m.MOVING, match_after(WHITE), dice=(6, 5), storage_fault=held)) == \
        "storage fault (cannot write to the journal j: database or disk is full), the game is held; " \
        "game 2 of tavli (plakoto): white to move 6-5; white 2, black 0 (to 5)"


@pytest.mark.parametrize("state", m.STATES)
def test_every_state_of_the_controller_has_a_line_of_its_own(state):
    line = status_line(controller(state, match_after(WHITE), dice=(2, 1), overlay_return=m.MOVING))
    assert "in state" not in line and line.endswith("white 2, black 0 (to 5)"), line


def test_a_state_added_later_still_gives_a_line():
    assert status_line(dataclasses.replace(controller(m.SETUP, match_after()), state="pondering")) == \
        "game 1 of tavli (portes): in state pondering; white 0, black 0 (to 5)"
