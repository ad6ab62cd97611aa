"""Traces: everything the application was told, to replay it (docs/hil.md, "Traces").

    trace = TraceRecorder.for_config(config)                 # the ring: the last `window_s` seconds
    opener = trace.wrap_opener(opener)                       # the link's bytes, both ways; opens, losses
    post = trace.posting(events.put)                         # button events
    dice = trace.dice(SecretsDice())                         # every die rolled
    trace.follow(journal)                                    # checkpoints, to replay from
    trace.save(path)                                         # on demand (SIGUSR1 in the service)

A trace is JSON lines: a header, then one record per thing that happened, with `t`, the seconds on
the application's monotonic clock since the recorder started:

    {"trace": "tavli-board", "version": 1, "started": "2026-...Z", "complete": true, "settings": {...}}
    {"t": 0.0213, "open": "/dev/tavli-sensors"}
    {"t": 0.0215, "tx": "00 03 01 00 ..."}          bytes sent to the MCU, hex
    {"t": 0.0412, "rx": "00 0c 02 ..."}             bytes read from the MCU, hex
    {"t": 5.2001, "button": "DicePressed", "at": 5.1803}
    {"t": 5.2002, "die": 6}
    {"t": 9.5, "lost": "device disconnected"}
    {"t": 61.2, "checkpoint": {"journal": [...], "port": "/dev/...", "hello": "00 1c 01 ..."}}

Everything else the application does follows from these and the settings (the clock aside, which
a replay drives), so a replay gives the same verdicts and scenes. A checkpoint is the state the rest
follows from (`trace.follow(journal)`): the unfinished match's journal records, taken at the start
and whenever a game starts or dice are rolled, the open port (null while lost) and the MCU's hello
the link session is up with (null while it is not). The recorder keeps records in memory, dropping
those older than `window_s`, but only back to a checkpoint: a trace whose first records were dropped
(`"complete": false`) starts with one, and a replay resumes from it.

The ring stays bounded whatever the board does, for weeks on end: while the state is what the
journal resumes to (no write since a game start or a roll), a fresh checkpoint is taken every
`window_s / 4`, or sooner, once a quarter of LIMIT_BYTES has been recorded since the last one, so
an idle board's ring (the MCU's heartbeats and snapshots) stays at most one window long; and a
checkpoint older than two windows is dropped all the same (a board left for the night at a game's
end or in a correction then gives a trace that starts without one). The ring also never holds more
than LIMIT_BYTES (256 KiB) of records: past it the oldest go, up to the next checkpoint where there
is one, so that the trace still starts with one. Busy play fills that in about four minutes (the
MCU's frames, some 10-16 reads of a few bytes a second: bench/records/service-memory-2026-11-28.json),
which still reaches back past the last roll's checkpoint, and junk at line rate in seconds.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import struct
import threading
import time
from collections import deque
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from firmware_host.files import InputError, parse_json, read_text
from firmware_host.hw.dice import DiceSource
from firmware_host.hw.events import DiceButtonFreed, DiceButtonStuck, DiceHeld, DicePressed
from firmware_host.journal.events import Event, Kind
from firmware_host.sensing import protocol
from firmware_host.sensing.events import LinkLost, LinkSilent, LinkUp, McuReset

log = logging.getLogger(__name__)

FORMAT = "tavli-board"
VERSION = 1
WINDOW_S = 3600.0         # an idle hour; in play LIMIT_BYTES cuts the ring first
# A checkpoint this many windows old is dropped, with the records after it up to the next one.
CHECKPOINT_KEPT_WINDOWS = 3
# The ring's share of the service's memory (goal: under 40 MB on a Pi Zero 2 W; a busy hour of
# play would be some 6-9 MB as tuples, and the process holds more than the records count): the last
# minutes before a bug is reported, enough to replay it from the last roll.
LIMIT_BYTES = 2**18
# What a record kept as a tuple (not the link's bytes: `_packed`) costs in memory beside its bytes:
# the tuple, the float, the bytes object, the deque's slot.
RECORD_COST = 160
BUTTON_EVENTS = {cls.__name__: cls for cls in (DicePressed, DiceHeld, DiceButtonStuck, DiceButtonFreed)}
RECORD_KINDS = ("rx", "tx", "open", "lost", "button", "die", "checkpoint")
# Journal writes after which the application's state is what resuming the journal gives (after a
# play it is not: the press that commits a play also rolls the next dice, a moment later).
CHECKPOINT_KINDS = frozenset({Kind.GAME_STARTED, Kind.ROLL})


class TraceError(ValueError):
    """A trace file that cannot be read, named with the line at fault."""


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def settings_of(config) -> dict[str, Any]:
    """What a replay must know of the configuration: the match, the house rules, the sensor map
    and timings, the serial link's timeouts and the button's times."""
    sensors = config.sensing.sensors
    return {
        "match": {**dataclasses.asdict(config.match_rules), "sequence": list(config.match_rules.sequence)},
        "house_rules": {"general": dict(config.house_rules.general),
                        "per_game": {game: dict(options) for game, options in config.house_rules.per_game.items()}},
        "channels": list(sensors.channels.locations),
        "sensors": {name: getattr(sensors, name) for name in (
            "scan_hz", "debounce_scans", "snapshot_interval_ms", "heartbeat_ms", "silent_after_heartbeats",
            "quiet_ms", "grace_ms", "flicker_changes", "flicker_window_ms")},
        "serial": {name: getattr(config.sensing.serial, name) for name in (
            "reconnect_min_s", "reconnect_max_s", "ack_timeout_ms", "command_tries")},
        "button": {name: getattr(config.pins.button, name) for name in ("debounce_s", "hold_s", "stuck_s")},
    }


class TraceRecorder:
    def __init__(self, settings: dict[str, Any], *, window_s: float = WINDOW_S, resumed: bool = False,
                 clock: Callable[[], float] = time.monotonic, wall_clock: Callable[[], float] = time.time) -> None:
        """`resumed`: the application went on with a match from its journal (told in the header)."""
        self.settings = settings
        self.resumed = resumed
        self.window_s = window_s
        self._clock = clock
        self._origin = clock()
        self.started = _utc(wall_clock())
        self._records: deque[bytes | tuple[float, str, Any, Any]] = deque()   # `_packed`
        self._cost = 0            # of the records in the ring, in bytes (`_record_cost`)
        self._checkpoint_times: deque[float] = deque()    # of the checkpoints in the ring
        self._port: str | None = None       # the open port's url
        self._hello: bytes | None = None    # the hello the link session is up with, as the MCU sent it
        self._lock = threading.Lock()
        self.dropped = 0          # records older than the window, gone from the ring
        # The followed journal's unfinished match as a checkpoint would hold it, while the state is
        # what resuming the journal gives (`follow`); None when it is not, or nothing is followed.
        self._resumable: Callable[[], Sequence[Event]] | None = None
        self._last_checkpoint = float("-inf")
        self._cost_since_checkpoint = 0   # bytes recorded since the newest checkpoint

    @classmethod
    def for_config(cls, config, **options) -> TraceRecorder:
        return cls(settings_of(config), **options)

    # -- what happened (any thread) --------------------------------------------------------------

    def record(self, kind: str, value: Any, extra: Any = None, at: float | None = None) -> None:
        """One record; `at`: the application's clock time (default: now). Never raises."""
        now = (self._clock() if at is None else at) - self._origin
        with self._lock:
            record = _packed(now, kind, value, extra)
            self._records.append(record)
            cost = _record_cost(record)
            self._cost += cost
            self._cost_since_checkpoint += cost
            if kind in ("open", "lost"):
                self._port, self._hello = (value if kind == "open" else None), None
            if kind == "checkpoint":
                self._checkpoint_times.append(now)
                self._last_checkpoint = now
                self._cost_since_checkpoint = 0
            self._trim(now)
            if self._cost > LIMIT_BYTES:
                while self._cost > LIMIT_BYTES:
                    self._drop_first()
                while self._checkpoint_times and not _is_checkpoint(self._records[0]):
                    self._drop_first()   # a replay starts at a checkpoint: what is before it is no use
            due = (now - self._last_checkpoint >= self.window_s / 4
                   or self._cost_since_checkpoint >= LIMIT_BYTES / 4)
            resumable = self._resumable if due else None
        if resumable is not None:
            self.checkpoint(resumable())

    def _trim(self, now: float) -> None:
        """Drop records older than the window, but keep the newest checkpoint before them (a replay
        starts there) while it is less than CHECKPOINT_KEPT_WINDOWS windows old. Past that, the
        records up to the next checkpoint go with it (they cannot be replayed without it)."""
        records, checkpoints = self._records, self._checkpoint_times
        while records and now - _time(records[0]) > self.window_s:
            if _is_checkpoint(records[0]):
                newer_before_window = len(checkpoints) >= 2 and now - checkpoints[1] > self.window_s
                if not newer_before_window:
                    if now - _time(records[0]) <= CHECKPOINT_KEPT_WINDOWS * self.window_s:
                        return
                    self._drop_first()
                    while records and not _is_checkpoint(records[0]) and (
                            checkpoints or now - _time(records[0]) > self.window_s):
                        self._drop_first()
                    continue
            self._drop_first()

    def _drop_first(self) -> None:
        record = self._records.popleft()
        self._cost -= _record_cost(record)
        if _is_checkpoint(record):
            self._checkpoint_times.popleft()
        self.dropped += 1

    def checkpoint(self, events: Sequence[str], count: int | None = None) -> None:
        """The application's state now: the unfinished match's journal records (the first `count` of
        `events`, each as `_event_text` writes it; default all), the port and the hello. `events` is
        kept, not copied: the caller only ever appends to it, so checkpoints share one list."""
        with self._lock:
            link = (self._port, self._hello)
        self.record("checkpoint", (events, len(events) if count is None else count, *link))

    def follow(self, journal) -> None:
        """Checkpoints from `journal`: one now, then after every write that starts a game or rolls dice
        (not one that ends a game: the journal cannot resume a game over; the next game's start will do).

        The match's records are gathered as they are written, not read back at each checkpoint: an
        hour of checkpoints then costs a few numbers each, not a copy of the match each. They are
        kept as their JSON text, a fifth of what a play's record holds as objects."""
        unfinished = journal.unfinished_match_events()
        match_id = unfinished[0].match_id if unfinished else None
        match_events = [_event_text(event) for event in unfinished]

        def written(events: list[Event]) -> None:
            nonlocal match_events, match_id
            for event in events:
                if event.kind is Kind.MATCH_STARTED:
                    match_events = [_event_text(event)]   # a new list: the last match's checkpoints keep theirs
                    match_id = event.match_id
                elif match_events and event.match_id == match_id:
                    match_events.append(_event_text(event))
            kinds = {event.kind for event in events}
            resumable = bool(kinds & CHECKPOINT_KINDS) and Kind.GAME_ENDED not in kinds
            self._resumable = (lambda: match_events) if resumable else None
            if resumable:
                self.checkpoint(match_events)
        self._resumable = lambda: match_events
        self.checkpoint(match_events)
        journal.listeners.append(written)

    def wrap_opener(self, opener: Callable) -> Callable:
        """A port opener (as `sensing.link.open_port`) whose ports are traced."""
        def open_traced(url, settings):
            port = opener(url, settings)
            self.record("open", str(url))
            return TracedPort(port, self)
        return open_traced

    def posting(self, post: Callable[[object], None]) -> Callable[[object], None]:
        """`post` for the drivers: button events are recorded, then everything is posted."""
        def traced_post(event: object) -> None:
            if type(event).__name__ in BUTTON_EVENTS:
                self.record("button", type(event).__name__, event.at - self._origin)
            elif isinstance(event, (LinkUp, McuReset, LinkLost, LinkSilent)):
                with self._lock:
                    self._hello = protocol.encode(event.hello) if isinstance(event, (LinkUp, McuReset)) else None
            post(event)
        return traced_post

    def dice(self, source: DiceSource) -> DiceSource:
        return RecordedDice(source, self)

    # -- the trace ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Records in the ring."""
        return len(self._records)

    @property
    def size_bytes(self) -> int:
        """About the memory the ring's records hold (`_record_cost` each)."""
        return self._cost

    @property
    def complete(self) -> bool:
        return self.dropped == 0

    def lines(self) -> Iterator[str]:
        with self._lock:
            records = list(self._records)
        yield json.dumps({"trace": FORMAT, "version": VERSION, "started": self.started, "complete": self.complete,
                          "resumed": self.resumed, "settings": self.settings})
        for record in records:
            yield json.dumps(_record_json(_unpacked(record)))

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".part")
        with temporary.open("w", encoding="utf-8") as out:
            for line in self.lines():
                out.write(line + "\n")
        temporary.replace(path)
        return path

    def save_in(self, folder: Path) -> Path:
        """Save as `trace-<UTC time>.jsonl` in `folder`; returns the file."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        return self.save(Path(folder) / f"trace-{stamp}.jsonl")

    def save_soon(self, folder: Path) -> threading.Thread:
        """`save_in` on a thread of its own (safe from a signal handler: the records' lock may be
        held by the interrupted thread); the file's name is logged."""
        def save() -> None:
            try:
                log.warning("trace saved: %s (%d records)", self.save_in(folder), len(self._records))
            except OSError as error:
                log.error("the trace cannot be saved in %s: %s", folder, error)
        thread = threading.Thread(target=save, name="trace-save", daemon=True)
        thread.start()
        return thread


# The link's bytes, nearly all of a working board's records, are kept as one bytes object each, the
# time and the direction packed before them: a tuple, a float and a bytes object cost three times
# as much (busy play reads a few bytes at a time, 10-16 reads a second).
_LINK = struct.Struct("<dB")
_LINK_KINDS = ("rx", "tx")
# What a packed record costs in memory beside its length: the bytes object's header, the deque's slot.
PACKED_COST = 48


def _packed(t: float, kind: str, value: Any, extra: Any) -> bytes | tuple[float, str, Any, Any]:
    if kind in _LINK_KINDS:
        return _LINK.pack(t, _LINK_KINDS.index(kind)) + value
    return t, kind, value, extra


def _unpacked(record: bytes | tuple[float, str, Any, Any]) -> tuple[float, str, Any, Any]:
    if type(record) is bytes:
        t, direction = _LINK.unpack_from(record)
        return t, _LINK_KINDS[direction], record[_LINK.size:], None
    return record


def _time(record: bytes | tuple[float, str, Any, Any]) -> float:
    return _LINK.unpack_from(record)[0] if type(record) is bytes else record[0]


def _is_checkpoint(record: bytes | tuple[float, str, Any, Any]) -> bool:
    return type(record) is tuple and record[1] == "checkpoint"


def _record_cost(record: bytes | tuple[float, str, Any, Any]) -> int:
    """About the memory a record holds (a checkpoint's events are shared with the journal's follower)."""
    if type(record) is bytes:
        return PACKED_COST + len(record)
    value = record[2]
    return RECORD_COST + (len(value) if isinstance(value, bytes) else 0)


def _record_json(record: tuple[float, str, Any, Any]) -> dict[str, Any]:
    t, kind, value, extra = record
    if kind in ("rx", "tx"):
        value = value.hex(" ")
    elif kind == "checkpoint":
        events, count, port, hello = value
        value = {"journal": [json.loads(text) for text in events[:count]], "port": port,
                 "hello": None if hello is None else hello.hex(" ")}
    item: dict[str, Any] = {"t": round(t, 6), kind: value}
    if kind == "button":
        item["at"] = round(extra, 6)
    return item


def _event_text(event: Event) -> str:
    return json.dumps({"seq": event.seq, "match": event.match_id, "game": event.game, "kind": event.kind.value,
                       "at": event.at, "data": dict(event.data)})


class TracedPort:
    """A pyserial port whose bytes both ways, and whose failure, go into a trace."""

    def __init__(self, port, trace: TraceRecorder) -> None:
        self._port = port
        self._trace = trace

    @property
    def in_waiting(self) -> int:
        return self._failing(lambda: self._port.in_waiting)

    def read(self, size: int = 1) -> bytes:
        data = self._failing(lambda: self._port.read(size))
        if data:
            self._trace.record("rx", bytes(data))
        return data

    def write(self, data: bytes):
        self._trace.record("tx", bytes(data))
        return self._failing(lambda: self._port.write(data))

    def _failing(self, use: Callable[[], Any]) -> Any:
        """`use()`; a failure (the device gone) is recorded as the port lost, and raised."""
        try:
            return use()
        except Exception as error:
            self._trace.record("lost", str(error))
            raise

    def __getattr__(self, name: str):
        return getattr(self._port, name)


class RecordedDice(DiceSource):
    def __init__(self, source: DiceSource, trace: TraceRecorder) -> None:
        self._source = source
        self._trace = trace

    def roll_die(self) -> int:
        value = self._source.roll_die()
        self._trace.record("die", value)
        return value

    def ready(self) -> bool:
        return self._source.ready()


# -- reading a trace ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Record:
    t: float
    kind: str            # one of RECORD_KINDS
    value: Any           # bytes for rx/tx, the url, the reason, the event's name, the die
    at: float | None = None   # button: when it happened


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    journal: tuple[Event, ...]     # the unfinished match's records (none: a new match)
    port: str | None               # the open port (None: lost, or not yet opened)
    hello: bytes | None            # the MCU's hello the link session was up with (None: not up)


@dataclasses.dataclass(frozen=True)
class Trace:
    header: dict[str, Any]
    records: tuple[Record, ...]

    @property
    def settings(self) -> dict[str, Any]:
        return self.header["settings"]

    @property
    def checkpoint(self) -> Checkpoint | None:
        """The state the trace starts from, if it starts with a checkpoint."""
        first = self.records[0] if self.records else None
        return first.value if first is not None and first.kind == "checkpoint" else None

    @property
    def dice(self) -> list[int]:
        return [record.value for record in self.records if record.kind == "die"]


def load_trace(path: Path) -> Trace:
    try:
        text = read_text(path)
    except InputError as error:
        raise TraceError(str(error)) from None
    return parse_trace(text.splitlines(), str(path))


def parse_trace(lines: Iterable[str], name: str = "trace") -> Trace:
    header = None
    records: list[Record] = []
    last_t = float("-inf")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        try:
            item = parse_json(line, where)
        except InputError as error:
            raise TraceError(str(error)) from None
        if not isinstance(item, dict):
            raise TraceError(f"{where}: expected a JSON object, got {type(item).__name__}")
        if header is None:
            header = _header(item, where)
            continue
        record = _record(item, where)
        if record.t < last_t:
            raise TraceError(f"{where}: t {record.t} is before the previous record's {last_t}; "
                             "records must be in time order")
        last_t = record.t
        records.append(record)
    if header is None:
        raise TraceError(f"{name}: empty: a trace starts with its header line")
    return Trace(header, tuple(records))


def _header(item: dict, where: str) -> dict:
    if item.get("trace") != FORMAT:
        raise TraceError(f"{where}: not a tavli-board trace (the first line must be its header, "
                         f'with "trace": "{FORMAT}")')
    if item.get("version") != VERSION:
        raise TraceError(f"{where}: trace version {item.get('version')!r}; this program reads version {VERSION}")
    settings = item.get("settings")
    missing = [key for key in ("match", "house_rules", "channels", "sensors", "serial", "button")
               if not isinstance(settings, dict) or key not in settings]
    if missing:
        raise TraceError(f"{where}: the header's settings lack {', '.join(missing)}")
    return item


def _record(item: dict, where: str) -> Record:
    t = item.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise TraceError(f"{where}: 't' must be a number of seconds, got {t!r}")
    kinds = [kind for kind in RECORD_KINDS if kind in item]
    if len(kinds) != 1:
        raise TraceError(f"{where}: a record has exactly one of {', '.join(RECORD_KINDS)}; got {sorted(item)}")
    kind = kinds[0]
    value = item[kind]
    if kind in ("rx", "tx"):
        try:
            value = bytes.fromhex(value)
        except (TypeError, ValueError):
            raise TraceError(f"{where}: '{kind}' must be bytes in hex (\"00 0c 02\"), got {value!r}") from None
    elif kind == "die":
        if isinstance(value, bool) or value not in range(1, 7):
            raise TraceError(f"{where}: 'die' must be 1..6, got {value!r}")
    elif kind == "checkpoint":
        value = _checkpoint(value, where)
    elif kind == "button":
        if value not in BUTTON_EVENTS:
            raise TraceError(f"{where}: unknown button event {value!r}; known: {', '.join(BUTTON_EVENTS)}")
        at = item.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            raise TraceError(f"{where}: a button record needs 'at', the seconds it happened, got {at!r}")
        return Record(float(t), kind, value, float(at))
    elif not isinstance(value, str):
        raise TraceError(f"{where}: '{kind}' must be a string, got {value!r}")
    return Record(float(t), kind, value)


def _checkpoint(value: Any, where: str) -> Checkpoint:
    try:
        journal = tuple(Event(item["seq"], item["match"], item["game"], Kind(item["kind"]), item["at"], item["data"])
                        for item in value["journal"])
        port, hello = value["port"], value["hello"]
        if not (port is None or isinstance(port, str)) or (port is None and hello is not None):
            raise ValueError("'port' is the open port's name or null (then 'hello' is null too)")
        hello = None if hello is None else bytes.fromhex(hello)
    except (TypeError, KeyError, ValueError) as error:
        raise TraceError(f"{where}: a checkpoint holds 'journal' (the match's records: seq, match, game, kind, "
                         f"at, data), 'port' and 'hello' (hex bytes or null): {error}") from None
    return Checkpoint(journal, port, hello)
