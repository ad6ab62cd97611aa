"""`tavli-board hil to-scenario TRACE`: a recorded trace as a scenario (docs/hil.md), so that what
happened in a cafe becomes a regression test.

The trace is replayed first (`replay.replay`); the scenario then repeats what the replay's
application was told, as the scenario's actions:

- every change of the board becomes the hands that make it (`Hands`): a checker gone from one
  location and come to another in the same reading is `slide FROM TO COLOUR`, one only gone is
  `lift LOC COLOUR`, one only come is `place LOC COLOUR`, and one that came with none in the hand
  is a sensor's doing: `stick LOC W B` while it reads so, `unstick LOC` when it reads true again;
- a press is `press`, a hold `hold`;
- the link: lost is `unplug MS` (until it came back), silent is `hang MS`, an MCU restart on its
  own is `reset-mcu`, dropped frames are `corrupt-frame`.

Each step ends with `wait MS` until the moment the next input came in the trace, and expects what
the replay showed at that moment: the state, the verdict, the dice, the score and the LEDs of the
board's locations. A value that changed in the last `STEADY_S` before that moment is left out:
the rig's ticks are not the trace's, and a value caught while it changes would make a flaky test.
Steps do not settle (`settle = false`), so that the timing is the trace's.
"""
from __future__ import annotations

from typing import Any

import tomli_w

from firmware_host.controller import machine as m
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.hil.replay import Moment, ReplayResult, Shown
from firmware_host.service.trace import Trace, TraceError
from firmware_host.rules import CHECKERS, Position
from firmware_host.sensing.events import BoardChanging, FramesDropped, LinkLost, LinkSilent, LinkUp, McuReset
from firmware_host.sensing.reading import COLOURS, POINTS, BoardReading

STEADY_S = 0.25          # an expected value must have held this long before it is checked ...
SENSE_DELAY_S = 0.1      # ... and for the time the rig's sensors (or a press) take to tell the host
ACTION_SPACING_S = 0.1   # the runner's time between two actions of a step
MERGE_S = 0.15           # readings this close together are one step
BUTTON_ACTIONS = {"DicePressed": "press", "DiceHeld": "hold"}
LINK_EVENTS = (LinkLost, LinkSilent, LinkUp, McuReset)
LINK_SETTLE_S = 1.5      # the board is read afresh within this after the link comes back
REPLUG_EARLY_S = 0.1     # the cable goes back in this long before the trace's port opened again
BUTTON_REST_MS = 100     # at least this long off the button (and the link) before the next action


def _counts(reading: BoardReading) -> dict[tuple[str, str], int]:
    """(location, colour) -> checkers, for the points, bars and trays."""
    counts = {}
    for colour in COLOURS:
        side = reading.side(colour)
        counts.update({(str(n), colour): side.point(n) for n in range(1, POINTS + 1)})
        counts[("bar", colour)], counts[("off", colour)] = side.bar, side.off
    return counts


class Hands:
    """The board as hands left it, and what is in the hand: turns each reading into the actions
    that make the sensors read it. A checker that comes with none in the hand to put there is not
    a hand's doing but a sensor's: its location is stuck at what it read (`stick LOC W B`) until
    it reads the hands' board again (`unstick LOC`)."""

    def __init__(self, board: BoardReading) -> None:
        self.board = _counts(board)
        self.hand = dict.fromkeys(COLOURS, 0)
        self.stuck: dict[str, tuple[int, int]] = {}   # location -> (white, black) it reads

    def actions(self, reading: BoardReading) -> list[str]:
        sensed = _counts(reading)
        actions, lifts, places = [], [], []
        for colour in COLOURS:
            moved = [(location, sensed[(location, c)] - self.board[(location, c)])
                     for (location, c) in self.board if c == colour and location not in self.stuck]
            gone = [location for location, change in moved for _ in range(-change)]
            come = [location for location, change in moved for _ in range(change)]
            for origin, destination in zip(gone, come):
                actions.append(f"slide {origin} {destination} {colour}")
                self._move(origin, destination, colour)
            for location in gone[len(come):]:
                lifts.append(f"lift {location} {colour}")
                self._move(location, None, colour)
            for location in come[len(gone):]:
                if self.hand[colour] > 0 or not location.isdigit():   # (only points' sensors are stuck)
                    places.append(f"place {location} {colour}")
                    self._move(None, location, colour)
                else:
                    self.stuck[location] = (-1, -1)   # set below to what it reads
        for location, was in list(self.stuck.items()):
            reads = (sensed[(location, "white")], sensed[(location, "black")])
            if reads == (self.board[(location, "white")], self.board[(location, "black")]):
                places.append(f"unstick {location}")
                del self.stuck[location]
            elif reads != was:
                places.append(f"stick {location} {reads[0]} {reads[1]}")
                self.stuck[location] = reads
        return actions + lifts + places

    def _move(self, origin: str | None, destination: str | None, colour: str) -> None:
        if origin is None:
            self.hand[colour] -= 1
        else:
            self.board[(origin, colour)] -= 1
        if destination is None:
            self.hand[colour] += 1
        else:
            self.board[(destination, colour)] += 1


def _in_hand(reading: BoardReading) -> bool:
    return any(reading.side(colour).total < CHECKERS for colour in COLOURS)


def _orientation(moments: list[Moment]) -> Orientation:
    """How the board lay: as the controller found it when the first game began."""
    for moment in moments:
        if moment.shown.view.state not in (m.SETUP, m.RESUMING, *m.OVERLAYS):
            return moment.shown.view.orientation
    return Orientation.AS_WIRED


def _inputs(moments: list[Moment], trace: Trace) -> list[tuple[float, list[str] | BoardReading]]:
    """(time, what) for everything the application was told, in time order: a board reading (the
    hands that made it are found per step), or the button's and the link's actions."""
    inputs: list[tuple[float, list[str] | BoardReading]] = []
    opens = [record.t for record in trace.records if record.kind == "open"]
    for index, moment in enumerate(moments):
        event, name = moment.event, type(moment.event).__name__
        back = next((later.t for later in moments[index + 1:] if isinstance(later.event, LinkUp)), moments[-1].t)
        if isinstance(event, BoardChanging):
            inputs.append((moment.t, event.reading))
        elif name in BUTTON_ACTIONS:
            inputs.append((moment.t, [BUTTON_ACTIONS[name]]))
        elif isinstance(event, LinkLost):
            inputs.append((moment.t, ["unplug"]))
            # Plugged back a little before the port opened again (the link tries at its backoff's times).
            reopened = next((t for t in opens if t > moment.t), None)
            if reopened is not None:
                inputs.append((max(moment.t, reopened - REPLUG_EARLY_S), ["replug"]))
        elif isinstance(event, LinkSilent):
            # From when the link noticed to the next hello. (The MCU went quiet a silence timeout
            # earlier, but `hang` holds the scenario's other actions until it ends: what the hands
            # did meanwhile in the trace, before the silence showed, must come first.)
            inputs.append((moment.t, [f"hang {max(1, round((back - moment.t) * 1000))}"]))
        elif isinstance(event, McuReset) and not any(
                isinstance(other.event, LinkUp) and other.t == moment.t for other in moments[max(0, index - 3):index]):
            inputs.append((moment.t, ["reset-mcu"]))   # on its own (after a reconnection it is the replug's)
        elif isinstance(event, FramesDropped):
            inputs.append((moment.t, ["corrupt-frame"]))
    return sorted(inputs, key=lambda item: item[0])


def _shown_at(moments: list[Moment], t: float) -> Shown | None:
    """What the application showed just before time `t`."""
    shown = None
    for moment in moments:
        if moment.t >= t:
            break
        shown = moment.shown
    return shown


def _fields(shown: Shown) -> dict[str, Any]:
    view = shown.view
    return {
        "state": view.state,
        "verdict": view.verdict_kind or "none",
        "dice": list(view.dice) if view.dice else "none",
        "score": list(view.score),
        "leds": {location: mark.value for location, mark in sorted(shown.scene.marks.items())},
    }


def _expectations(moments: list[Moment], since: float, t: float) -> dict[str, Any]:
    """What showed just before `t` and had not changed for STEADY_S before the rig's host can
    have seen the last action (SENSE_DELAY_S: the trace's times are when its host saw each
    input, the rig's actions happen that much earlier); nothing while the link was
    down, or when it went or came back since `since` or in the last LINK_SETTLE_S (when a link
    reconnects, and so when the board is read again, is the rig's own timing)."""
    now, before = _shown_at(moments, t), _shown_at(moments, t - SENSE_DELAY_S - STEADY_S)
    if now is None or before is None or m.LINK_LOST in (now.view.state, before.view.state) or any(
            min(since, t - LINK_SETTLE_S) <= moment.t < t and isinstance(moment.event, LINK_EVENTS)
            for moment in moments):
        return {}
    steady, earlier = _fields(now), _fields(before)
    return {key: value for key, value in steady.items() if earlier[key] == value and value != {}}


def scenario_document(trace: Trace, result: ReplayResult, title: str) -> dict[str, Any]:
    """The scenario as a TOML document: the trace's settings, then one step per input of the trace."""
    checkpoint = trace.checkpoint
    if checkpoint is not None and checkpoint.journal:
        # A scenario starts a new match on the opening layout; it has no way to give a journal to resume.
        raise TraceError("the trace starts in a match under way (from a checkpoint of its journal: the ring "
                         "dropped its start, or the service resumed the match), which a scenario cannot express: "
                         "it starts a new match; `tavli-board hil replay` replays it")
    orientation = _orientation(result.moments)
    document = _settings_document(trace, title, orientation)
    start = laid_out(Position.start(document["match"]["sequence"][0]), orientation)
    document["step"] = _steps(trace, result.moments, Hands(start))
    return document


def _settings_document(trace: Trace, title: str, orientation: Orientation) -> dict[str, Any]:
    """The scenario's tables before its steps: the match, the timings, the dice and the board."""
    settings = trace.settings
    house = dict(settings["house_rules"].get("general", {}))
    house.update({game: dict(options) for game, options in settings["house_rules"].get("per_game", {}).items()})
    document: dict[str, Any] = {
        "title": title,
        "description": f"Converted by `tavli-board hil to-scenario` from a trace recorded {trace.header.get('started')}"
                       ": each step repeats what the trace's board, button and link did, and expects what "
                       "the application showed then.",
        "match": dict(settings["match"]),
        "sensors": {"quiet_ms": settings["sensors"]["quiet_ms"], "grace_ms": settings["sensors"]["grace_ms"]},
        "button": {"hold_ms": round(settings["button"]["hold_s"] * 1000)},
        "dice": {"values": trace.dice},
        "board": {"orientation": orientation.value},
    }
    if house:
        document["house_rules"] = house
    return document


def _steps(trace: Trace, moments: list[Moment], hands: Hands) -> list[dict[str, Any]]:
    """One step per input of the trace (readings close together merged), each waiting until the next
    input and expecting what the application showed in between."""
    end = moments[-1].t if moments else 0.0
    inputs = _inputs(moments, trace)
    steps: list[dict[str, Any]] = []
    index = 0
    while index < len(inputs):
        t_last, what = inputs[index]
        t_first = t_last
        index += 1
        if isinstance(what, BoardReading):
            # Readings close together are one step, made by the hands that lead from the first to the
            # last; but a checker in hand ends a step (the lights answer a lift at once, and go on
            # showing where it may go until the board is still).
            while index < len(inputs) and isinstance(inputs[index][1], BoardReading) \
                    and inputs[index][0] - t_last < MERGE_S and not _in_hand(what):
                t_last, what = inputs[index]
                index += 1
            do = hands.actions(what)
            if not do:
                continue   # read afresh after a fault: nothing moved
        else:
            do = list(what)
        t_next = inputs[index][0] if index < len(inputs) else end
        wait_ms = round((t_next - t_last - ACTION_SPACING_S) * 1000)
        if not isinstance(what, BoardReading):
            wait_ms = max(wait_ms, BUTTON_REST_MS)   # two presses closer than the debounce would be one
        if wait_ms > 0:
            do.append(f"wait {wait_ms}")
        step: dict[str, Any] = {"do": do, "settle": False}
        # Checked only when the trace's next input came late enough for the rig's host to have seen
        # this step's last one.
        expect = _expectations(moments, t_first, t_next if index < len(inputs) else end + 1e-9) \
            if t_next - t_last >= 2 * SENSE_DELAY_S else {}
        if expect:
            step["expect"] = expect
        steps.append(step)
    return steps


def scenario_text(trace: Trace, result: ReplayResult, title: str) -> str:
    return tomli_w.dumps(scenario_document(trace, result, title))
