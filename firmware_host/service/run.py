"""`tavli-board run`: the systemd service. Configuration, logging, journal, hardware, the event loop.

    config = load_config(path)                  # a bad one stops here: nothing is opened
    service = Service.open(config)              # journal, hardware (simulated by default), the loop,
                                                # the journal's unfinished match taken up
    service.run()                               # until service.stop() (SIGTERM, SIGINT)

systemd hears READY=1 once the sensor link is up or the link-lost state is entered (either way the
board is being refereed or shows why not), STATUS= with `status_line` whenever it changes,
WATCHDOG=1 from the loop's own thread at half of WatchdogSec (a hung loop stops pinging and is
restarted), and STOPPING=1 at the end, after which the hardware is closed and the LEDs are dark.

The loop is turned here, not by `EventLoop.run`, because the watchdog must be pinged on every turn:
each turn waits at most one frame interval or until the next ping is due.

A journal that cannot be opened because of its place (a full, read-only or failing disk) is a
storage fault, as it is during a game: `run_service` holds before anything else is opened, with the
storage light on the LEDs, READY and a STATUS line saying why (so systemd does not restart it in a
loop), the watchdog pinged, and the opening tried again every few seconds; the match is taken up
once the journal opens.
"""
from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from firmware_host.app import FRAME_INTERVAL_S, EventLoop
from firmware_host.config import Config, ConfigError
from firmware_host.controller import Timings
from firmware_host.controller.view import GameView
from firmware_host.controller import machine as m
from firmware_host.controller.controller import STORAGE_RETRY_S
from firmware_host.service.trace import TraceRecorder
from firmware_host.hw.dice import DiceSource, SecretsDice
from firmware_host.journal import Journal, JournalError, JournalWriteError, ResumeState
from firmware_host.leds.render import Renderer
from firmware_host.leds.scene import DiceSignal, Scene
from firmware_host.leds.strips import CapturingStrip, LedStripError, Strip, open_strip
from firmware_host.rules.plays import dice_text
from firmware_host.rules.position import Color
from firmware_host.sensing.events import LinkUp
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.allocator import glibc, one_arena
from firmware_host.service.assembly import assemble
from firmware_host.service.companion import Companion, open_companion
from firmware_host.service.hardware import Hardware
from firmware_host.service.notify import SystemdNotifier
from firmware_host.service.status import status_line
from firmware_host.sim.board import SimBoard

log = logging.getLogger(__name__)


@dataclass
class Service:
    config: Config
    journal: Journal
    hardware: Hardware
    loop: EventLoop
    notifier: SystemdNotifier
    resumed: ResumeState | None = None      # the unfinished match the journal held at the start
    trace: TraceRecorder | None = None      # the HIL trace ring (docs/hil.md)
    companion: Companion | None = None      # the web companion's socket (docs/companion-protocol.md)
    club: Any = None                        # the club's publisher (service/club.py) when [club] names a broker
    remote_seat: Any = None                 # a remote match's other board (service/remote_seat.py), [club] opponent
    ready: bool = field(default=False, init=False)
    status: str | None = field(default=None, init=False)   # the last STATUS= told to systemd

    @classmethod
    def open(cls, config: Config, notifier: SystemdNotifier | None = None, *, dice: DiceSource | None = None,
             timings: Timings = Timings(), board: BoardReading | SimBoard | None = None,
             journal: Journal | None = None) -> Service:
        """Open the journal (unless `journal` is the one already opened), the hardware and the loop;
        the journal's unfinished match is continued.

        `dice`, `timings` and `board` (the simulated board, or its layout at the start) are for tests
        that run this same service with scripted players: the service itself rolls fair dice."""
        journal = journal or Journal.open(config.journal_path)
        resumed = journal.resume()
        if resumed is not None:
            log.info("resuming %s", _resumed_text(resumed))
        events: queue.Queue = queue.Queue()
        remote_seat = None
        if config.club.opponent is not None:
            from firmware_host.service.club import ClubUnavailable   # the club extra, for a remote match only
            from firmware_host.service.remote_seat import RemoteSeat
            try:
                remote_seat = RemoteSeat(config.club, config.journal_path, post=events.put)
            except ClubUnavailable as error:   # no remote match without the broker: as a bad configuration
                raise ConfigError([f"the remote match cannot be played: {error}"]) from None
            dice = remote_seat.dice   # the dice both boards agree
        # The trace ring (link bytes, button, dice) behind everything, saved on SIGUSR1 (docs/hil.md, "Traces").
        trace = TraceRecorder.for_config(config, resumed=resumed is not None)
        trace.follow(journal)    # checkpoints: a trace the ring cut still replays from one
        dice = trace.dice(dice or SecretsDice())
        hardware = Hardware.open(config, post=trace.posting(events.put), board=board, trace=trace)
        for part, why in hardware.errors.items():
            log.error("%s: not available: %s", part, why)
        loop = assemble(config, hardware, journal, events, dice=dice, timings=timings, resumed=resumed).loop
        service = cls(config, journal, hardware, loop, notifier or SystemdNotifier(), resumed, trace)
        loop.observers.append(service._observe)
        if remote_seat is not None:
            service.remote_seat = remote_seat
            loop.observers.append(remote_seat.observe)
        service.companion = open_companion(config, loop, restart=service.stop, self_test=hardware.sensor.run_self_test)
        if config.club.broker is not None:
            from firmware_host.service.club import ClubPublisher, ClubUnavailable   # loaded for a board in a club only
            try:
                service.club = ClubPublisher(config.club, config.journal_path, post=events.put)
                loop.observers.append(service.club.observe)
            except ClubUnavailable as error:   # the board referees all the same
                log.error("club: not publishing: %s", error)
        if config.report_leds:
            from firmware_host.service.led_report import LedStatusReporter   # for a HIL rig only: not loaded otherwise
            loop.observers.append(LedStatusReporter(hardware.sensor, loop.renderer).observe)
            log.info("reporting the LED status over the sensor link for a HIL rig ([hil] report_leds)")
        return service

    def stop(self) -> None:
        """End `run` (from any thread, or a signal handler)."""
        self.loop.stop()

    def run(self) -> None:
        """Referee until stopped; then tell systemd, close the hardware (LEDs dark) and the journal."""
        self._note("started", hardware=self.config.hardware,
                   resumed=None if self.resumed is None else _resumed_json(self.resumed))
        self.hardware.start()
        if self.club is not None:
            self.club.start()
        if self.remote_seat is not None:
            self.remote_seat.start()
        try:
            self.loop.turn()                      # the first frame, at once
            while not self.loop.stopped:
                ping_in = self.notifier.seconds_to_next_ping()
                wait = FRAME_INTERVAL_S if ping_in is None else min(FRAME_INTERVAL_S, ping_in)
                self.loop.turn(timeout=max(wait, 1e-4))   # 0 would mean "do not wait"
                self.notifier.ping_if_due()
        finally:
            self.notifier.stopping()
            if self.loop.judge_worker is not None:
                self.loop.judge_worker.close()
            if self.companion is not None:
                self.companion.close()
            if self.club is not None:
                self.club.close()
            if self.remote_seat is not None:
                self.remote_seat.close()
            self.hardware.close()
            self.loop.controller.close_fault_episodes()   # a fault gone at the stop is journaled as gone
            self._note("stopped")
            self.journal.close()
            self.notifier.close()

    def _note(self, what: str, **details) -> None:
        """A service record; one the journal cannot take now is only logged (the game's own records
        hold the game: a storage fault), it never ends the service."""
        try:
            self.journal.record_service(what, **details)
        except JournalWriteError as error:
            log.error("the journal did not take the record that the service %s: %s", what, error)

    def _observe(self, view: GameView, event: object) -> None:
        """READY once the link is up or lost (a silent MCU is lost too); then STATUS= on every change."""
        try:
            status = status_line(view)
        except Exception:   # observers run unguarded on the loop's thread: a status line must not end it
            log.exception("the status line of state %s failed", view.state)
            status = f"in state {view.state}"
        if not self.ready:
            if isinstance(event, LinkUp) or view.state == m.LINK_LOST:
                self.ready, self.status = True, status
                self.notifier.ready(status)
                log.info("ready: %s", status)
        elif status != self.status:
            self.status = status
            self.notifier.status(status)
            log.info("status: %s", status)


def _resumed_json(state: ResumeState) -> dict:
    """What was taken up: the match, its score, and where its game under way stood."""
    resumed = {"match": state.match_id, "score": {color.value: points for color, points in state.match.score.items()}}
    game = state.game
    if game is not None:
        resumed["game"] = {"number": game.number, "variant": game.variant, "side_to_move": game.side_to_move.value,
                           "pending_roll": None if game.pending_roll is None else list(game.pending_roll),
                           "last_play": None if game.last_play is None else game.last_play.seq}
    return resumed


def _resumed_text(state: ResumeState) -> str:
    score = state.match.score
    text = f"match {state.match_id} (white {score[Color.WHITE]}, black {score[Color.BLACK]})"
    game = state.game
    if game is None:
        return f"{text} between games: the next is {state.match.next_variant}"
    if game.pending_roll is not None:
        doing = f"{game.side_to_move} to play {dice_text(game.pending_roll)}"
    elif game.starter is None and game.first_mover is None:
        doing = "the opening roll due"
    else:
        doing = f"{game.side_to_move} to roll"
    return f"{text}, game {game.number} of {game.variant}, {doing}"


STORAGE_FAULT_SCENE = Scene(dice_signal=DiceSignal.STORAGE_FAULT)


def open_journal_when_possible(config: Config, notifier: SystemdNotifier, stop: threading.Event, *,
                               strip: Strip | None = None, retry_s: float = STORAGE_RETRY_S,
                               clock: Callable[[], float] = time.monotonic) -> Journal | None:
    """The configuration's journal, opened. While its place cannot be written the service holds:
    the storage light (on `strip`, default the configuration's), READY with a STATUS saying why, the
    watchdog pinged, the opening tried again every `retry_s`. None if `stop` is set first."""
    try:
        return Journal.open(config.journal_path)
    except JournalError as error:
        reason = str(error)
    log.error("storage fault: %s; nothing is refereed until the journal opens (tried every %g s)", reason, retry_s)
    notifier.ready(_waiting_status(reason))
    if strip is None:
        strip = _strip_for_the_light(config)
    renderer = Renderer.from_config(config.leds)
    held_since = last_try = clock()
    try:
        while not stop.is_set():
            if strip is not None:
                strip.show(renderer.render(STORAGE_FAULT_SCENE, clock()))
            waits = [FRAME_INTERVAL_S, max(0.0, last_try + retry_s - clock()), notifier.seconds_to_next_ping()]
            stop.wait(max(min(wait for wait in waits if wait is not None), 1e-4))
            notifier.ping_if_due()
            if clock() < last_try + retry_s:
                continue
            last_try = clock()
            try:
                journal = Journal.open(config.journal_path)
            except JournalError as error:
                if str(error) != reason:
                    reason = str(error)
                    log.error("storage fault: %s", reason)
                    notifier.status(_waiting_status(reason))
                continue
            log.info("the journal opens after %.1f s held: the service starts", clock() - held_since)
            return journal
        return None
    finally:
        if strip is not None:
            strip.close()


def _waiting_status(reason: str) -> str:
    return f"storage fault ({reason}), nothing is refereed until the journal opens"


def _strip_for_the_light(config: Config) -> Strip | None:
    if config.simulated:
        return CapturingStrip(config.leds.layout)
    try:
        return open_strip(config.leds)
    except LedStripError as error:
        log.error("leds: not available: %s", error)
        return None


def run_service(config: Config) -> int:
    """Open everything and referee until SIGTERM or SIGINT; 0 after a clean stop."""
    one_arena(glibc())   # before the service's threads start: every one of them allocates from it
    notifier, stopping = SystemdNotifier(), threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda signum, frame: stopping.set())
    journal = open_journal_when_possible(config, notifier, stopping)
    if journal is None:
        notifier.stopping()
        return 0
    service = Service.open(config, notifier, journal=journal)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda signum, frame: service.stop())
    if stopping.is_set():
        service.stop()
    signal.signal(signal.SIGUSR1, lambda signum, frame: service.trace.save_soon(config.logging.raw_frames_dir))
    service.run()
    return 0
