"""`tavli-board demo`: the whole referee on the simulated board, with two scripted players.

Everything below the players is the real thing: the simulated MCU (the real firmware logic) scans a
`SimBoard` and talks the real protocol over a pseudo-terminal to the real sensor link; the dice
button is gpiozero on mock pins; the event loop, the controller, the journal (in a temporary
folder) and the LED renderer run as in the service. The players only do what people do: look at the
lights (here: the controller's guidance, which the lights show), lift, slide and place checkers,
and press or hold the button. Along the way they try to roll too early once, make an illegal move
once and follow the guidance back, and use the referee's replay once.

Deterministic for a seed: the dice and the players' choices come from it, and the players wait for
the controller to have seen each board before acting on it, so the thread timing changes nothing.
`--speed` shortens the quiet and grace times of the sensors, the button's hold time and the
controller's signals; the MCU scans at its real rate.
"""
from __future__ import annotations

import dataclasses
import queue
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import tomli_w

from firmware_host.config import ClubSettings, Config, hash_pin, load_config
from firmware_host.controller import machine as m
from firmware_host.controller.controller import Timings
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.controller.view import GameView
from firmware_host.demo.players import DemoStuck, Players, Table
from firmware_host.hw.dice import SeededDice
from firmware_host.journal import Journal
from firmware_host.leds.layout import LedLayout
from firmware_host.leds.render import Renderer
from firmware_host.leds.legend import MEANINGS, legend_lines
from firmware_host.leds.palette import PALETTES, SCORE_TO_PLAY, SCORE_WON
from firmware_host.leds.scene import LOCATIONS
from firmware_host.leds.terminal import render_board, wants_colour
from firmware_host.rules import Color, Position
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.config import SCAN_HZ_RANGE
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.addresses import lan_urls, qr_text
from firmware_host.service.assembly import assemble
from firmware_host.service.companion import open_companion
from firmware_host.service.hardware import Hardware
from firmware_host.service.trace import TraceRecorder
from firmware_host.service.verdict_words import verdict_words
from firmware_host.sim.board import SimBoard
from firmware_host.sim.console import ConsoleError, run_command

# The sensing config's bounds for the flicker window (ms).
FLICKER_WINDOW_RANGE = (100, 60_000)
PRESS_S = 0.03   # how long a finger keeps the button down for a press, and off it before the next
# `--speed` shortens the hold time no further than this: on a busy machine the hand's thread can wake
# late from a press's PRESS_S, and a late release must not make the press a hold (referee mode).
SHORTEST_HOLD_S = 0.4

DEMO_PIN = "1234"   # the settings PIN of a demo on this machine only, printed at its start


@dataclass
class Settings:
    match: MatchRules
    seed: int = 1
    speed: float = 8.0
    out: TextIO = field(default_factory=lambda: sys.stdout)   # where the demo writes, read when it starts
    boards: str = "moments"      # "moments": at setup, stunts and game ends; "every-turn"; "none"
    web_port: int | None = None  # serve the web companion at this port (None: not at all)
    web_host: str = "127.0.0.1"  # ... on this address: loopback (this machine only), or 0.0.0.0 (the local network)
    pin: str = DEMO_PIN          # the settings PIN of the demo's companion (a real board's is set with `web-pin`)
    journal: Path | None = None  # where the match is journaled (None: in the demo's temporary folder)
    bots: frozenset[Color] = frozenset()   # the seats the bot plays (the players move its checkers)
    # In a club (`tavli-board club demo`): the board publishes to the club's broker and, with an
    # opponent, plays one seat of a remote match (service/remote_seat.py) with the dice both agree.
    club: ClubSettings = field(default_factory=ClubSettings)
    reveal_timeout_s: float = 60.0   # a remote match: a board late this long with its dice secret is warned
    draw_secret: Callable[[int], bytes] = secrets.token_bytes   # a remote match: each roll's secret (tests seed it)
    resume: bool = False   # take up the journal's unfinished match, as the service does after a restart


def demo_config(speed: float, folder: Path, path: Path | None = None, journal: Path | None = None) -> Config:
    """The configuration file at `path` (None: the built-in, simulated one), its timings shortened by
    `speed`, logs in `folder`, the journal at `journal` (None: in `folder`)."""
    config = load_config(path)
    sensors = config.sensing.sensors
    sensors = dataclasses.replace(
        sensors, quiet_ms=max(1, round(sensors.quiet_ms / speed)), grace_ms=max(1, round(sensors.grace_ms / speed)),
        # Faster hands change a location more often a second: the flicker check must keep up.
        flicker_window_ms=max(FLICKER_WINDOW_RANGE[0], round(sensors.flicker_window_ms / speed)),
        scan_hz=min(SCAN_HZ_RANGE[1], round(sensors.scan_hz * speed)))
    button = dataclasses.replace(config.pins.button, hold_s=max(config.pins.button.hold_s / speed, SHORTEST_HOLD_S))
    return dataclasses.replace(
        config, sensing=dataclasses.replace(config.sensing, sensors=sensors),
        pins=dataclasses.replace(config.pins, button=button),
        logging=dataclasses.replace(config.logging, raw_frames_dir=folder / "raw"),
        journal_path=journal or folder / "journal.sqlite3")


class Demo:
    """The rig: hardware, journal and loop, with the players' hands on the board and the button."""

    def __init__(self, settings: Settings, folder: Path, first_board: BoardReading | SimBoard, traced: bool = False):
        """`first_board`: the checkers' layout at the start, or the simulated board itself (a restart:
        its checkers stay where they lie, pinned ones under the checkers pinning them). `traced`: keep the service's trace ring too (`trace`: the link's bytes and the journal's
        checkpoints, as the service keeps them; its few button and dice records aside), for
        measuring a busy service's memory."""
        self.settings = settings
        self.config_file = None if settings.web_port is None else write_companion_config(folder, settings)
        self.config = demo_config(settings.speed, folder, self.config_file, settings.journal)
        self.config = dataclasses.replace(self.config, match_rules=settings.match, bots=settings.bots,
                                          club=settings.club)
        self.journal = Journal.open(self.config.journal_path)
        self.table = Table()
        events: queue.Queue = queue.Queue()
        self.trace = TraceRecorder.for_config(self.config) if traced else None
        if self.trace is not None:   # as `service.run.Service.open` does
            self.trace.follow(self.journal)
        self.hardware = Hardware.open(self.config, post=events.put, board=first_board, trace=self.trace)
        speed = settings.speed
        self.club_parts: list = []   # the club's publisher and a remote match's seat, started and closed with the demo
        dice = SeededDice(settings.seed)
        if settings.club.broker is not None:
            from firmware_host.service.club import ClubPublisher   # the club extra: for a board in a club only
            self.club_parts.append(ClubPublisher(settings.club, self.config.journal_path, post=events.put))
        if settings.club.opponent is not None:
            from firmware_host.service.remote_seat import RemoteSeat
            remote_seat = RemoteSeat(settings.club, self.config.journal_path, events.put,
                                     reveal_timeout_s=settings.reveal_timeout_s, draw_secret=settings.draw_secret)
            self.club_parts.append(remote_seat)
            dice = remote_seat.dice
        self.loop = assemble(
            self.config, self.hardware, self.journal, events, dice=dice,
            timings=Timings(refusal_s=Timings.refusal_s / speed, game_over_s=Timings.game_over_s / speed),
            observers=[self.table.observe, *(part.observe for part in self.club_parts)],
            resumed=self.journal.resume() if settings.resume else None).loop
        self.renderer = Renderer.from_config(self.config.leds)
        self.board: SimBoard = self.hardware.simulation.board
        self.mcu = self.hardware.simulation.mcu
        self._thread = threading.Thread(target=self.loop.run, name="event-loop", daemon=True)
        self.companion = None
        self.web: subprocess.Popen | None = None
        if self.config_file is not None:
            # Settings saved in the browser are read back as the demo reads its file: at its speed.
            self.companion = open_companion(self.config, self.loop, self_test=self.hardware.sensor.run_self_test,
                                            reload=lambda: demo_config(settings.speed, folder, self.config_file,
                                                                              settings.journal))

    def __enter__(self) -> Demo:
        self.hardware.start()
        for part in self.club_parts:
            part.start()
        self._thread.start()
        if self.config_file is not None:
            self.web = start_companion_process(self.config_file, self.config.web.port)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.web is not None:
            stop_process(self.web, 5.0)
        self.loop.stop()
        self._thread.join(5.0)
        for part in self.club_parts:
            part.close()
        if self.companion is not None:
            self.companion.close()
        self.hardware.close()
        self.journal.close()

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.config.web.port}/"

    # -- hands ------------------------------------------------------------------------------------

    def press(self) -> None:
        pin = self.config.pins.button.pin
        self.hardware.simulation.press_button(pin)
        time.sleep(PRESS_S)
        self.hardware.simulation.release_button(pin)
        time.sleep(PRESS_S)   # a press within the debounce time of the release would merge with this one

    def hold(self, until: Callable[[GameView], bool] | None = None, what: str = "") -> GameView:
        """Keep the button down until the controller has taken the hold (`until`), or for the hold
        time and a little more where nothing tells (a person's hold)."""
        pin = self.config.pins.button.pin
        self.hardware.simulation.press_button(pin)
        try:
            if until is None:
                time.sleep(self.config.pins.button.hold_s + 2 * PRESS_S)
                return self.table.seen
            return self.table.wait(until, what)
        finally:
            self.hardware.simulation.release_button(pin)
            time.sleep(PRESS_S)

    def settled_view(self) -> GameView:
        """Wait until the controller has seen (and judged) the board as it is now, and it is not changing."""
        now = self.mcu.sensed_reading()
        return self.table.wait(lambda seen: seen.sensed == now and not seen.changing and not seen.judging,
                               "the board to be read")

    def decided_view(self) -> GameView:
        """The board settled and judged, and a wrong one past its grace time, when the referee calls it
        illegal (a person reads the decision, not the moment before it)."""
        seen = self.settled_view()
        if seen.state == m.MOVING and seen.verdict_kind == "illegal":
            seen = self.table.wait(lambda view: view.state != m.MOVING or view.verdict_kind != "illegal",
                                   "the referee's call on the wrong board")
        return seen

    # -- the terminal -----------------------------------------------------------------------------

    def say(self, text: str) -> None:
        print(text, file=self.settings.out, flush=True)

    def show(self, caption: str, seen: GameView | None = None) -> None:
        """The board, its lights, and under it what each light lit now means."""
        seen = seen or self.table.seen
        in_colour = wants_colour(self.settings.out)
        self.say(f"\n== {caption}  [{seen.state}; game {seen.game_number}, {seen.variant}; "
                 f"score white {seen.score[0]} - black {seen.score[1]}]")
        if self.settings.boards == "none":
            return
        self.say(draw_view(seen, self.renderer, self.config.leds.layout, in_colour, time.monotonic()))
        lit = {element for name in self.renderer.names(seen.scene).values() for element in _elements(name)}
        self.say("\n".join(legend_lines(PALETTES[self.config.leds.palette], in_colour, lit)))

def draw_view(view: GameView, renderer: Renderer, layout: LedLayout, in_colour: bool, now: float) -> str:
    """The terminal's picture of a view: the checkers the sensors read and the LEDs at clock time `now`,
    the points as the board labels them; without colour, each lit location shows its mark's code."""
    names = renderer.names(view.scene)
    codes = None if in_colour else {location: MEANINGS[name][0] for location, name in names.items()
                                    if location in LOCATIONS}
    return render_board(layout, renderer.render(view.scene, now), view.sensed, codes)


def _elements(name: str) -> tuple[str, ...]:
    """The legend's elements of what `Renderer.names` reads for one group of lights."""
    element = name.partition(":")[0]
    return (SCORE_WON, SCORE_TO_PLAY) if element == "score" else (element,)




def write_companion_config(folder: Path, settings: Settings) -> Path:
    """The demo's configuration file, so that the companion can show and change its settings: the
    simulated board, the match and its bot seats, the journal and socket in `folder`, the web port
    and the demo's PIN."""
    path = folder / "config.toml"
    path.write_text(tomli_w.dumps({
        "hardware": "simulated",
        "match": {"sequence": list(settings.match.sequence), "target": settings.match.target,
                  **{color.value: "bot" for color in settings.bots}},
        "journal": {"path": str(settings.journal or folder / "journal.sqlite3")},
        "logging": {"file": str(folder / "tavli-board.log"), "raw_frames_dir": str(folder / "raw")},
        "web": {"socket": str(folder / "companion.sock"), "host": settings.web_host, "port": settings.web_port,
                "pin": hash_pin(settings.pin)},
    }))
    return path


class CompanionDidNotStart(RuntimeError):
    """The web companion's process ended before it answered (its own error is on stderr)."""


COMPANION_START_S = 60.0     # importing the web stack on a busy Pi takes seconds


def start_companion_process(config_file: Path, port: int) -> subprocess.Popen:
    """The companion's own process, as on the Pi (`tavli-board web`), on the demo's config file, once it
    shows the board: it answers on `port` and has the service's snapshot (before that a page opened
    from the printed address, even after a fast match, would say the service is not there). It ends
    with the demo: terminated on the way out, and on Linux sent SIGTERM by the kernel if the demo dies
    without a word (kill -9)."""
    process = subprocess.Popen([sys.executable, "-m", "firmware_host", "web", "--config", str(config_file)],
                               stdout=subprocess.DEVNULL, preexec_fn=end_with_parent())
    deadline = time.monotonic() + COMPANION_START_S
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=1):
                return process
        except OSError:   # not listening yet, or an HTTPError 503: not linked to the service yet
            time.sleep(0.1)
    process.kill()
    process.wait()
    raise CompanionDidNotStart(f"the web companion did not start on 127.0.0.1:{port} (exit {process.returncode})")


def stop_process(process: subprocess.Popen, wait_s: float) -> None:
    """Terminate a child the demo started, and kill it if it has not ended after `wait_s`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(wait_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def end_with_parent() -> Callable[[], None] | None:
    """For `preexec_fn`: the child gets SIGTERM when its parent ends (Linux's PR_SET_PDEATHSIG); None
    elsewhere. The C function is looked up here, before the fork: the child only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import signal

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    set_parent_death_signal, terminate = 1, int(signal.SIGTERM)   # PR_SET_PDEATHSIG
    return lambda: prctl(set_parent_death_signal, terminate)


def say_where_it_is_kept(journal: Path, out: TextIO) -> None:
    print(f"tavli-board demo: the match is journaled in {journal}: `tavli-board history --journal {journal}` "
          f"lists the demo's matches, `tavli-board export last --journal {journal}` writes the last one",
          file=out, flush=True)


def say_where_to_watch(demo: Demo, out: TextIO) -> None:
    """The companion's address: on this machine, or plainly open to the local network with its address
    as a QR code for a phone at the table (and the PIN that changes need, made up for this run)."""
    urls = lan_urls(demo.settings.web_host, demo.config.web.port)
    if not urls:
        print(f"tavli-board demo: watch it at {demo.web_url} (this machine only; the settings PIN is "
              f"{demo.settings.pin})", file=out, flush=True)
        return
    print(f"tavli-board demo: the companion is OPEN TO YOUR LOCAL NETWORK at {urls[0]}"
          f"{' (or ' + ', '.join(urls[1:]) + ')' if urls[1:] else ''}: anyone on it can watch; changes need "
          f"the PIN {demo.settings.pin}, made up for this run. Scan to open it on a phone:", file=out)
    print(qr_text(urls[0]) or "(install segno for a QR code)", file=out, flush=True)


def play_scripted_match(demo: Demo) -> GameView:
    """The two scripted players play the match to its end; the final board and score are shown."""
    final = Players(demo, demo.settings.seed).play_match()
    demo.show("match over", final)
    white, black = final.score
    winner = "white" if white > black else "black"
    demo.say(f"\nmatch over: {winner} wins {max(white, black)}-{min(white, black)} (white {white}, black {black})")
    return final


def run_demo(settings: Settings, interactive: bool = False) -> int:
    folder = Path(tempfile.mkdtemp(prefix="tavli-board-demo-"))
    match = settings.match
    chooser = random.Random(settings.seed)
    # The scripted players sit any way round; a person typing point numbers sits as the board is wired.
    orientation = Orientation.AS_WIRED if interactive else chooser.choice(list(Orientation))
    first = Position.start(match.sequence[0])
    board = laid_out(first, orientation)
    out = settings.out
    try:
        with Demo(settings, folder, board) as demo:
            print(f"tavli-board demo: a match of {', '.join(match.sequence)} to {match.target}, seed "
                  f"{settings.seed}, speed {settings.speed:g}; the players sit {orientation.value}", file=out)
            if settings.journal is not None:
                say_where_it_is_kept(settings.journal, out)
            if demo.web is not None:
                say_where_to_watch(demo, out)
            if interactive:
                return run_interactive(demo)
            try:
                play_scripted_match(demo)
            except DemoStuck as error:
                print(f"tavli-board demo: stopped: {error}", file=sys.stderr)
                return 1
            if settings.journal is not None:
                say_where_it_is_kept(settings.journal, out)
            if demo.web is not None and sys.stdin.isatty():   # a person is there: let them look it over
                print(f"tavli-board demo: the match is over; its companion stays up at {demo.web_url} until you "
                      "press Ctrl-C", file=out, flush=True)
                try:
                    threading.Event().wait()
                except KeyboardInterrupt:
                    print("\ntavli-board demo: companion closed", file=out)
            return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


INTERACTIVE_INTRO = """\
You are both players at a simulated board; the referee, the dice and the lights are the real ones.
The board is drawn as White sees it: points 13-24 along the far edge, 12-1 along the near edge, the
bar in the middle and the borne-off trays on the right; ○ is a white checker, ● a black one
(a number: that many). The row of ██ beside the point numbers are the LEDs (·· when dark), then
the dice, the turn and the score lights; under the board, what each light that is lit means
(`tavli-board legend` lists them all). Point numbers you type are the ones drawn."""

INTERACTIVE_HELP = """\
Type what your hands do; after each line, the board, its lights and what the referee decided:
  lift 13 white | place 9 [white] | slide 13 9 white | hit 5 black | bear-off 3 white
  press | hold (a long press: referee mode, again to leave) | board | help | quit
  faults: unplug | replug | reset | flicker LOCATION W B | stick LOCATION W B | unstick LOCATION"""


def run_interactive(demo: Demo, lines=None) -> int:
    """Read actions from `lines` (default: stdin) until quit or the end; draw the board after each."""
    lines = lines if lines is not None else sys.stdin
    demo.say(INTERACTIVE_INTRO)
    demo.say(INTERACTIVE_HELP)
    demo.show("the board", demo.table.wait(lambda s: True, "the controller"))
    for line in lines:
        command = line.strip()
        if command in ("quit", "exit"):
            break
        try:
            if command == "press":
                demo.press()
            elif command == "hold":
                demo.hold()
            elif command == "help":
                demo.say(INTERACTIVE_HELP)
                continue
            elif command and command != "board":
                answer = run_command(demo.hardware.simulation.mcu, command)
                if answer:
                    demo.say(answer)
            time.sleep(demo.config.sensing.sensors.quiet_ms / 1000 + 0.15)   # the board's quiet time
            seen = demo.decided_view()
        except (ConsoleError, DemoStuck) as error:
            demo.say(f"? {error}")
            continue
        demo.show(command or "the board", seen)
        demo.say(referee_says(seen))
    return 0


def referee_says(view: GameView) -> str:
    """What the referee decided, in the words the companion shows: the headline, why, then the steps."""
    words = verdict_words(view)
    if words is None:
        return f"referee: {view.state}"
    lines = [f"referee: {words['headline']}", *(f"  because {why}" for why in words["why"]),
             *(f"  {number}. {step}" for number, step in enumerate(words["steps"], 1))]
    return "\n".join(lines)
