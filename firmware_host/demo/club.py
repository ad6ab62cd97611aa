"""Simulated boards of a club: each the demo's rig (`Demo`) with its scripted players, publishing to
the club's broker; two of them play one match over a remote seat (service/remote_seat.py), each
board's players making their own colour's plays and moving the other board's as its lights show.
Used by `tavli-board club demo`, the remote seat's tests and bench/bench_remote_seat.py.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, TextIO

import tomli_w

from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings
from firmware_host.controller import machine as m
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.controller.view import GameView
from firmware_host.demo.players import Players
from firmware_host.demo.rig import Demo, Settings, end_with_parent, stop_process
from firmware_host.journal import JournalReader, Kind
from firmware_host.rules import Color, Position
from firmware_host.rules.match import MatchRules
from firmware_host.service.club import board_key


class Prefixed(io.TextIOBase):
    """Lines written to `out`, each after `prefix` (one board's words among several)."""

    def __init__(self, out: TextIO, prefix: str):
        self.out, self.prefix, self._lock = out, prefix, threading.Lock()
        self._partial = ""

    def write(self, text: str) -> int:
        with self._lock:
            *lines, self._partial = (self._partial + text).split("\n")
            for line in lines:
                self.out.write(f"{self.prefix}{line}\n")
            self.out.flush()
        return len(text)


@dataclass
class Board:
    """One simulated board of the club: its name, its folder (journal, key, logs) and its settings."""

    name: str
    folder: Path
    settings: Settings

    @property
    def journal(self) -> Path:
        return self.folder / "journal.sqlite3"


def club_settings(name: str, folder: Path, broker: str, port: int, club: str) -> ClubSettings:
    """Board `name`'s [club], its key in `folder`/`name`, the hub's in `folder` (as the hub's
    configuration `write_hub_config` writes there names it: hub.key beside it)."""
    (folder / name).mkdir(parents=True, exist_ok=True)
    return ClubSettings(broker=broker, port=port, club=club, board=name, key_file=folder / name / "club-board.key",
                        hub_key=public_key_text(board_key(folder / "hub.key")))


def public_key(settings: ClubSettings) -> str:
    return public_key_text(board_key(settings.signing_key_path))


def remote_pair(names: tuple[str, str], folder: Path, broker: str, port: int, club: str,
                match: MatchRules, *, seed: int, speed: float, outs: tuple[TextIO, TextIO],
                reveal_timeout_s: float = 60.0, secrets_seed: int | None = None) -> tuple[Board, Board]:
    """Two boards seated for one remote match: the first board's player has white, the second's black.
    `secrets_seed`: each board draws its dice secrets from a generator seeded with it (tests: the same
    dice, so the same match, every run); None: fresh secrets, as on a real board."""
    clubs = [club_settings(name, folder, broker, port, club) for name in names]
    keys = [public_key(settings) for settings in clubs]
    boards = []
    for index, (name, seat) in enumerate(zip(names, (Color.WHITE, Color.BLACK))):
        other = 1 - index
        draw_secret = secrets.token_bytes if secrets_seed is None else random.Random(secrets_seed + index).randbytes
        settings = Settings(match, seed=seed + index, speed=speed, out=outs[index], boards="none",
                            journal=folder / name / "journal.sqlite3", reveal_timeout_s=reveal_timeout_s,
                            draw_secret=draw_secret,
                            club=replace(clubs[index], opponent=names[other], opponent_key=keys[other], seat=seat))
        boards.append(Board(name, folder / name, settings))
    return boards[0], boards[1]


def open_board(board: Board) -> Demo:
    """The board's rig, set up for its match's first game as the board is wired."""
    first = laid_out(Position.start(board.settings.match.sequence[0]), Orientation.AS_WIRED)
    return Demo(board.settings, board.folder, first)


@dataclass
class Played:
    """How one board's players ended: the last view, or what stopped them."""

    view: GameView | None = None
    error: BaseException | None = None


def play_on_threads(demos: list[Demo], until: Callable[[GameView], bool] = lambda view: view.state == m.MATCH_OVER,
                    seed: int = 1) -> list[Played]:
    """Each board's scripted players (no stunts: each plays its match plainly) on a thread of their
    own until `until`; waits for all of them."""
    results = [Played() for _ in demos]

    def play(index: int, demo: Demo) -> None:
        players = Players(demo, seed + index)
        players.stunts.clear()
        try:
            results[index].view = players.play_until(until)
        except BaseException as error:   # reported to the caller, which decides
            results[index].error = error

    threads = [threading.Thread(target=play, args=(index, demo), name=f"players-{index}", daemon=True)
               for index, demo in enumerate(demos)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@dataclass
class MatchRecord:
    """What one journal holds of its last match: every roll's dice and every play, in order."""

    dice: list[Any] = field(default_factory=list)
    plays: list[Any] = field(default_factory=list)
    ended: dict | None = None


def last_match(journal: Path) -> MatchRecord:
    record = MatchRecord()
    with JournalReader.open(journal) as reader:
        match_id = reader.match_ids()[-1]
        for event in reader.match_events(match_id):
            if event.kind == Kind.OPENING_ROLL:
                record.dice.append(("opening", event.data["white"], event.data["black"]))
            elif event.kind == Kind.ROLL:
                record.dice.append((event.data["side"], *event.data["dice"]))
            elif event.kind == Kind.PLAY:
                record.plays.append((event.data["side"], tuple(event.data["dice"]),
                                     tuple((move["from"], move["to"]) for move in event.data["moves"])))
            elif event.kind == Kind.MATCH_ENDED:
                record.ended = dict(event.data)
    return record


# == `tavli-board club demo` =========================================================================

MOSQUITTO = "/usr/sbin/mosquitto"   # Debian's, where it is not on the PATH
START_S = 60.0        # the broker and the hub answer within this (a loaded machine), or the demo says which did not
HUB_CATCH_UP_S = 60.0  # after the matches, the hub has every board's records within this (a loaded machine)


class DemoFailed(RuntimeError):
    """A part of the club demo that did not start or did not finish, in words."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(port: int, alive: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if not alive():
                raise DemoFailed(f"{what} ended before it listened on 127.0.0.1:{port}") from None
            time.sleep(0.05)
    raise DemoFailed(f"{what} did not listen on 127.0.0.1:{port} within {START_S:g} s")


class MosquittoBroker:
    """Debian's Mosquitto on a loopback port, for the demo's lifetime."""

    name = "Mosquitto"

    def __init__(self, program: str, folder: Path):
        self.port = free_port()
        config = folder / "mosquitto.conf"
        config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                          f"log_dest file {folder / 'mosquitto.log'}\n")
        self.process = subprocess.Popen([program, "-c", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, preexec_fn=end_with_parent())
        _listening(self.port, lambda: self.process.poll() is None, "mosquitto")

    def close(self) -> None:
        stop_process(self.process, 10.0)


class EmbeddedBroker:
    """amqtt's broker (pure Python, the club extra) on a loopback port, on a thread of its own, where
    Mosquitto is not installed."""

    name = "the embedded amqtt broker"

    def __init__(self) -> None:
        import asyncio

        from amqtt.broker import Broker

        self.port = free_port()
        config = {"listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{self.port}"}},
                  "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}}
        self._loop = asyncio.new_event_loop()
        self._stopped: asyncio.Event | None = None
        started, failed = threading.Event(), []

        async def serve() -> None:
            self._stopped = asyncio.Event()
            broker = Broker(config)
            try:
                await broker.start()
            except Exception as error:   # reported by the thread that waits for the start
                failed.append(error)
                return
            finally:
                started.set()
            await self._stopped.wait()
            await broker.shutdown()

        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(serve(),), name="amqtt", daemon=True)
        self._thread.start()
        if not started.wait(START_S) or failed:
            raise DemoFailed(f"the embedded broker did not start: {failed[0] if failed else 'no answer'}")

    def close(self) -> None:
        if self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(10)


def start_broker(choice: str, folder: Path) -> MosquittoBroker | EmbeddedBroker:
    """`choice`: "mosquitto", "embedded", or "auto" (Mosquitto where installed, else the embedded one)."""
    program = shutil.which("mosquitto") or (MOSQUITTO if Path(MOSQUITTO).is_file() else None)
    if choice == "mosquitto" or (choice == "auto" and program is not None):
        if program is None:
            raise DemoFailed("mosquitto is not installed (scripts/system-packages.sh installs it); --broker embedded "
                             "runs the demo without it")
        return MosquittoBroker(program, folder)
    try:
        return EmbeddedBroker()
    except ImportError as error:
        raise DemoFailed(f"no Mosquitto here, and the embedded broker needs the club extra "
                         f"(pip install 'tavli-board[club]'): {error}") from None


def write_hub_config(folder: Path, club: str, port: int, keys: dict[str, str], web_port: int) -> Path:
    """The hub's configuration (firmware_host/hub/config.py): the club's broker, its boards' keys, its
    records in `folder`, and its pages on `web_port`."""
    document: dict[str, Any] = {"club": club, "database": str(folder / "hub.sqlite3"),
                                "broker": {"host": "127.0.0.1", "port": port}, "boards": keys,
                                "web": {"host": "127.0.0.1", "port": web_port}}
    path = folder / "hub.toml"
    path.write_text(tomli_w.dumps(document))
    return path


class Hub:
    """`tavli-board club hub` as its own process, as on the club's machine; what it prints is shown
    with its name, and the café screen's address it prints is kept."""

    def __init__(self, config: Path, out: TextIO):
        self.config, self.out = config, out
        self.screen_url: str | None = None
        self._heard = threading.Event()
        self.process = subprocess.Popen([sys.executable, "-m", "firmware_host", "club", "hub", "--config", str(config)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        preexec_fn=end_with_parent())
        self._relay = threading.Thread(target=self._read, name="hub-output", daemon=True)
        self._relay.start()
        if not self._heard.wait(START_S) or self.process.poll() is not None:
            self.close()
            raise DemoFailed(f"the hub did not start (exit {self.process.returncode}); its words are above")

    def _read(self) -> None:
        for line in self.process.stdout:
            line = line.rstrip("\n")
            screen = re.search(r"the café screen: (\S+)", line)
            if screen:
                self.screen_url = screen.group(1)
            if screen:
                self._heard.set()   # it listens and serves its pages
            if " INFO " not in line:   # its log at INFO is for a hub's own log file, not the demo's screen
                print(f"hub: {line}", file=self.out, flush=True)
        self._heard.set()

    def matches(self) -> list[dict[str, Any]]:
        """Every match the hub holds, as `tavli-board club matches` lists them."""
        listed = subprocess.run([sys.executable, "-m", "firmware_host", "club", "matches", "--config", str(self.config)],
                                capture_output=True, text=True, timeout=60)
        return json.loads(listed.stdout) if listed.returncode == 0 else []

    def close(self) -> None:
        stop_process(self.process, 10.0)
        self._relay.join(5)


@dataclass
class ClubDemoSettings:
    match: MatchRules
    boards: int = 4              # simulated boards: two play a remote match, the others a match each
    seed: int = 1
    speed: float = 8.0
    broker: str = "auto"         # "mosquitto", "embedded", or "auto"
    club: str = "demo"
    out: TextIO = field(default_factory=lambda: sys.stdout)


def run_club_demo(settings: ClubDemoSettings) -> int:
    """A club on this machine: a broker, the hub, and simulated boards with scripted players; two of
    them play one match over a remote seat. Ends when every board's match is over and the hub holds
    each board's records."""
    out = settings.out
    folder = Path(tempfile.mkdtemp(prefix="tavli-board-club-demo-"))
    names = [f"table-{number}" for number in range(1, settings.boards + 1)]
    parts: list[Any] = []
    try:
        broker = start_broker(settings.broker, folder)
        parts.append(broker)
        remote = remote_pair((names[0], names[1]), folder, "127.0.0.1", broker.port, settings.club, settings.match,
                             seed=settings.seed, speed=settings.speed,
                             outs=(Prefixed(out, f"{names[0]}: "), Prefixed(out, f"{names[1]}: ")))
        boards = list(remote)
        for index, name in enumerate(names[2:], 2):
            club = club_settings(name, folder, "127.0.0.1", broker.port, settings.club)
            boards.append(Board(name, folder / name, Settings(
                settings.match, seed=settings.seed + index, speed=settings.speed, out=Prefixed(out, f"{name}: "),
                boards="none", journal=folder / name / "journal.sqlite3", club=club)))
        keys = {board.name: public_key(board.settings.club) for board in boards}
        hub = Hub(write_hub_config(folder, settings.club, broker.port, keys,
                                   free_port()), out)
        parts.append(hub)
        print(f"tavli-board club demo: club {settings.club} on {broker.name} at 127.0.0.1:{broker.port}; "
              f"{len(boards)} simulated boards; {names[0]} (white) and {names[1]} (black) play one match over a "
              f"remote seat, the others a match each; a match of {', '.join(settings.match.sequence)} to "
              f"{settings.match.target}, seed {settings.seed}", file=out, flush=True)
        print(f"tavli-board club demo: watch every table on the café screen at {hub.screen_url}", file=out, flush=True)
        with contextlib.ExitStack() as stack:
            demos = [stack.enter_context(open_board(board)) for board in boards]
            played = play_on_threads(demos, seed=settings.seed)
        for board, result in zip(boards, played):
            if result.error is not None:
                raise DemoFailed(f"{board.name}: {result.error}")
            white, black = result.view.score
            print(f"tavli-board club demo: {board.name}: match over, white {white} - black {black}", file=out, flush=True)
        held = _hub_catches_up(hub, names)
        print(f"tavli-board club demo: the hub holds the matches of {', '.join(sorted(held))}", file=out, flush=True)
        if sys.stdin.isatty():   # a person is there: let them look it over
            print(f"tavli-board club demo: the café screen stays up at {hub.screen_url} until you press Ctrl-C",
                  file=out, flush=True)
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                pass
        return 0
    except DemoFailed as error:
        print(f"tavli-board club demo: stopped: {error}", file=sys.stderr)
        return 1
    finally:
        for part in reversed(parts):
            part.close()
        shutil.rmtree(folder, ignore_errors=True)


def _hub_catches_up(hub: Hub, names: list[str]) -> set[str]:
    """The boards whose finished match the hub holds, once it holds every board's (or the time is up)."""
    deadline = time.monotonic() + HUB_CATCH_UP_S
    while True:
        held = {match["board"] for match in hub.matches() if match.get("ended")}
        if held >= set(names) or time.monotonic() > deadline:
            return held
        time.sleep(0.5)
