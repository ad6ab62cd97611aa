"""What the club's benches share: a club locked as `tavli-board club broker-config` writes it (a real
Mosquitto, the hub as its own process, `tavli-board club hub`), light boards, and the processes' CPU
and memory from /proc.

A light board is what a board sends without the referee: a real journal (`Journal`, the referee's own
records: match and game starts, rolls, plays with the position after them, game and match ends) and
the real `ClubPublisher` over it, fed the way the service feeds it (the journal written, then
`observe` with the new view). Its players choose at random among the legal plays (`legal_plays`), so
the records are a real game's. No LEDs, sensors or controller: a hundred fit on a two-core machine.
"""
from __future__ import annotations

import getpass
import json
import os
import random
import shutil
import signal
import socket
import secrets
import subprocess
import sys
import time
from pathlib import Path

from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings
from firmware_host.hub.broker import password_line
from firmware_host.journal import Journal
from firmware_host.rules import Color, Rules
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import legal_plays
from firmware_host.rules.position import Position
from firmware_host.service.club import ClubPublisher, board_key
from machine import machine_text

CLUB = "kefalonia"
READER = "bench-reader"   # an account of the bench's that reads the whole club
VARIANTS = ("portes", "plakoto", "fevga")
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def board_name(number: int) -> str:
    return f"table-{number:03d}"


class Club:
    """The club's files in `folder`: boards' keys, the hub's configuration, the broker's locked files."""

    def __init__(self, folder: Path, boards: int, port: int):
        """The club already written in `folder` (`Club.create`)."""
        self.folder, self.port = folder, port
        self.boards = [board_name(number) for number in range(1, boards + 1)]
        self.hub_config = folder / "hub.toml"
        self.broker: subprocess.Popen | None = None
        self.hub: subprocess.Popen | None = None

    @classmethod
    def create(cls, folder: Path, boards: int) -> "Club":
        self = cls(folder, boards, free_port())
        (folder / "keys").mkdir(parents=True, exist_ok=True)
        keys = {name: board_key(self.key_path(name)) for name in self.boards}
        self.hub_config.write_text(
            f'club = "{CLUB}"\ndatabase = "hub.sqlite3"\n[broker]\nhost = "127.0.0.1"\nport = {self.port}\n'
            'username = "hub"\npassword_file = "hub-password"\n[boards]\n'
            + "".join(f'{name} = "{public_key_text(key)}"\n' for name, key in keys.items()))
        subprocess.run([sys.executable, "-m", "firmware_host", "club", "broker-config", "--config", str(self.hub_config),
                        "--out", str(folder / "broker"), "--bind", "127.0.0.1"], check=True, stdout=subprocess.DEVNULL,
                       env=environment())
        # The bench's own reader (its witness): the broker names each connection by its account, so
        # one on the hub's account would drop the hub's.
        reader_password = secrets.token_urlsafe(16)
        (folder / "reader-password").write_text(reader_password)
        with open(folder / "broker" / "passwords", "a") as passwords:
            passwords.write(password_line(READER, reader_password) + "\n")
        with open(folder / "broker" / "acl", "a") as acl:
            acl.write(f"\nuser {READER}\ntopic read tavli/{CLUB}/#\n")
        # Run as this user (Mosquitto started as root would become "mosquitto"), the files included as
        # Debian's mosquitto.conf includes conf.d.
        (folder / "broker-main.conf").write_text(f"user {getpass.getuser()}\ninclude_dir {folder / 'broker'}\n")
        return self

    def key_path(self, board: str) -> Path:
        return self.folder / "keys" / f"{board}.pem"

    def settings(self, board: str) -> ClubSettings:
        return ClubSettings(broker="127.0.0.1", port=self.port, club=CLUB, board=board, username=board,
                            password_file=self.folder / "broker" / "boards" / f"{board}.password",
                            key_file=self.key_path(board),
                            hub_key=public_key_text(board_key(self.folder / "hub.key")))   # broker-config made it

    def reader_password(self) -> str:
        return (self.folder / "reader-password").read_text()

    def start_broker(self) -> None:
        with open(self.folder / "broker.log", "ab") as log:
            self.broker = subprocess.Popen([MOSQUITTO, "-c", str(self.folder / "broker-main.conf")],
                                           stdout=subprocess.DEVNULL, stderr=log)
        wait_listening(self.port, self.broker)

    def kill_broker(self) -> None:
        self.broker.send_signal(signal.SIGKILL)
        self.broker.wait(10)

    def start_hub(self) -> None:
        self.hub = subprocess.Popen([sys.executable, "-m", "firmware_host", "club", "hub", "--config", str(self.hub_config)],
                                    stdout=open(self.folder / "hub.log", "ab"), stderr=subprocess.STDOUT, env=environment())

    def kill_hub(self) -> None:
        self.hub.send_signal(signal.SIGKILL)
        self.hub.wait(10)

    def close(self) -> None:
        for process in (self.hub, self.broker):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(20)


def environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def wait_listening(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"mosquitto ended with {process.returncode}")
            time.sleep(0.05)
    raise SystemExit("mosquitto did not listen within 20 s")


class LightBoard:
    """One board's journal and publisher, and two random players at it."""

    def __init__(self, club: Club, name: str, folder: Path, seed: int, *, wall_clock=time.time):
        self.name, self.random = name, random.Random(seed)
        self.journal = Journal.open(folder / f"{name}.sqlite3", wall_clock=wall_clock)
        self.settings = club.settings(name)
        self.publisher: ClubPublisher | None = None
        self.position: Position | None = None
        self.games = 0

    def connect(self) -> None:
        self.publisher = ClubPublisher(self.settings, self.journal.path)
        self.publisher.start()

    def disconnect(self) -> None:
        self.publisher.close()
        self.publisher = None

    def start_match(self) -> tuple[int, str]:
        """A match of one game (the next of the three families'): its number and variant."""
        variant = VARIANTS[self.games % len(VARIANTS)]
        match = self.journal.start_match(MatchRules(sequence=variant, target=1))
        starter = self.random.choice((Color.WHITE, Color.BLACK))
        self.journal.start_game(variant, Rules.for_variant(variant), starter=starter)
        self.position = Position.start(variant, starter)
        self.games += 1
        return match, variant

    def roll(self) -> tuple[int, int]:
        """The roll of the side to move, journaled and shown."""
        if self.position is None:
            self.start_match()
        dice = (self.random.randint(1, 6), self.random.randint(1, 6))
        self.journal.record_roll(self.position.turn, dice)
        self.show("rolled", dice)
        return dice

    def play(self, dice: tuple[int, int]) -> tuple[int, Color | None]:
        """A random legal play for the roll, journaled and shown: its number, and the winner if it ended the game."""
        side = self.position.turn
        play = self.random.choice(legal_plays(self.position, dice))
        seq = self.journal.record_play(side, dice, play)
        self.position = None if play.result is not None else play.position
        self.show("played" if self.position is not None else "game_over", dice, play.position)
        return seq, None if play.result is None else play.result.winner

    def show(self, state: str, dice: tuple[int, int], position: Position | None = None) -> None:
        if self.publisher is not None:
            shown = position or self.position
            self.publisher.observe({"state": state, "dice": list(dice), "turn": shown.turn.value,
                                    "position": shown.to_json()}, None)

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.close()
        self.journal.close()


class ProcessFigures:
    """A process's CPU seconds and memory from /proc (Linux)."""

    TICKS = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int):
        self.pid = pid

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.TICKS     # utime, stime

    def memory_mb(self) -> dict:
        status = dict(line.split(":", 1) for line in Path(f"/proc/{self.pid}/status").read_text().splitlines())
        return {"rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
                "peak_rss_mb": round(int(status["VmHWM"].split()[0]) / 1024, 1)}


def machine() -> dict:
    return {"uname": " ".join(os.uname()), "cpus": os.cpu_count(), "load_average": os.getloadavg(),
            "python": sys.version.split()[0],
            "mosquitto": subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True).stdout.splitlines()[0],
            "described": machine_text()}


def write_record(record: dict, path: str | None) -> None:
    text = json.dumps(record, indent=2)
    print(text)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")
