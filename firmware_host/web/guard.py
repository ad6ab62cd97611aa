"""The companion's doors: who may guess the PIN how often, and which Host names it answers to.

    guard = PinGuard()
    refusal = guard.refusal(client)      # None, or why this client may not try a PIN now
    guard.tried(client); ...; guard.right(client)   # a try is counted before the (slow) check

    app = HostCheck(app, allowed_host)   # ASGI: a request naming a foreign Host gets a 400

Wrong PINs are limited per client and in total. Per client (`CLIENT_TRIES` a `CLIENT_WINDOW_S`), so
that one device guessing never locks out the owner's. In total (`TOTAL_TRIES` an hour, from clients
that have not given the right PIN since the companion started), so that guessing from many addresses
stays slow: a four-digit PIN (10,000) takes 250 hours on average at 20 an hour. A client is an IPv4
address or an IPv6 /64 (a host has a whole /64 to choose addresses from).
"""
from __future__ import annotations

import collections
import ipaddress
import json
import socket
import time
from typing import Awaitable, Callable

CLIENT_TRIES, CLIENT_WINDOW_S = 5, 60.0
TOTAL_TRIES, TOTAL_WINDOW_S = 20, 3600.0
KNOWN_CLIENTS = 64          # clients remembered for having given the right PIN (the newest kept)


def client_key(host: str | None) -> str:
    """The client a wrong PIN is counted against: its IPv4 address, or its IPv6 /64."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class PinGuard:
    """Counts wrong PINs per client and in total; `clock` is injected for the tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._by_client: dict[str, collections.deque[float]] = {}
        self._total: collections.deque[float] = collections.deque()
        self._known: collections.OrderedDict[str, None] = collections.OrderedDict()

    def refusal(self, client: str) -> str | None:
        """Why `client` may not try a PIN now (None: it may)."""
        now = self.clock()
        self._forget(now)
        if len(self._by_client.get(client, ())) >= CLIENT_TRIES:
            return "too many wrong PINs: wait a minute"
        if len(self._total) >= TOTAL_TRIES and client not in self._known:
            wait_min = max(1, round((self._total[0] + TOTAL_WINDOW_S - now) / 60))
            return (f"too many wrong PINs from several devices: changes are locked for {wait_min} min, except on a "
                    "device that gave the right PIN before")
        return None

    def tried(self, client: str) -> float:
        """Count a try as wrong before it is checked (tries made at once count too); `right` takes it back."""
        now = self.clock()
        self._by_client.setdefault(client, collections.deque()).append(now)
        self._total.append(now)
        return now

    def right(self, client: str, tried_at: float) -> None:
        with_time = self._by_client.get(client)
        if with_time is not None and tried_at in with_time:
            with_time.remove(tried_at)
        if tried_at in self._total:
            self._total.remove(tried_at)
        self._known[client] = None
        self._known.move_to_end(client)
        while len(self._known) > KNOWN_CLIENTS:
            self._known.popitem(last=False)

    def _forget(self, now: float) -> None:
        while self._total and now - self._total[0] >= TOTAL_WINDOW_S:
            self._total.popleft()
        for client in list(self._by_client):
            times = self._by_client[client]
            while times and now - times[0] >= CLIENT_WINDOW_S:
                times.popleft()
            if not times:
                del self._by_client[client]


# == the Host header =================================================================================

def host_name(header: str) -> str | None:
    """The name or address of a Host header without its port ("[::1]:8080" -> "::1"); None when malformed."""
    header = header.strip().lower()
    if header.startswith("["):
        address, bracket, rest = header[1:].partition("]")
        return address if bracket and (not rest or rest[1:].isdigit() and rest[0] == ":") else None
    name, _, port = header.partition(":")
    name = name.removesuffix(".")              # "localhost." is the fully qualified "localhost"
    if not name or (port and not port.isdigit()):
        return None
    return name


class LocalAddresses:
    """Whether an address is one of this machine's, asked of the kernel (can a socket bind to it?),
    remembered for `TTL_S`: addresses come and go with the network (DHCP, Wi-Fi)."""

    TTL_S = 30.0
    KEPT = 256

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._answers: dict[str, tuple[bool, float]] = {}

    def __contains__(self, text: str) -> bool:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            return False
        if address.is_loopback:
            return True
        now = self.clock()
        known = self._answers.get(text)
        if known is not None and now - known[1] < self.TTL_S:
            return known[0]
        if len(self._answers) >= self.KEPT:
            self._answers.clear()
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            try:
                probe.bind((text, 0))
                answer = True
            except OSError:
                answer = False
        self._answers[text] = (answer, now)
        return answer


def served_names(configured: tuple[str, ...], listen_host: str) -> frozenset[str]:
    """The names the companion answers to: `localhost`, this machine's host name (and `NAME.local`,
    as mDNS gives it), the name it listens on, and `[web] hosts`."""
    hostname = socket.gethostname().lower()
    names = {"localhost", hostname, *(name.lower() for name in configured)}
    if "." not in hostname:
        names.add(f"{hostname}.local")
    try:
        ipaddress.ip_address(listen_host)
    except ValueError:
        names.add(listen_host.lower())
    return frozenset(names)


class HostCheck:
    """ASGI middleware: a request whose Host is neither a served name nor one of this machine's
    addresses gets a 400 (a page of another site reached through DNS rebinding names its own host)."""

    def __init__(self, app, names: frozenset[str], addresses: LocalAddresses | None = None) -> None:
        self.app, self.names, self.addresses = app, names, addresses or LocalAddresses()
        self.any = "*" in names

    def allowed(self, header: str) -> bool:
        name = host_name(header)
        return name is not None and (self.any or name in self.names or name in self.addresses)

    async def __call__(self, scope, receive: Callable[[], Awaitable], send: Callable[..., Awaitable]) -> None:
        if scope["type"] == "http" and not self.any:
            header = next((value.decode("latin-1") for key, value in scope["headers"] if key == b"host"), "")
            if not self.allowed(header):
                await _refuse_host(header, send)
                return
        await self.app(scope, receive, send)


async def _refuse_host(header: str, send: Callable[..., Awaitable]) -> None:
    body = json.dumps({"error": f"this companion does not answer to the host name {header[:100]!r}: add it to "
                                "[web] hosts of the configuration if it is this board's"}).encode()
    await send({"type": "http.response.start", "status": 400,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
