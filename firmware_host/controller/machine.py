"""The controller's state machine, declared as data: states, triggers, conditions and callbacks.

The running controller builds a plain `transitions.Machine` from `STATES` and `TRANSITIONS`; the
state diagrams in docs/ (the game's, and the overlays' over it) are drawn by separate `GraphMachine`s
built from the same two tables (`DIAGRAMS`), so the running machine never pays for graph updates and
the pictures cannot drift from the code (a test compares the committed sources with `DIAGRAMS`).

Triggers are what happened, as the controller reads it from the events:
`board_stable`, `board_settled` (the sensed board), `press`, `hold` (the dice
button), `opening_decided` (an opening roll that was not a tie), `timeout` (the controller's own
timer), `link_lost`, `link_up`, `sensor_fault`, `sensor_faults_cleared`, `button_stuck`,
`button_freed`, `forfeit` (a remote match's opponent board is gone: controller/remote.py). Conditions and callbacks
are names of `Controller` methods. The controller fires a trigger only in the states that list it
(`TRIGGERS_BY_STATE`); elsewhere the event only updates what the controller knows of the board.
"""
from __future__ import annotations

import enum
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from transitions import Machine

class State(enum.StrEnum):
    """The controller's states. A str enum, so a state reads, prints and journals as its name. The
    running `transitions` machine is given the plain names (`_plain`): it names an Enum state's
    callbacks by the member's name, not its value."""

    RESUMING = "resuming"            # a journaled match restarts: its game goes on when the board shows it
    SETUP = "setup"                  # guide the board into the game's start; find how it lies
    OPENING_ROLL = "opening_roll"    # one press rolls one die for each side; ties roll again
    AWAITING_ROLL = "awaiting_roll"  # the starter presses for the game's first roll
    MOVING = "moving"                # the mover plays the roll; a press commits it and rolls for the other side
    BLOCKADE = "blockade"            # neither side can ever move again: a press ends the game drawn
    CORRECTING = "correcting"        # an illegal board, guided back one step at a time
    REFEREE = "referee"              # replay the last play, show the legal plays, restore before the last play
    GAME_OVER = "game_over"          # the score is shown, then the next game's setup
    MATCH_OVER = "match_over"        # the final score; a press starts a new match
    LINK_LOST = "link_lost"          # overlay: the sensor link is down; the game is kept
    SENSOR_FAULT = "sensor_fault"    # overlay: a sensor reads impossible values; the game is kept
    BUTTON_STUCK = "button_stuck"    # overlay: the dice button is held down far too long; the game is kept


(RESUMING, SETUP, OPENING_ROLL, AWAITING_ROLL, MOVING, BLOCKADE, CORRECTING, REFEREE, GAME_OVER, MATCH_OVER,
 LINK_LOST, SENSOR_FAULT, BUTTON_STUCK) = STATES = tuple(State)
# Overlays, the most serious first: a lost link hides a sensor fault, which hides a stuck button.
OVERLAYS = (LINK_LOST, SENSOR_FAULT, BUTTON_STUCK)
# The states an overlay returns to when its fault is over: every state but the overlays.
RESUMABLE = tuple(state for state in STATES if state not in OVERLAYS)
# The states that correcting returns to once the board is legal again.
CORRECTABLE = (OPENING_ROLL, AWAITING_ROLL, MOVING, BLOCKADE)
# The states a resumed game goes on in: the journal says which (`Controller.resume_target`).
RESUMED = CORRECTABLE
# The states a long press enters referee mode from (when there is something to show), and returns to.
REFEREE_FROM = (AWAITING_ROLL, MOVING, BLOCKADE, CORRECTING, GAME_OVER)
# The states a forfeit ends a remote match from: a game under way (journaled as begun).
FORFEIT_FROM = (OPENING_ROLL, AWAITING_ROLL, MOVING, BLOCKADE, CORRECTING, REFEREE)


def _plain(states: str | list[str] | None) -> str | list[str] | None:
    """States as the plain names the `transitions` machine is given."""
    if states is None:
        return None
    return str(states) if isinstance(states, str) else [str(state) for state in states]


def _t(trigger: str, source: str | list[str], dest: str | None, **options: Any) -> dict[str, Any]:
    return {"trigger": trigger, "source": _plain(source), "dest": _plain(dest), **options}


def _returns(trigger: str, source: str, targets: tuple[str, ...], **options: Any) -> list[dict[str, Any]]:
    """One transition back to each state the source may have been entered from."""
    conditions = options.pop("conditions", [])
    return [_t(trigger, source, target, conditions=[*conditions, f"resumes_{target}"], **options)
            for target in targets]


TRANSITIONS: list[dict[str, Any]] = [
    # -- resuming a journaled game: on at once, or guided back to the journaled board first ---------
    *_returns("board_stable", RESUMING, RESUMED, conditions=["board_continues_game"], before="resume_game"),
    _t("board_stable", RESUMING, CORRECTING, before=["resume_game", "guide_back_to_journal"]),
    _t("press", RESUMING, None, after="refuse_press"),
    # -- setting up a game --------------------------------------------------------------------
    _t("board_stable", SETUP, AWAITING_ROLL, conditions=["board_set_up", "starter_known"],
       before="begin_game"),
    _t("board_stable", SETUP, OPENING_ROLL, conditions="board_set_up", before="begin_game"),
    _t("press", SETUP, None, after="refuse_press"),
    # -- who starts -----------------------------------------------------------------------------
    _t("press", OPENING_ROLL, None, conditions=["board_ready_for_roll", "dice_ready"], after="roll_opening_dice"),
    _t("press", OPENING_ROLL, None, after="refuse_press"),
    _t("opening_decided", OPENING_ROLL, MOVING, conditions="starter_plays_opening_dice",
       before="play_opening_dice"),
    _t("opening_decided", OPENING_ROLL, AWAITING_ROLL),
    _t("board_settled", OPENING_ROLL, CORRECTING, unless="board_shows_position",
       before="remember_correction_return"),
    # -- the game's first roll ------------------------------------------------------------------
    _t("press", AWAITING_ROLL, MOVING, conditions=["board_ready_for_roll", "dice_ready"], before="roll_for_mover"),
    _t("press", AWAITING_ROLL, None, after="refuse_press"),
    _t("board_settled", AWAITING_ROLL, CORRECTING, unless="board_shows_position",
       before="remember_correction_return"),
    # -- a turn: the press is the commit ----------------------------------------------------------
    _t("press", MOVING, GAME_OVER, conditions=["board_shows_complete_play", "play_ends_game"],
       before="commit_play"),
    _t("press", MOVING, BLOCKADE, conditions=["board_shows_complete_play", "play_blocks_for_good"],
       before=["commit_play", "note_blockade"]),
    _t("press", MOVING, None, conditions=["board_shows_complete_play", "play_leaves_a_remainder"],
       after=["commit_play", "hand_over_remainder"]),
    _t("press", MOVING, None, conditions=["board_shows_complete_play", "dice_ready"],
       after=["commit_play", "roll_for_mover"]),
    _t("press", MOVING, None, after="refuse_press"),
    _t("board_settled", MOVING, CORRECTING, conditions="board_illegal", before="remember_correction_return"),
    # -- a permanent mutual blockade: shown, and ended as a draw by a press -------------------------
    _t("press", BLOCKADE, GAME_OVER, before="draw_blockade"),
    # -- an illegal board, guided back ------------------------------------------------------------
    *_returns("board_stable", CORRECTING, CORRECTABLE, conditions=["board_legal_again"]),
    _t("press", CORRECTING, None, after="refuse_press"),
    # -- referee mode ------------------------------------------------------------------------------
    _t("hold", list(REFEREE_FROM), REFEREE, conditions="referee_has_pages", before="enter_referee"),
    _t("press", REFEREE, None, after="next_referee_page"),
    _t("board_stable", REFEREE, MOVING, conditions="board_restored", before="restore_last_play"),
    *_returns("hold", REFEREE, REFEREE_FROM, before="leave_referee", after="update_correction"),
    # -- between games -------------------------------------------------------------------------------
    *[_t(trigger, GAME_OVER, MATCH_OVER, conditions="match_won") for trigger in ("timeout", "press")],
    *[_t(trigger, GAME_OVER, SETUP, before="prepare_next_game") for trigger in ("timeout", "press")],
    _t("press", MATCH_OVER, SETUP, before="start_new_match"),
    # -- a remote match's opponent board did not reveal its dice in time ----------------------------
    _t("forfeit", list(FORFEIT_FROM), MATCH_OVER, before="forfeit_match"),
    # -- overlays: the game is kept and resumed --------------------------------------------------------
    _t("link_lost", [*RESUMABLE, SENSOR_FAULT, BUTTON_STUCK], LINK_LOST, before="remember_overlay_return"),
    _t("sensor_fault", [*RESUMABLE, BUTTON_STUCK], SENSOR_FAULT, before="remember_overlay_return"),
    _t("button_stuck", list(RESUMABLE), BUTTON_STUCK, before="remember_overlay_return"),
    _t("link_up", LINK_LOST, SENSOR_FAULT, conditions="sensor_faults_active"),
    _t("link_up", LINK_LOST, BUTTON_STUCK, conditions="button_is_stuck"),
    *_returns("link_up", LINK_LOST, RESUMABLE),
    _t("sensor_faults_cleared", SENSOR_FAULT, BUTTON_STUCK, conditions="button_is_stuck"),
    *_returns("sensor_faults_cleared", SENSOR_FAULT, RESUMABLE),
    *_returns("button_freed", BUTTON_STUCK, RESUMABLE),
    *[_t("press", overlay, None, after="refuse_press") for overlay in OVERLAYS],
]



def _triggers_by_state() -> dict[str, frozenset[str]]:
    triggers: dict[str, set[str]] = {state: set() for state in STATES}
    for transition in TRANSITIONS:
        sources = transition["source"]
        for source in [sources] if isinstance(sources, str) else sources:
            triggers[source].add(transition["trigger"])
    return {state: frozenset(names) for state, names in triggers.items()}


TRIGGERS_BY_STATE = _triggers_by_state()


def build_machine(model: Any, initial: str = SETUP) -> Machine:
    """The running machine for `model` (a `Controller`), starting in `initial`. A trigger its state
    does not list raises: the controller checks `TRIGGERS_BY_STATE` first."""
    return Machine(model=model, states=_plain(list(STATES)), transitions=TRANSITIONS, initial=str(initial),
                   auto_transitions=False, queued=True)


# In the overlays' diagram: the whole game, any state an overlay interrupts and goes back to.
GAME = "game"


def _draw(states: list[str], transitions: list[dict[str, Any]], initial: str, title: str) -> str:
    """Graphviz DOT source of a `GraphMachine` of `states` and `transitions`.

    Needs the `graphviz` Python package (the `test` extra), not the `dot` program."""
    from transitions.extensions import GraphMachine

    # A bare stand-in model: drawing never runs a callback, so the controller is not needed.
    graph = GraphMachine(model=SimpleNamespace(), states=_plain(states), transitions=transitions, initial=str(initial),
                         auto_transitions=False, graph_engine="graphviz", title=title, show_conditions=True)
    # Top to bottom reads as the course of a game.
    graph.machine_attributes.update(rankdir="TB", nodesep="0.6", ranksep="0.9", fontsize="20")
    return graph.get_graph().source


def _in_game(state: str) -> bool:
    return state not in OVERLAYS


def _sources(transition: dict[str, Any]) -> list[str]:
    source = transition["source"]
    return [source] if isinstance(source, str) else list(source)


def _within_game(transition: dict[str, Any]) -> bool:
    """Whether a transition neither leaves nor enters an overlay."""
    dest = transition["dest"]
    return all(map(_in_game, _sources(transition))) and (dest is None or _in_game(dest))


def diagram_source() -> str:
    """The game's states and transitions as DOT source; the overlays, which may interrupt any of
    them, are drawn apart (`overlay_diagram_source`) rather than by an edge from every state."""
    game = [transition for transition in TRANSITIONS if _within_game(transition)]
    return _draw(list(RESUMABLE), game, SETUP, "tavli-board controller: the game (overlays apart)")


def overlay_diagram_source() -> str:
    """The overlays as DOT source, with the game as one state (`GAME`): what interrupts it, and how
    it comes back to the state it was in (the `resumes_<state>` transitions, one edge)."""
    drawn: list[dict[str, Any]] = []
    for transition in TRANSITIONS:
        if _within_game(transition):
            continue
        dest = transition["dest"]
        collapsed = dict(transition, source=list(dict.fromkeys(GAME if _in_game(s) else s for s in _sources(transition))),
                         dest=dest if dest is None or not _in_game(dest) else GAME,
                         conditions=[c for c in _listed(transition.get("conditions")) if not c.startswith("resumes_")])
        if collapsed not in drawn:
            drawn.append(collapsed)
    return _draw([GAME, *OVERLAYS], drawn, GAME, "tavli-board controller: the overlays over the game")


def _listed(names: str | list[str] | None) -> list[str]:
    return [] if names is None else [names] if isinstance(names, str) else list(names)


DIAGRAM_NAME = "state-diagram"
# The diagrams in docs/, by file name.
DIAGRAMS = {DIAGRAM_NAME: diagram_source, f"{DIAGRAM_NAME}-overlays": overlay_diagram_source}


def write_diagram(folder: Path) -> list[Path]:
    """Write each diagram's `.gv` source and, where Graphviz's `dot` program is installed, its `.svg`;
    returns the files written."""
    import graphviz

    written = []
    for name, source_of in DIAGRAMS.items():
        source = source_of()
        dot_file = folder / f"{name}.gv"
        dot_file.write_text(source)
        written.append(dot_file)
        try:
            svg = graphviz.Source(source).pipe(format="svg", encoding="utf-8")
        except graphviz.ExecutableNotFound:
            continue
        svg_file = folder / f"{name}.svg"
        svg_file.write_text(svg)
        written.append(svg_file)
    return written
