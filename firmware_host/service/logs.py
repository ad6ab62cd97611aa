"""Logging for the service: to stderr (which systemd puts in its journal) and to a rotating file.

The file (`[logging] file`, rotated at `max_kb` into `backups` old files) is what `bug-report`
bundles, so an engineer gets the log without journalctl. A log file that cannot be opened is
reported on stderr and the service logs to stderr alone: a log never keeps the service down.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from typing import TextIO

from firmware_host.config import LogSettings

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# journald stamps every line itself; JOURNAL_STREAM says stderr goes there.
JOURNAL_FORMAT = "%(levelname)s %(name)s: %(message)s"


class _LogFile(logging.handlers.RotatingFileHandler):
    """The rotating log file; when it cannot be written (a full disk) that is said once on the
    console, not as a traceback for every record, and it is tried again with each record."""

    complaints: TextIO = sys.stderr
    _failing = False

    def emit(self, record: logging.LogRecord) -> None:
        self._failed = False
        super().emit(record)
        self._failing = self._failed

    def handleError(self, record: logging.LogRecord) -> None:
        if not self._failing and not self._failed:
            error = sys.exc_info()[1]
            print(f"tavli-board: cannot write the log file {self.baseFilename} "
                  f"({getattr(error, 'strerror', None) or error}); logging to stderr only until it can",
                  file=self.complaints)
        self._failed = True


def setup_logging(settings: LogSettings, stream: TextIO | None = None) -> list[logging.Handler]:
    """Send the root logger's records at `settings.level` to `stream` (stderr) and the rotating file.

    Replaces handlers a previous call installed; returns the handlers installed.
    """
    stream = sys.stderr if stream is None else stream
    root = logging.getLogger()
    for handler in [handler for handler in root.handlers if getattr(handler, "_tavli_board", False)]:
        root.removeHandler(handler)
        handler.close()
    console = logging.StreamHandler(stream)
    console.setFormatter(logging.Formatter(JOURNAL_FORMAT if os.environ.get("JOURNAL_STREAM") else FORMAT))
    handlers: list[logging.Handler] = [console]
    try:
        settings.file.parent.mkdir(parents=True, exist_ok=True)
        rotating = _LogFile(settings.file, maxBytes=settings.max_bytes, backupCount=settings.backups,
                            encoding="utf-8")
        rotating.complaints = stream
    except OSError as error:
        print(f"tavli-board: cannot write the log file {settings.file} ({error.strerror}); logging to stderr only",
              file=stream)
    else:
        rotating.setFormatter(logging.Formatter(FORMAT))
        handlers.append(rotating)
    for handler in handlers:
        handler._tavli_board = True  # type: ignore[attr-defined]  # marks ours for the next call
        root.addHandler(handler)
    root.setLevel(settings.level.upper())
    # The state machine library logs every callback at info: only worth reading when debugging.
    logging.getLogger("transitions").setLevel(logging.DEBUG if settings.level == "debug" else logging.WARNING)
    return handlers
