"""The imperative shell of the sensor link: one reader thread per link, and nothing else blocks.

`SerialLink` owns the thread. The thread opens the port (from config through
`serial.serial_for_url`, so a device, `socket://host:port` and `loop://` all work; by USB VID/PID
when no port is configured; exclusively locked), reads with a short timeout, feeds the bytes to its
handler (a `LinkSession`, or `sensor.BoardSensor` around one), ticks it every POLL_INTERVAL_S, and after any error
closes the port and reopens it with exponential backoff. Callers on other threads only enqueue
work with `submit`, so they never wait on the port.
"""
from __future__ import annotations

import array
import fcntl
import logging
import queue
import termios
import threading
from typing import Callable, Iterable, Protocol

import serial
import serial.tools.list_ports

from firmware_host.sensing.clock import Clock
from firmware_host.sensing.config import SerialSettings

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.02   # read timeout: how often the session and the stabiliser are ticked
READ_LIMIT = 4096        # bytes handed on at most per read: a flood of junk is taken in bounded chunks


class Backoff:
    """Waits before reopening a lost port: min, 2*min, 4*min ... up to max; reset once the link works."""

    def __init__(self, minimum_s: float, maximum_s: float) -> None:
        self.minimum_s = minimum_s
        self.maximum_s = maximum_s
        self._next = minimum_s

    def next_delay(self) -> float:
        delay = self._next
        self._next = min(self._next * 2, self.maximum_s)
        return delay

    def reset(self) -> None:
        self._next = self.minimum_s


def find_mcu_port(vid: int, pid: int, ports: Iterable | None = None) -> str | None:
    """The device of the first USB serial port with this VID/PID (by device name), or None."""
    ports = serial.tools.list_ports.comports() if ports is None else ports
    matches = sorted(port.device for port in ports if port.vid == vid and port.pid == pid)
    return matches[0] if matches else None


def open_port(url: str, settings: SerialSettings) -> serial.SerialBase:
    # exclusive applies to local devices (a flock); pyserial's URL handlers accept and ignore it.
    port = serial.serial_for_url(url, baudrate=settings.baudrate, timeout=POLL_INTERVAL_S,
                                 exclusive=settings.exclusive, do_not_open=True)
    port.open()
    return SocketPort(port) if url.startswith("socket://") else port


class SocketPort:
    """pyserial's `socket://` port, whose `in_waiting` is 1 whenever anything came: the link would read
    it one byte at a time (a turn of the session, the recorders and the trace per byte). Here it is
    the bytes the socket really holds; anything else passes through."""

    def __init__(self, port) -> None:
        self._port = port

    @property
    def in_waiting(self) -> int:
        waiting = array.array("i", [0])
        fcntl.ioctl(self._port.fileno(), termios.FIONREAD, waiting)
        return waiting[0]

    def __getattr__(self, name: str):
        return getattr(self._port, name)


class LinkHandler(Protocol):
    """What the link thread drives: a `LinkSession`, or a driver wrapping one."""

    def opened(self, now: float) -> None: ...
    def received(self, data: bytes, now: float) -> None: ...
    def tick(self, now: float) -> None: ...
    def lost(self, reason: str) -> None: ...


class SerialLink:
    def __init__(self, settings: SerialSettings, clock: Clock, handler: LinkHandler, *,
                 opener: Callable[[str, SerialSettings], serial.SerialBase] = open_port,
                 finder: Callable[[int, int], str | None] = find_mcu_port) -> None:
        self.settings = settings
        self.clock = clock
        self.handler = handler
        self.reopen_attempts = 0
        self._opener = opener
        self._finder = finder
        self._backoff = Backoff(settings.reconnect_min_s, settings.reconnect_max_s)
        self._work: queue.SimpleQueue[Callable[[float], None]] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: serial.SerialBase | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the link is already started")
        self._thread = threading.Thread(target=self._run, name="sensor-link", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stopping.set()
        port = self._port
        if port is not None and hasattr(port, "cancel_read"):
            try:
                port.cancel_read()
            except OSError:
                pass   # the link thread saw the stop and closed the port in between: nothing to wake
        if self._thread is not None:
            self._thread.join(timeout_s)

    def submit(self, work: Callable[[float], None]) -> None:
        """Run `work(now)` on the link thread at its next turn; returns at once."""
        self._work.put(work)

    def write(self, data: bytes) -> None:
        """For the handler, on the link thread: a failed write ends the port like a failed read."""
        if self._port is not None:
            self._port.write(data)

    def _run(self) -> None:
        while not self._stopping.is_set():
            url = self.settings.port or self._finder(self.settings.usb_vid, self.settings.usb_pid)
            if not url:
                self._fail(f"no sensor MCU found (USB {self.settings.usb_vid:04x}:{self.settings.usb_pid:04x})")
                continue
            try:
                self._port = self._opener(url, self.settings)
            except (serial.SerialException, OSError, ValueError) as error:
                self._fail(f"cannot open {url}: {error}")
                continue
            try:
                self._serve()
            except (serial.SerialException, OSError) as error:
                self._fail(f"{url}: {error}")
            except Exception as error:   # a bug above the port must not end the link thread for good
                log.exception("sensor link: unexpected error")
                self._fail(f"internal error: {error!r}")
            finally:
                self._close()

    def _serve(self) -> None:
        port = self._port
        self.handler.opened(self.clock.monotonic())
        while not self._stopping.is_set():
            data = port.read(min(port.in_waiting, READ_LIMIT) or 1)
            now = self.clock.monotonic()
            if data:
                self._backoff.reset()   # the peer is really there: a later loss starts from the shortest wait
                self.handler.received(data, now)
            self._run_submitted(now)
            self.handler.tick(now)

    def _run_submitted(self, now: float) -> None:
        while True:
            try:
                work = self._work.get_nowait()
            except queue.Empty:
                return
            work(now)

    def _fail(self, reason: str) -> None:
        self.handler.lost(reason)
        self._run_submitted(self.clock.monotonic())   # answered now (the link is down), not after reconnecting
        if not self._stopping.is_set():
            self.reopen_attempts += 1
            self._stopping.wait(self._backoff.next_delay())

    def _close(self) -> None:
        port, self._port = self._port, None
        try:
            port.close()
        except (serial.SerialException, OSError):
            pass   # the device is already gone; there is nothing left to release
