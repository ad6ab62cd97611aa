"""Serving the companion: uvicorn on a socket bound here, every connection bounded in time and number.

    sock = listen(host, port)          # PortBusy (one line) when something else listens there
    serve(app, sock)                   # until SIGINT/SIGTERM

A LAN is not a friendly place: one device can open a thousand connections and send half a request on
each. So, on top of uvicorn's keep-alive timeout and h11's head size limit:

- a request's head must arrive whole within `HEAD_TIMEOUT_S` of the connection (or of the previous
  response); the body is bounded in time by the application (`app.BODY_TIMEOUT_S`); a client that
  reads nothing of a response (an event stream) for `WRITE_STALL_S` once its buffers are full is dropped;
- one client (`guard.client_key`: an IPv4 address or an IPv6 /64) holds at most `CLIENT_CONNECTIONS`
  connections (a browser opens about six); a new one beyond that is closed at once;
- all clients together hold at most `TOTAL_CONNECTIONS`, well below the open-files limit (raised
  to its hard limit at start, up to `OPEN_FILES`): when full, the connection that has waited longest
  for its head is closed to make room, else the new one is;
- the log says each kind of trouble 5 times a minute and 60 lines a minute in all, then how many
  lines it left out.
"""
from __future__ import annotations

import asyncio
import errno
import collections
import logging
import resource
import socket
import time

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from firmware_host.web.guard import client_key

HEAD_TIMEOUT_S = 10.0
WRITE_STALL_S = 60.0         # a client that takes nothing of what is sent for this long is dropped
KEEP_ALIVE_S = 5
CLIENT_CONNECTIONS = 24
TOTAL_CONNECTIONS = 256
OPEN_FILES = 4096            # the soft limit asked for (systemd's default soft limit is 1,024)
FILES_KEPT_FREE = 128        # for the journal, the socket to the service, static files, the log
HEAD_BYTES = 16 * 1024       # h11's bound on a request's head
BACKLOG = 128
LOG_BURST, LOG_TOTAL, LOG_WINDOW_S = 5, 60, 60.0


class PortBusy(OSError):
    """The address to listen on is taken (or not this machine's), said in one line."""


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (as uvicorn binds it: SO_REUSEADDR, so a port in
    TIME_WAIT is free); `PortBusy` says why it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as error:
        raise PortBusy(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        why = ("another program listens there (an earlier demo or `tavli-board web` still running?)"
               if error.errno == errno.EADDRINUSE else error.strerror)
        raise PortBusy(f"cannot listen on {host}:{port}: {why}") from None
    sock.set_inheritable(False)
    return sock


def raise_open_files_limit() -> int:
    """The soft open-files limit raised towards `OPEN_FILES` (no further than the hard limit); the
    connections allowed in total, which leave `FILES_KEPT_FREE` of it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    return max(1, min(TOTAL_CONNECTIONS, soft - FILES_KEPT_FREE))


class ConnectionLimits:
    """The connections open, per client and waiting for a head, shared by one server's protocols."""

    def __init__(self, total: int, per_client: int = CLIENT_CONNECTIONS) -> None:
        self.total, self.per_client = total, per_client
        self.open = 0
        self.by_client: collections.Counter[str] = collections.Counter()
        self.waiting: dict[BoundedH11Protocol, float] = {}   # awaiting a head, oldest first
        self.refused = 0


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head and the limits of `ConnectionLimits`
    (`limits` is set on a subclass per server by `serve`)."""

    limits: ConnectionLimits

    def connection_made(self, transport: asyncio.Transport) -> None:   # type: ignore[override]
        super().connection_made(transport)
        limits = self.limits
        self._client_key = client_key(self.client[0] if self.client else None)
        self._head_timer: asyncio.TimerHandle | None = None
        self._stall_timer: asyncio.TimerHandle | None = None
        self._counted = False
        if limits.by_client[self._client_key] >= limits.per_client:
            limits.refused += 1
            transport.abort()
            return
        if limits.open >= limits.total:
            if not limits.waiting:
                limits.refused += 1
                transport.abort()
                return
            oldest = next(iter(limits.waiting))
            oldest.transport.abort()           # it has waited longest for its head: it makes room
            oldest._count_off()                # now, before this one is counted on
        limits.open += 1
        limits.by_client[self._client_key] += 1
        self._counted = True
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._count_off()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(WRITE_STALL_S, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _count_off(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        if not getattr(self, "_counted", False):
            return
        self._counted = False
        self._head_arrived()
        limits = self.limits
        limits.open -= 1
        limits.by_client[self._client_key] -= 1
        if limits.by_client[self._client_key] <= 0:
            del limits.by_client[self._client_key]

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:            # a request's head came whole
            self._head_arrived()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._counted:
            self._await_head()                 # the next request's head, after the keep-alive wait

    def _await_head(self) -> None:
        self._head_arrived()
        self._head_timer = self.loop.call_later(HEAD_TIMEOUT_S, self._head_too_late)
        self.limits.waiting[self] = time.monotonic()

    def _head_arrived(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self.limits.waiting.pop(self, None)

    def _head_too_late(self) -> None:
        self._head_timer = None
        self.limits.waiting.pop(self, None)
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()


class RateLimitedLog(logging.Filter):
    """Lets each message template through `LOG_BURST` times a `LOG_WINDOW_S`, and all of them together
    `LOG_TOTAL` times; the next line let through says how many were left out before it."""

    def __init__(self, clock=time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self._window = -LOG_WINDOW_S
        self._shown: collections.Counter = collections.Counter()    # (logger, template) -> lines shown
        self._left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        if now - self._window >= LOG_WINDOW_S:
            self._window = now
            self._shown.clear()
        key = (record.name, record.msg if isinstance(record.msg, str) else type(record.msg).__name__)
        if self._shown.total() >= LOG_TOTAL or self._shown[key] >= LOG_BURST:
            self._left_out += 1
            return False
        self._shown[key] += 1
        if self._left_out:
            record.msg = f"{record.getMessage()} (and {self._left_out} lines left out before it)"
            record.args = None
            self._left_out = 0
        return True


def configure_logging(level: int = logging.WARNING) -> None:
    """One handler on stderr for everything (uvicorn's, asyncio's, ours), rate limited."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("tavli-board web: %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RateLimitedLog())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def serve(app, sock: socket.socket) -> None:
    """Serve `app` on the listening `sock` until SIGINT or SIGTERM."""
    limits = ConnectionLimits(raise_open_files_limit())
    protocol = type("Protocol", (BoundedH11Protocol,), {"limits": limits})
    configure_logging()
    config = uvicorn.Config(app, http=protocol, ws="none", lifespan="on", log_config=None, access_log=False,
                            timeout_keep_alive=KEEP_ALIVE_S, h11_max_incomplete_event_size=HEAD_BYTES,
                            backlog=BACKLOG,
                            # Event streams never end by themselves: a stop waits for them this long.
                            timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])
