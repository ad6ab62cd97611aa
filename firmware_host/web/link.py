"""The web process's end of the companion socket (docs/companion-protocol.md), on asyncio.

    link = ServiceLink(path)
    task = asyncio.create_task(link.run())      # connects, and reconnects while the service restarts
    link.snapshot                               # the newest snapshot (None until one came)
    async for snapshot in link.subscribe(): ... # every snapshot from now on, for one browser, and
                                                # None each time the service goes away
    reply = await link.command({"command": "referee", "action": "enter"})

Each browser's stream has a small queue of its own; a browser that reads too slowly skips to the
newest snapshot (a snapshot is the whole state), so one slow phone never holds up the others.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from pathlib import Path
from typing import Any, AsyncIterator

log = logging.getLogger(__name__)

RETRY_S = 1.0            # between attempts to reach the service
STREAM_QUEUE = 4         # snapshots waiting for one browser
REPLY_TIMEOUT_S = 10.0
LINE_LIMIT = 4 * 1024 * 1024


class ServiceUnavailable(RuntimeError):
    """The service cannot be reached (not running, or restarting)."""


class ServiceLink:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.snapshot: dict[str, Any] | None = None
        self.connected = False
        self._writer: asyncio.StreamWriter | None = None
        self._subscribers: set[asyncio.Queue] = set()
        self._replies: dict[str, asyncio.Future] = {}
        self._ids = itertools.count(1)

    async def run(self) -> None:
        """Stay connected until cancelled; snapshots and replies are dispatched as they come."""
        while True:
            try:
                reader, self._writer = await asyncio.open_unix_connection(str(self.path), limit=LINE_LIMIT)
            except OSError:
                await asyncio.sleep(RETRY_S)
                continue
            self.connected = True
            log.info("connected to the service at %s", self.path)
            try:
                while line := await reader.readline():
                    self._dispatch(json.loads(line))
            except (OSError, ValueError, asyncio.LimitOverrunError) as error:
                log.warning("the service's socket failed: %s", error)
            finally:
                self.connected = False
                self._writer.close()
                self._writer = None
                self._tell(None)              # every browser hears that the service is gone
                for future in self._replies.values():
                    if not future.done():
                        future.set_exception(ServiceUnavailable("the service closed the connection"))
                self._replies.clear()
            await asyncio.sleep(RETRY_S)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") == "snapshot":
            self.snapshot = message
            self._tell(message)
        elif message.get("type") == "reply":
            future = self._replies.pop(str(message.get("id")), None)
            if future is not None and not future.done():
                future.set_result(message)

    def _tell(self, message: dict[str, Any] | None) -> None:
        for queue in self._subscribers:
            if queue.full():
                queue.get_nowait()            # this browser is behind: it skips to the newest
            queue.put_nowait(message)

    async def subscribe(self) -> AsyncIterator[dict[str, Any] | None]:
        """The newest snapshot at once (if any), then each new one, and None whenever the service goes
        away, until the caller stops."""
        queue: asyncio.Queue = asyncio.Queue(STREAM_QUEUE)
        if self.snapshot is not None:
            queue.put_nowait(self.snapshot)
        self._subscribers.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._subscribers.discard(queue)

    @property
    def streams(self) -> int:
        return len(self._subscribers)

    async def command(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one command; its reply (`ok`, and `error` when not). Raises `ServiceUnavailable`."""
        if self._writer is None:
            raise ServiceUnavailable("the referee service is not running (or restarting): try again in a moment")
        ident = f"web-{next(self._ids)}"
        future = asyncio.get_running_loop().create_future()
        self._replies[ident] = future
        self._writer.write(json.dumps({**request, "id": ident}).encode() + b"\n")
        try:
            await self._writer.drain()
            return await asyncio.wait_for(future, REPLY_TIMEOUT_S)
        except (OSError, asyncio.TimeoutError):
            raise ServiceUnavailable("the referee service did not answer") from None
        finally:
            self._replies.pop(ident, None)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
