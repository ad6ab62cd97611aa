"""Simulated boards of a club: each the demo's rig (`Demo`) with its scripted players, publishing to
the club's broker; two of them play one match over a remote seat (service/remote_seat.py), each
board's players making their own colour's plays and moving the other board's as its lights show.
Used by `tavli-board club demo`, the remote seat's tests and bench/bench_remote_seat.py.
"""
from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, TextIO

from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings
from firmware_host.controller import machine as m
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.controller.view import GameView
from firmware_host.demo.players import Players
from firmware_host.demo.rig import Demo, Settings
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
    folder.mkdir(parents=True, exist_ok=True)
    return ClubSettings(broker=broker, port=port, club=club, board=name, key_file=folder / "club-board.key")


def public_key(settings: ClubSettings) -> str:
    return public_key_text(board_key(settings.signing_key_path))


def remote_pair(names: tuple[str, str], folder: Path, broker: str, port: int, club: str,
                match: MatchRules, *, seed: int, speed: float, outs: tuple[TextIO, TextIO],
                reveal_timeout_s: float = 60.0) -> tuple[Board, Board]:
    """Two boards seated for one remote match: the first board's player has white, the second's black."""
    clubs = [club_settings(name, folder / name, broker, port, club) for name in names]
    keys = [public_key(settings) for settings in clubs]
    boards = []
    for index, (name, seat) in enumerate(zip(names, (Color.WHITE, Color.BLACK))):
        other = 1 - index
        settings = Settings(match, seed=seed + index, speed=speed, out=outs[index], boards="none",
                            journal=folder / name / "journal.sqlite3", reveal_timeout_s=reveal_timeout_s,
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
