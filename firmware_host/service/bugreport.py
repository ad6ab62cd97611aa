"""`tavli-board bug-report`: one .tar.gz with what an engineer needs to see what went wrong.

    README.txt               what is inside, when, on which machine and version
    config/config.toml       the configuration file as written (if there is one), its secrets removed
    config/effective.txt     every effective setting and its origin, or why the configuration fails
    config/board.toml        the board file
    log/tail.log             the last lines of the log, across its rotated files
    journal/tail.jsonl       the journal's last records
    journal/last-board.svg   the last position the journal holds, drawn as the board lay (leds.svg)
    raw-frames/last-minute.txt   the sensor link's bytes of the last minute (see service.rawlog)

It is built from files only, so it works while the service runs, hangs or is stopped, and with a
configuration that does not load (then its paths are the built-in defaults). A part that cannot
be had is replaced by a note saying why: a bug report never fails for want of one piece.

No secret goes in, whoever asks for the report: the value of any key named like a secret (`pin`,
`password`, `secret`, `token`) is removed from the configuration, and a PIN hash from every part.
"""
from __future__ import annotations

import io
import json
import os
import platform
import re
import sqlite3
import sys
import tarfile
import time
from collections import deque
from datetime import datetime, timezone
from pathlib import Path

from firmware_host import __version__
from firmware_host.config import Config, ConfigError, LogSettings, load_config
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.journal.events import Kind
from firmware_host.journal.store import CorruptJournal, JournalError, JournalReader
from firmware_host.leds.svg import board_svg
from firmware_host.rules import Position
from firmware_host.sensing.config import DEFAULT_BOARD_FILE
from firmware_host.service.rawlog import WINDOW_S, recent_frames

LOG_TAIL_LINES = 2000
JOURNAL_TAIL_RECORDS = 500
REPORTED_BYTES = 1024 * 1024   # of one file (the config, the board file): a wrong path cannot fill the bundle
REMOVED = "(removed from the bug report)"
# A TOML line `key = value` (the key bare, quoted or dotted) and a table header `[name]`.
_ASSIGNMENT = re.compile(r"""^(\s*([\w"'. -]+?)\s*=\s*).*$""")
_HEADER = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+")
# Keys whose value is a secret anywhere; `pin` is one in [web] only (elsewhere it is a GPIO number).
_SECRET_KEYS = ("password", "secret", "token")
# A stored PIN hash wherever it appears (an inline table, a log line quoting the file).
_PIN_HASH = re.compile(r"scrypt\$[^\s\"']*")


def without_secrets(text: str) -> str:
    """`text` with every secret's value replaced by `REMOVED`."""
    lines, table = [], ""
    for line in text.splitlines(keepends=True):
        header, assignment = _HEADER.match(line), _ASSIGNMENT.match(line)
        if header:
            table = header.group(1).replace('"', "").replace("'", "").replace(" ", "")
        elif assignment:
            key = f"{table}.{assignment.group(2)}".replace('"', "").replace("'", "").replace(" ", "").lower()
            if key.endswith(_SECRET_KEYS) or key.split(".")[-2:] == ["web", "pin"]:
                line = f'{assignment.group(1)}"{REMOVED}"' + ("\n" if line.endswith("\n") else "")
        lines.append(line)
    return _PIN_HASH.sub(REMOVED, "".join(lines))


def effective_settings(config: Config) -> str:
    """`config show`'s text: one line per setting, `key = value  # origin`."""
    settings = config.settings()
    width = max(len(f"{setting.key} = {json.dumps(setting.value)}") for setting in settings)
    return "\n".join(f"{f'{setting.key} = {json.dumps(setting.value)}':<{width}}  # {setting.origin}"
                     for setting in settings)


def log_tail(settings: LogSettings, lines: int = LOG_TAIL_LINES) -> str:
    """The last `lines` lines of the log, reading back through its rotated files (.1, .2 ...)."""
    files = [settings.file] + [Path(f"{settings.file}.{number}") for number in range(1, settings.backups + 1)]
    tail: deque[str] = deque(maxlen=lines)
    for path in reversed([path for path in files if path.exists()]):
        with path.open(encoding="utf-8", errors="replace") as file:
            tail.extend(file)
    if not tail:
        return f"(no log at {settings.file})\n"
    return "".join(tail)


def journal_tail(path: Path, records: int = JOURNAL_TAIL_RECORDS) -> str:
    try:
        with JournalReader.open(path) as reader:
            return "".join(json.dumps(event.to_json(), sort_keys=True) + "\n" for event in reader.tail(records))
    except (JournalError, CorruptJournal, sqlite3.Error) as error:  # a broken journal is itself worth reporting
        return f"(the journal {path} cannot be read: {error})\n"


def last_board_svg(path: Path, records: int = JOURNAL_TAIL_RECORDS) -> str | None:
    """The last position among the journal's last `records` records, drawn as its game's board lay;
    None when there is none (or no journal: `journal_tail` says why)."""
    try:
        with JournalReader.open(path) as reader:
            events = reader.tail(records)
    except (JournalError, CorruptJournal, sqlite3.Error):
        return None
    last = next((event for event in reversed(events) if "position" in event.data), None)
    if last is None:
        return None
    started = next((event for event in reversed(events)
                    if event.kind is Kind.GAME_STARTED and event.seq <= last.seq and event.match_id == last.match_id), None)
    orientation = Orientation(started.data.get("orientation") or Orientation.AS_WIRED.value) if started else \
        Orientation.AS_WIRED
    position = Position.from_json(last.data["position"])
    return board_svg(laid_out(position, orientation), point_labels={p: orientation.point(p) for p in range(1, 25)},
                     title=f"match {last.match_id}, record {last.seq} ({last.kind.value}): {position.variant}, "
                           f"{position.turn} to play; the board lay {orientation.value}")


def _read(path: Path | None) -> str | None:
    """The file as text for the report; what cannot be read, said instead (never more than `REPORTED_BYTES`)."""
    if path is None:
        return None
    try:
        with path.open("rb") as file:
            data = file.read(REPORTED_BYTES + 1)
    except OSError as error:
        return f"(cannot read {path}: {error.strerror})\n"
    cut = f"\n(cut: {path} is longer than {REPORTED_BYTES} bytes)\n" if len(data) > REPORTED_BYTES else ""
    return data[:REPORTED_BYTES].decode("utf-8", errors="replace") + cut


def build_bug_report(config_path: Path | None, output: Path, now: float | None = None) -> Path:
    """Write the bundle to `output` (a .tar.gz) and return it."""
    now = time.time() if now is None else now
    try:
        config = load_config(config_path)
        effective = effective_settings(config) + "\n"
        log_settings, journal_path, board_file = config.logging, config.journal_path, config.board_file
    except ConfigError as error:
        defaults = load_config(None)
        effective = f"(the configuration does not load; paths below are the built-in defaults)\n{error}\n"
        log_settings, journal_path, board_file = defaults.logging, defaults.journal_path, DEFAULT_BOARD_FILE
    frames = recent_frames(log_settings.raw_frames_dir, WINDOW_S, now)
    stamp = datetime.fromtimestamp(now, timezone.utc)
    parts = {
        "README.txt": (f"tavli-board {__version__} bug report, {stamp.isoformat(timespec='seconds')}\n"
                       f"machine: {platform.node()} {platform.platform()}, Python {sys.version.split()[0]}\n"
                       f"configuration: {config_path or 'built-in defaults'}\nboard file: {board_file}\n"
                       f"log: {log_settings.file}\njournal: {journal_path}\n"
                       f"raw frames: {log_settings.raw_frames_dir}\n\n" + (__doc__ or "")),
        "config/config.toml": _read(config_path),     # secrets removed below, with any in the other parts
        "config/effective.txt": effective,
        "config/board.toml": _read(board_file),
        "log/tail.log": log_tail(log_settings),
        "journal/tail.jsonl": journal_tail(journal_path),
        "journal/last-board.svg": last_board_svg(journal_path),
        "raw-frames/last-minute.txt": "\n".join(frames) + "\n" if frames else
        f"(no frames recorded in the last {WINDOW_S:g} s in {log_settings.raw_frames_dir})\n",
    }
    root = f"tavli-board-bug-report-{stamp.strftime('%Y%m%dT%H%M%SZ')}"
    output.parent.mkdir(parents=True, exist_ok=True)
    # The bundle holds the journal and the configuration: readable by its owner only (root's, when
    # made with sudo), whatever the umask, and also when it replaces an older file.
    descriptor = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "wb") as file, tarfile.open(fileobj=file, mode="w:gz") as bundle:
        for name, text in parts.items():
            if text is None:
                continue
            data = without_secrets(text).encode("utf-8")
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size, info.mtime, info.mode = len(data), int(now), 0o600
            bundle.addfile(info, io.BytesIO(data))
    return output
