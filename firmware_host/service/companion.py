"""The web companion's side in the service: state snapshots out, a few checked commands in, over a
Unix socket in the service's runtime directory (docs/companion-protocol.md).

    companion = open_companion(config, loop)       # the socket, its thread, and the loop's observer
                                                   # (a snapshot after every change, on the loop's thread)
    ...
    companion.close()

The referee never waits on a client. The loop's observer builds a snapshot (plain data, some tens
of microseconds) only when a client is connected and something it shows changed, and hands it to
the socket's thread, which works out why an illegal board is illegal, encodes the snapshot once and
appends it to each client's bounded queue (`QUEUE_LIMIT` messages; the oldest is dropped: a
snapshot is the whole state, so a slow client only skips to the newest). The socket thread writes with non-blocking sends and drops a
client whose unsent bytes pass `BACKLOG_LIMIT`, or that sends a line longer than `LINE_LIMIT`.

Commands are checked on the socket thread (their shape; a new match's rules by the config parser)
and done on the loop's thread (`EventLoop.call_soon`), where the controller is owned; each gets one
reply. Each is one of the controller's commands by name (`new_match`, `apply_settings`,
`referee_action`): the companion never writes the controller's attributes nor posts its events.
"""
from __future__ import annotations

import collections
import json
import logging
import os
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from firmware_host.app import EventLoop
from firmware_host.config import BUILT_IN, Config, ConfigError, load_config, parse_config
from firmware_host.hw.boardfile import BoardFileError, read_board_file
from firmware_host.controller import Controller
from firmware_host.controller.controller import CommandRefused
from firmware_host.controller.view import GameView
from firmware_host.sensing.events import (FramesDropped, LinkLost, LinkSilent, LinkUp, McuReset,
                                          SelfTestResult, SensorFault, event_json)
from firmware_host.service.status import status_line
from firmware_host.service.verdict_words import verdict_words

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
QUEUE_LIMIT = 8                  # messages waiting per client; the oldest goes first
BACKLOG_LIMIT = 1 << 20          # unsent bytes of a client before it is dropped
LINE_LIMIT = 64 * 1024           # the longest command line
FAULTS_KEPT = 50                 # the faults the snapshot lists, newest last
REFEREE_ACTIONS = ("enter", "next", "leave")
# What `apply_settings` changes while the service runs; anything else needs a restart.
LIVE_SETTINGS = ("match.", "house_rules.", "leds.brightness", "leds.palette", "web.pin")


class CommandError(ValueError):
    """A command that cannot be done, with the reason in words."""


# == snapshots ========================================================================================

@dataclass
class LinkFacts:
    """What the snapshot tells of the sensor link, gathered from the loop's events."""

    up: bool = False
    hello: dict | None = None
    selftest: dict | None = None
    frames_dropped: int = 0
    faults: collections.deque = field(default_factory=lambda: collections.deque(maxlen=FAULTS_KEPT))

    def note(self, event: object) -> None:
        if isinstance(event, (LinkUp, McuReset)):
            self.up, self.hello = True, event_json(event)["hello"]
        elif isinstance(event, (LinkLost, LinkSilent)):
            self.up = False
        elif isinstance(event, SelfTestResult):
            self.selftest = {"passed": event.passed, "failures": [list(failure) for failure in event.failures]}
        elif isinstance(event, FramesDropped):
            self.frames_dropped = event.total
        if isinstance(event, (LinkLost, LinkSilent, McuReset, SensorFault, FramesDropped)):
            self.faults.append({"at": round(time.time(), 3), **event_json(event)})


def snapshot(view: GameView, link: LinkFacts, palette: str) -> dict[str, Any]:
    """Everything the companion shows, as JSON-ready data (the snapshot of docs/companion-protocol.md):
    the view's facts, its words, and the link's."""
    data = view.to_json()
    data["faults"]["log"] = list(link.faults)
    return {"type": "snapshot", **data, "status": status_line(view), "palette": palette,
            "verdict": verdict_words(view),
            "link": {"up": link.up, "hello": link.hello, "selftest": link.selftest, "frames_dropped": link.frames_dropped}}


# == commands ============================================================================================

@dataclass(frozen=True)
class Command:
    """A checked command: `name`, its arguments, and the id the client gave (echoed in the reply)."""

    name: str
    id: Any = None
    action: str | None = None           # referee
    config: Config | None = None        # new_match: the match rules and house rules, parsed


def parse_command(line: bytes, base_document: Callable[[], dict]) -> Command:
    """One line from a client as a `Command`; `CommandError` says what is wrong with it.
    `base_document()`: the service's config document, over which a new match's tables are checked."""
    try:
        request = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"not a JSON object: {error}") from None
    if not isinstance(request, dict):
        raise CommandError("a command is a JSON object such as {\"command\": \"snapshot\"}")
    name, ident = request.get("command"), request.get("id")
    if not isinstance(ident, (str, int, type(None))) or isinstance(ident, bool):
        raise CommandError("id: a string or an integer")
    known = {"snapshot": (), "referee": ("action",), "new_match": ("match", "house_rules"), "apply_settings": (),
             "self_test": ()}
    if name not in known:
        raise CommandError(f"unknown command {name!r}; allowed: {', '.join(known)}")
    extra = sorted(set(request) - {"command", "id", *known[name]})
    if extra:
        raise CommandError(f"{name}: unknown key {extra[0]!r}; allowed: {', '.join(known[name]) or 'none'}")
    if name == "referee":
        action = request.get("action")
        if action not in REFEREE_ACTIONS:
            raise CommandError(f"referee: action {action!r} is not valid; allowed: {', '.join(REFEREE_ACTIONS)}")
        return Command(name, ident, action=action)
    if name == "new_match":
        document = base_document()
        for table in ("match", "house_rules"):
            value = request.get(table, {})
            if not isinstance(value, dict):
                raise CommandError(f"new_match: {table} must be an object (a TOML table)")
            seats = sorted({"white", "black"} & set(value)) if table == "match" else []
            if seats:
                raise CommandError(f"new_match: match.{seats[0]} is a setting, not a match's: who plays a side "
                                   "changes with the settings (apply_settings), from that side's next roll")
            document[table] = value
        try:
            return Command(name, ident, config=parse_config(document, "new match"))
        except ConfigError as error:
            raise CommandError(str(error)) from None
    return Command(name, ident)


class Commands:
    """Does checked commands on the loop's thread. `reload()`: the configuration as its file now says
    (raises `ConfigError`); `restart()`: end the service so that systemd starts it again (None: the
    settings that need a restart wait for the next start); `self_test()`: ask the sensor MCU for its
    self-test (the result comes back as a `SelfTestResult` event, in the next snapshots)."""

    def __init__(self, loop: EventLoop, config: Config, reload: Callable[[], Config] | None = None,
                 restart: Callable[[], None] | None = None, self_test: Callable[[], None] | None = None) -> None:
        self.loop, self.config, self.reload, self.restart, self.self_test = loop, config, reload, restart, self_test

    def run(self, command: Command) -> dict[str, Any]:
        controller = self.loop.controller
        now = self.loop.clock.monotonic()
        if command.name == "snapshot":
            return {}
        if command.name == "referee":
            try:
                controller.referee_action(command.action, now)
            except CommandRefused as error:
                raise CommandError(str(error)) from None
            return {"state": controller.view().state.value}
        if command.name == "new_match":
            return self._new_match(controller, command.config, now)
        if command.name == "self_test":
            if self.self_test is None:
                raise CommandError("this service has no sensor MCU to test")
            self.self_test()
            return {"requested": True}
        return self._apply_settings(controller)

    def _new_match(self, controller: Controller, config: Config, now: float) -> dict[str, Any]:
        try:
            controller.new_match(config.match_rules, config.rules_for, now)
        except CommandRefused as error:
            raise CommandError(f"{error} (now: {status_line(controller.view())})") from None
        return {"state": controller.view().state.value, "sequence": list(config.match_rules.sequence),
                "target": config.match_rules.target}

    def _apply_settings(self, controller: Controller) -> dict[str, Any]:
        if self.reload is None:
            raise CommandError("this service has no configuration file to read settings from")
        try:
            new = self.reload()
        except ConfigError as error:
            raise CommandError(str(error)) from None
        old_values = {setting.key: setting.value for setting in self.config.settings()}
        changed = sorted(setting.key for setting in new.settings() if old_values.get(setting.key) != setting.value)
        controller.apply_settings(new.match_rules, new.rules_for, new.bots)
        self.loop.use_leds(new.leds)
        self.config = new
        restart = [key for key in changed if not key.startswith(LIVE_SETTINGS)]
        if restart and self.restart is not None:
            log.info("settings changed that need a restart: %s", ", ".join(restart))
            self.restart()
        return {"changed": changed, "restart": restart, "restarting": bool(restart and self.restart)}


# == the socket ============================================================================================

class _Client:
    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.queue: collections.deque[bytes] = collections.deque(maxlen=QUEUE_LIMIT)
        self.unsent = b""
        self.received = b""
        self.dropped = 0     # messages that fell off the queue's far end


class Companion:
    """Serves snapshots and commands on the Unix socket at `config.web.socket`."""

    def __init__(self, config: Config, loop: EventLoop, *, reload: Callable[[], Config] | None = None,
                 restart: Callable[[], None] | None = None, self_test: Callable[[], None] | None = None,
                 document: Callable[[], dict] | None = None) -> None:
        """`document()`: the config as parsed TOML (a new match's tables are checked laid over it)."""
        self.loop = loop
        self.commands = Commands(loop, config, reload, restart, self_test)
        self.path = Path(config.web.socket)
        self.link = LinkFacts()
        self._document = document or dict
        self._clients: dict[int, _Client] = {}
        self._lock = threading.Lock()
        self._message: bytes | None = None       # the last snapshot, encoded
        # The newest snapshot not yet encoded (the loop's thread appends, the socket's thread takes).
        self._pending: collections.deque = collections.deque(maxlen=1)
        self._key: tuple | None = None
        self._sequence = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() or self.path.is_symlink():
            if _answers(self.path):
                raise OSError(f"another service already answers on {self.path}")
            self.path.unlink()                   # a socket left by a killed service
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o660)               # the web process runs as the service's group
        self._listener.listen(8)
        self._listener.setblocking(False)
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, "accept")
        self._selector.register(self._wake_read, selectors.EVENT_READ, "wake")
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="companion", daemon=True)
        self._thread.start()

    @property
    def clients(self) -> int:
        return len(self._clients)

    # -- the loop's thread --------------------------------------------------------------------------

    def observe(self, view: GameView, event: object) -> None:
        """The loop's observer: note link facts; publish a snapshot when a client listens and it changed.
        Nothing it does may end the loop (observers run unguarded there): a failure is logged."""
        try:
            self._observe(view, event)
        except Exception:
            log.exception("companion: the snapshot after %r failed", event)

    def _observe(self, view: GameView, event: object) -> None:
        self.link.note(event)
        if not self._clients:
            self._key = None                     # a client connecting later gets a fresh one
            return
        key = (view, self.link.up, self.link.hello, len(self.link.faults), self.link.selftest, id(self.commands.config))
        if key == self._key:
            return
        self._key = key
        self.publish(snapshot(view, self.link, self.commands.config.leds.palette))

    def publish(self, data: dict[str, Any]) -> None:
        """Hand a snapshot to the socket's thread, which encodes it once and queues it for every client;
        only the newest waiting is kept."""
        self._sequence += 1
        self._pending.append({**data, "seq": self._sequence, "protocol": PROTOCOL_VERSION})
        self._wake()

    # -- any thread -----------------------------------------------------------------------------------

    def close(self) -> None:
        self._closed.set()
        self._wake()
        self._thread.join(2.0)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except (BlockingIOError, OSError):
            pass   # a wake-up is already waiting

    # -- the socket thread ------------------------------------------------------------------------------

    def _serve(self) -> None:
        try:
            while not self._closed.is_set():
                for key, mask in self._selector.select(timeout=1.0):
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wake":
                        self._drain_wake()
                        self._send_pending()
                    else:
                        client = key.data
                        if mask & selectors.EVENT_READ:
                            self._read(client)
                        if mask & selectors.EVENT_WRITE and client.connection.fileno() in self._clients:
                            self._write(client)
                self._arm_writers()
        finally:
            for client in list(self._clients.values()):
                self._write(client)   # what the socket takes at once: a reply to the command that stopped us
                self._drop(client, "the service is stopping")
            self._selector.close()
            self._listener.close()
            self._wake_read.close()
            self._wake_write.close()

    def _accept(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except BlockingIOError:
            return
        connection.setblocking(False)
        client = _Client(connection)
        with self._lock:
            self._clients[connection.fileno()] = client
        self._selector.register(connection, selectors.EVENT_READ, client)
        self._hello(client)

    def _hello(self, client: _Client) -> None:
        """A new client hears the newest snapshot at once; with none yet, the loop is asked for one."""
        if self._message is not None and self._key is not None:
            client.queue.append(self._message)
        else:
            self.loop.call_soon(lambda: self.observe(self.loop.controller.view(), None))

    def _send_pending(self) -> None:
        try:
            data = self._pending.popleft()
        except IndexError:
            return
        message = _encode(data)
        self._message = message
        with self._lock:
            for client in self._clients.values():
                if len(client.queue) == client.queue.maxlen:
                    client.dropped += 1
                client.queue.append(message)

    def _drain_wake(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _arm_writers(self) -> None:
        for client in list(self._clients.values()):
            wants = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.queue or client.unsent else 0)
            try:
                self._selector.modify(client.connection, wants, client)
            except (KeyError, ValueError):
                pass

    def _read(self, client: _Client) -> None:
        try:
            data = client.connection.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(client, "closed by the client")
            return
        client.received += data
        while b"\n" in client.received:
            line, client.received = client.received.split(b"\n", 1)
            if len(line) > LINE_LIMIT:
                break
            if line.strip():
                self._command(client, line)
        else:
            if len(client.received) <= LINE_LIMIT:
                return
        self._reply(client, None, error=f"a command line is longer than {LINE_LIMIT} bytes")
        self._write(client)
        self._drop(client, "sent a line too long")

    def _command(self, client: _Client, line: bytes) -> None:
        try:
            command = parse_command(line, self._document)
        except CommandError as error:
            self._reply(client, _id_of(line), error=str(error))
            return

        def on_loop() -> None:
            try:
                self._reply(client, command.id, command=command.name, **self.commands.run(command))
            except CommandError as error:
                self._reply(client, command.id, command=command.name, error=str(error))
            except Exception as error:   # a command must not end the loop; the client hears it failed
                log.exception("companion command %s failed", command.name)
                self._reply(client, command.id, command=command.name, error=f"failed: {error}")
            if command.name == "snapshot":
                self._key = None
                self.observe(self.loop.controller.view(), None)
        self.loop.call_soon(on_loop)

    def _reply(self, client: _Client, ident: Any, *, error: str | None = None, **result: Any) -> None:
        reply = {"type": "reply", "id": ident, "ok": error is None, **result}
        if error is not None:
            reply["error"] = error
        client.queue.append(_encode(reply))
        self._wake()

    def _write(self, client: _Client) -> None:
        while True:
            if not client.unsent:
                try:
                    client.unsent = client.queue.popleft()
                except IndexError:
                    return
            try:
                sent = client.connection.send(client.unsent)
            except BlockingIOError:
                break
            except OSError:
                self._drop(client, "gone")
                return
            client.unsent = client.unsent[sent:]
        if len(client.unsent) + sum(map(len, client.queue)) > BACKLOG_LIMIT:
            self._drop(client, "reads too slowly")

    def _drop(self, client: _Client, why: str) -> None:
        with self._lock:
            self._clients.pop(client.connection.fileno(), None)
        try:
            self._selector.unregister(client.connection)
        except (KeyError, ValueError):
            pass
        client.connection.close()
        log.info("companion client dropped: %s", why)


def open_companion(config: Config, loop: EventLoop, *, restart: Callable[[], None] | None = None,
                   reload: Callable[[], Config] | None = None,
                   self_test: Callable[[], None] | None = None) -> Companion | None:
    """The companion of `loop` at `config.web.socket`, told every change; None (logged) when the socket
    cannot be opened: the referee goes on without it. Settings are re-read from the config file
    (`reload`, by default `load_config` of the file the config came from; none for the built-in one)."""
    source = None if config.source == BUILT_IN else Path(config.source)
    if reload is None and source is not None:
        reload = lambda: load_config(source)   # noqa: E731 (a one-line default)

    def document() -> dict:
        try:
            return read_board_file(source) if source is not None else {}
        except BoardFileError:
            return {}   # a file broken since the start: a new match is checked over the defaults

    try:
        companion = Companion(config, loop, reload=reload, restart=restart, self_test=self_test, document=document)
    except OSError as error:
        log.error("web companion: cannot open its socket %s: %s", config.web.socket, error)
        return None
    loop.observers.append(companion.observe)
    return companion


def _answers(path: Path) -> bool:
    """Whether a live service listens on the socket at `path` (one left by a killed service does not)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _encode(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


def _id_of(line: bytes) -> Any:
    try:
        ident = json.loads(line).get("id")
    except (ValueError, AttributeError):
        return None
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
