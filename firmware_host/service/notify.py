"""Talking to systemd: READY=1, STATUS=, STOPPING=1 and the watchdog (sd_notify, in a few lines).

The unit is `Type=notify` with `WatchdogSec=`: systemd passes NOTIFY_SOCKET and WATCHDOG_USEC, and
restarts the service when no WATCHDOG=1 comes within WATCHDOG_USEC. The event loop owns one
`SystemdNotifier` and

    notifier.ready("link up")                   # once: the board link is up, or link-lost was entered
    while running:
        event = events.get(timeout=notifier.seconds_to_next_ping())
        notifier.ping_if_due()                  # on every turn of the loop, after handling the event
        ...
    notifier.stopping()

so a loop that hangs stops pinging and systemd restarts it. Pings go out at half of WATCHDOG_USEC,
as sd_watchdog_enabled(3) advises. Outside systemd (no NOTIFY_SOCKET) every call does nothing.

This is not the sdnotify package: that one swallows every error and does not read WATCHDOG_USEC.
Here a failed send is logged (once per kind of message until one succeeds) and counted in
`failures`; it never raises, because refereeing must go on even when systemd cannot be told.
"""
from __future__ import annotations

import logging
import os
import socket
import time
from typing import Callable, Mapping

log = logging.getLogger(__name__)


class SystemdNotifier:
    def __init__(self, environ: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic):
        environ = os.environ if environ is None else environ
        self._clock = clock
        self.address = _socket_address(environ.get("NOTIFY_SOCKET", ""))
        self.watchdog_interval_s = _watchdog_interval(environ) if self.address else None
        self.failures = 0
        self._failing: set[str] = set()
        self._socket: socket.socket | None = None
        self._last_ping = clock()

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def ping_interval_s(self) -> float | None:
        """How often the watchdog is pinged: half its timeout; None without a watchdog."""
        return None if self.watchdog_interval_s is None else self.watchdog_interval_s / 2

    def ready(self, status: str | None = None) -> None:
        self._send("READY=1" + (f"\nSTATUS={status}" if status else ""))
        self._last_ping = self._clock()

    def status(self, text: str) -> None:
        """A one-line state for `systemctl status` (link lost, waiting for the board, game 2 ...)."""
        self._send(f"STATUS={text}")

    def stopping(self) -> None:
        self._send("STOPPING=1")

    def seconds_to_next_ping(self) -> float | None:
        """How long the loop may wait for its next event before it must ping; None: as long as it likes."""
        if self.ping_interval_s is None:
            return None
        return max(0.0, self._last_ping + self.ping_interval_s - self._clock())

    def ping_if_due(self) -> bool:
        """Send WATCHDOG=1 if half the watchdog time has passed since the last ping; True if sent."""
        if self.ping_interval_s is None or self._clock() - self._last_ping < self.ping_interval_s:
            return False
        self._last_ping = self._clock()
        self._send("WATCHDOG=1")
        return True

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def _send(self, message: str) -> None:
        if self.address is None:
            return
        kind = message.split("=", 1)[0]
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto(message.encode(), self.address)
        except OSError as error:
            self.failures += 1
            if kind not in self._failing:
                self._failing.add(kind)
                log.error("cannot tell systemd %s through NOTIFY_SOCKET %r: %s", kind, self.address, error)
            return
        if kind in self._failing:
            self._failing.discard(kind)
            log.info("systemd takes %s messages again", kind)


def _socket_address(value: str) -> str | bytes | None:
    """NOTIFY_SOCKET as a socket address: a path, or "@name" for an abstract socket."""
    if not value:
        return None
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    return value


def _watchdog_interval(environ: Mapping[str, str]) -> float | None:
    """WATCHDOG_USEC in seconds, if the watchdog is meant for this process (WATCHDOG_PID, when set)."""
    usec, pid = environ.get("WATCHDOG_USEC", ""), environ.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    try:
        interval = int(usec) / 1_000_000
    except ValueError:
        if usec:
            log.error("WATCHDOG_USEC=%r is not a number of microseconds: the watchdog is not pinged", usec)
        return None
    return interval if interval > 0 else None
