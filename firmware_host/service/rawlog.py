"""The last minute of the sensor link's raw bytes, for bug reports.

`RawFrameRecorder.wrap(opener)` wraps the port opener that `BoardSensor` takes (`opener=`), so every
byte read from and written to the MCU passes through `record` at the transport, with sensing/
untouched. Lines go to two files in a folder (`[logging] raw_frames_dir`, /run/tavli-board on the
Pi: RAM, so an SD card is not worn) that take turns: when the current one is `window_s` old, or
holds `segment_bytes` (512 KiB), the other is emptied and takes over. So the two hold the last
`window_s` seconds of a working link (a few kilobytes), never more than about 1 MiB in all, even
with junk pouring in at line rate (then they hold its last 512 KiB at least); and they outlive the
process: after a crash the bug report still shows what the link said last.

    2024-05-01T10:00:00.123Z rx 00 05 01 ...     (UTC, direction, bytes in hex)
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

SEGMENTS = ("raw-frames.0.log", "raw-frames.1.log")
WINDOW_S = 60.0
SEGMENT_BYTES = 512 * 1024


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class RawFrameRecorder:
    def __init__(self, directory: Path, window_s: float = WINDOW_S, wall_clock: Callable[[], float] = time.time,
                 segment_bytes: int = SEGMENT_BYTES):
        self.directory = Path(directory)
        self.window_s = window_s
        self.segment_bytes = segment_bytes
        self._written = 0      # characters in the current file
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._file = None
        self._segment = 0
        self._segment_started = 0.0
        self._broken = False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # Keep the newer file (the last words before a restart); write over the older one.
            ages = [(self.directory / name).stat().st_mtime if (self.directory / name).exists() else 0.0
                    for name in SEGMENTS]
            self._start_segment(ages.index(min(ages)))
        except OSError as error:
            self._fail(error)

    def record(self, direction: str, data: bytes) -> None:
        """Log `data` sent ("tx") to or received ("rx") from the MCU; never raises."""
        if self._broken or not data:
            return
        with self._lock:
            now = self._wall_clock()
            try:
                if now - self._segment_started >= self.window_s or self._written >= self.segment_bytes:
                    self._start_segment(1 - self._segment)
                self._written += self._file.write(f"{_stamp(now)} {direction} {data.hex(' ')}\n")
                self._file.flush()  # a line per chunk: what a hung or killed service said last is on file
            except OSError as error:
                self._fail(error)

    def wrap(self, opener: Callable) -> Callable:
        """A port opener (as `sensing.link.open_port`) whose ports record their traffic here."""
        def open_recorded(url, settings):
            return RecordingPort(opener(url, settings), self)
        return open_recorded

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def _start_segment(self, segment: int) -> None:
        if self._file is not None:
            self._file.close()
        self._segment = segment
        self._segment_started = self._wall_clock()
        self._written = 0
        self._file = (self.directory / SEGMENTS[segment]).open("w", encoding="ascii")

    def _fail(self, error: OSError) -> None:
        self._broken = True
        log.warning("raw frames are not kept for bug reports: cannot write in %s: %s", self.directory, error)


class RecordingPort:
    """A pyserial port that hands every byte read or written to a recorder; anything else passes through."""

    def __init__(self, port, recorder: RawFrameRecorder):
        self._port = port
        self._recorder = recorder

    def read(self, size: int = 1) -> bytes:
        data = self._port.read(size)
        self._recorder.record("rx", data)
        return data

    def write(self, data: bytes):
        self._recorder.record("tx", bytes(data))
        return self._port.write(data)

    def __getattr__(self, name: str):
        return getattr(self._port, name)


def recent_frames(directory: Path, window_s: float = WINDOW_S, now: float | None = None) -> list[str]:
    """The recorded lines of the last `window_s` seconds, oldest first (none if nothing was recorded)."""
    since = (time.time() if now is None else now) - window_s
    lines = []
    for name in SEGMENTS:
        path = Path(directory) / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="ascii", errors="replace").splitlines():
            try:
                at = datetime.fromisoformat(line.split(" ", 1)[0]).timestamp()
            except ValueError:
                continue  # a line cut short by a crash
            if at >= since:
                lines.append((at, line))
    return [line for _, line in sorted(lines, key=lambda item: item[0])]
