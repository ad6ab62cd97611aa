"""`tavli-board hil replay TRACE`: a recorded trace fed back through the whole application.

    result = replay(load_trace(path))
    print("\\n".join(result.lines))         # the verdicts and scenes, with their times
    result.moments                          # every event the loop handled, with what the controller showed

The application runs on a `VirtualRig` in virtual time, on one thread: the trace's MCU bytes reach
the host's link at their recorded times (the port opens and fails where it did), its button events
are posted at theirs, its dice are rolled in order, and the configuration is the one its header
holds. Readings are judged at once on the loop's thread (the service judges them on a thread of
its own; the verdicts are the same). So the same trace gives the same output, line for line.
"""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from firmware_host.config import HouseRules, load_config
from firmware_host.controller.controller import Judged
from firmware_host.controller.view import GameView
from firmware_host.service.trace import BUTTON_EVENTS, Record, Trace, TraceError
from firmware_host.hil.trace_rig import Cable, CableEnd, LoggedErrors, VirtualRig
from firmware_host.hw.dice import ScriptedDice
from firmware_host.journal import Journal
from firmware_host.leds.scene import Scene
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import dice_text
from firmware_host.rules.variants import RulesError
from firmware_host.sensing.channels import ChannelMap, ChannelMapError
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.events import BoardChanging, BoardSettled, BoardStable, FramesDropped
from firmware_host.sensing.link import Backoff

# After the last record the application is given this long to show what it made of it.
TAIL_S = 1.0


@dataclass(frozen=True)
class Shown:
    """What the controller knew after an event (its view) and what the LEDs showed."""

    view: GameView
    scene: Scene

    @classmethod
    def of(cls, view: GameView) -> Shown:
        # Without the opening roll's dice: a match taken up from the journal goes on without them
        # (the lights show them only during the opening roll), so a replay from a checkpoint cannot
        # know what the live run still held.
        return cls(dataclasses.replace(view, opening_dice=None), view.scene)

    def describe(self) -> str:
        view, scene = self.view, self.scene
        parts = [view.state]
        if view.verdict_kind:
            parts.append(f"verdict={view.verdict_kind}")
        if scene.dice:
            parts.append(f"dice={dice_text(scene.dice)}")
        if scene.dice_signal:
            parts.append(f"dice-signal={scene.dice_signal.value}")
        if scene.turn:
            parts.append(f"turn={scene.turn}")
        if scene.score:
            parts.append(f"score={scene.score.white}-{scene.score.black}/{scene.score.target}")
        if scene.marks:
            parts.append("leds: " + " ".join(f"{location}={mark.value}" for location, mark in sorted(
                scene.marks.items(), key=lambda item: _location_order(item[0]))))
        return "  ".join(parts)


def _location_order(location: str) -> tuple:
    return (0, int(location), "") if location.isdigit() else (1, 0, location)


@dataclass(frozen=True)
class Moment:
    t: float
    event: object            # what the loop handled (None: a timer)
    shown: Shown


@dataclass
class ReplayResult:
    lines: list[str] = field(default_factory=list)
    moments: list[Moment] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)      # what the application logged as errors


def config_for(trace: Trace):
    """The built-in configuration with the settings the trace was recorded under."""
    settings = trace.settings
    config = load_config(None)
    try:
        match = MatchRules(**{**settings["match"], "sequence": tuple(settings["match"]["sequence"])})
        channels = ChannelMap(tuple(settings["channels"]))
        sensors = dataclasses.replace(config.sensing.sensors, channels=channels, **settings["sensors"])
        serial = dataclasses.replace(config.sensing.serial, **settings["serial"])
        button = dataclasses.replace(config.pins.button, **settings["button"])
        house = HouseRules(settings["house_rules"].get("general", {}), settings["house_rules"].get("per_game", {}))
    except (TypeError, KeyError, RulesError, ChannelMapError) as error:
        raise TraceError(f"the trace's settings cannot be used: {error}") from None
    return dataclasses.replace(config, match_rules=match, house_rules=house,
                               sensing=dataclasses.replace(config.sensing, sensors=sensors, serial=serial),
                               pins=dataclasses.replace(config.pins, button=button))


class TraceEnd:
    """The far end of the rig's cable, playing the trace: its MCU bytes, port opens and failures,
    and button events, each at its recorded time."""

    def __init__(self, records: tuple[Record, ...]) -> None:
        self.records = records
        self.cable = Cable()
        self.cable.unplug()           # until the trace opens the port
        self._next = 0
        self._pressed: list[object] = []
        self.post = None              # the rig's queue, once it exists

    def step(self, now: float) -> None:
        records = self.records
        while self._next < len(records) and records[self._next].t <= now:
            record = records[self._next]
            self._next += 1
            if record.kind == "rx":
                self.cable.write(record.value)
            elif record.kind == "open":
                self.cable.unplug()   # a port opened again without a failure first: the old one is gone
                self.cable.replug()
            elif record.kind == "lost":
                self.cable.unplug()
            elif record.kind == "button":
                self._pressed.append(BUTTON_EVENTS[record.value](record.at))
            # "tx" is what the host said: the replayed host says it again; "die" is in the dice.

    def post_button_events(self, now: float) -> None:
        """After the link's step, as the loop polls the button after the link's events."""
        for event in self._pressed:
            self.post(event)
        self._pressed.clear()

    def as_cable_end(self) -> CableEnd:
        return CableEnd(self.step, self.cable.open_host, self.post_button_events)


def from_checkpoint(trace: Trace, folder: Path, step_s: float) -> tuple[tuple[Record, ...], ManualClock]:
    """The records to feed and the clock to start on. A trace that starts with a checkpoint gets a
    journal in `folder` holding its match, and at the checkpoint's time its port opens and the MCU's
    hello comes again, so the real session is up, as it was, when the recorded frames come."""
    checkpoint = trace.checkpoint
    if checkpoint is None:
        return trace.records, ManualClock()
    if checkpoint.journal:
        Journal.seeded(folder / "journal.sqlite3", checkpoint.journal).close()
    start = trace.records[0].t
    link = [Record(start, "open", checkpoint.port)] if checkpoint.port is not None else []
    if checkpoint.hello is not None:
        link.append(Record(start, "rx", checkpoint.hello))
    # The step that reaches the checkpoint's time (at 0: the recorded rig's first step, one step in).
    return (*link, *trace.records[1:]), ManualClock(max(0.0, start - step_s))


def replay(trace: Trace) -> ReplayResult:
    if not trace.header.get("complete", True) and trace.checkpoint is None:
        raise TraceError("the trace is incomplete: its first records were dropped from the ring and it does not "
                         "start with a checkpoint (recorded by an older service), so the application's state at its "
                         "start is unknown and it cannot be replayed")
    config = config_for(trace)
    result = ReplayResult()
    folder = Path(tempfile.mkdtemp(prefix="tavli-replay-"))
    records, clock = from_checkpoint(trace, folder, 1 / config.sensing.sensors.scan_hz)
    far_end = TraceEnd(records)
    last: list[Shown | None] = [None]

    def observe(view: GameView, event: object) -> None:
        shown = Shown.of(view)
        t = rig.now
        result.moments.append(Moment(t, event, shown))
        if event is not None and not isinstance(event, (BoardChanging, BoardStable, BoardSettled, Judged)):
            detail = f" ({event.reason})" if isinstance(event, FramesDropped) else ""
            result.lines.append(f"{t:9.3f}  > {type(event).__name__}{detail}")
        if shown != last[0]:
            result.lines.append(f"{t:9.3f}  {shown.describe()}")
            last[0] = shown

    rig = VirtualRig(config, ScriptedDice(trace.dice), far_end.as_cable_end(), folder, observers=[observe],
                     reopen=Backoff(0.0, 0.0), clock=clock, resume=True)
    far_end.post = rig.events.put
    try:
        with LoggedErrors(result.errors.append):
            end = (records[-1].t if records else 0.0) + TAIL_S
            while rig.now < end:
                rig.step()
    finally:
        rig.close()
        shutil.rmtree(folder, ignore_errors=True)
    result.lines += [f"  error: {error}" for error in result.errors]
    return result
