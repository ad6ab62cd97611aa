"""The events the sensing driver posts to the controller's queue: small frozen values.

Board events carry whole readings: an event only triggers, the reading it carries decides.
Locations are named as in `BoardReading.location_counts()`: `point:1`..`point:24`, `bar`, `off`,
`reserve`; `None` where a fault concerns the board as a whole.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from firmware_host.sensing.protocol import Hello
from firmware_host.sensing.reading import BoardReading


@dataclass(frozen=True, slots=True)
class BoardChanging:
    """The raw reading changed; posted at once on every change (a lift shows up here first)."""
    reading: BoardReading


@dataclass(frozen=True, slots=True)
class BoardStable:
    """The reading has not changed for the quiet time (default 300 ms): judge it."""
    reading: BoardReading


@dataclass(frozen=True, slots=True)
class BoardSettled:
    """The stable reading has now stood for the grace time (default 3 s): if it is wrong, call it an error."""
    reading: BoardReading


class FaultKind(enum.Enum):
    FLICKER = "flicker"          # a count changing faster than a hand can move checkers
    TOO_MANY = "too-many"        # more checkers of a colour than a side has
    UNREADABLE = "unreadable"    # the MCU reports no reading for the location's sensor


@dataclass(frozen=True, slots=True)
class SensorFault:
    """An impossible reading: no verdict is given while any fault is active."""
    location: str | None
    kind: FaultKind
    reason: str


@dataclass(frozen=True, slots=True)
class SensorFaultCleared:
    location: str | None
    kind: FaultKind


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The link works: the MCU answered with this hello (after opening the port, or after a silence)."""
    hello: Hello


@dataclass(frozen=True, slots=True)
class LinkLost:
    """The port is gone or cannot be used (unplugged, cannot be opened, an incompatible MCU)."""
    reason: str


@dataclass(frozen=True, slots=True)
class McuReset:
    """The MCU restarted (its boot nonce changed): its settings were resent and the board is read afresh."""
    hello: Hello


@dataclass(frozen=True, slots=True)
class LinkSilent:
    """The port is open but no frame came for this long (missed heartbeats)."""
    silent_for_s: float


@dataclass(frozen=True, slots=True)
class FramesDropped:
    """Corrupt frames were dropped (and a fresh snapshot requested); `total` counts all since start."""
    count: int
    reason: str
    total: int


@dataclass(frozen=True, slots=True)
class CommandFailed:
    """A command the MCU refused, or never acknowledged after every try."""
    command: str
    reason: str


@dataclass(frozen=True, slots=True)
class SelfTestResult:
    """The MCU's self-test: (location, what failed) for every failing channel."""
    failures: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> bool:
        return not self.failures


SensingEvent = (BoardChanging | BoardStable | BoardSettled | SensorFault | SensorFaultCleared | LinkUp | LinkLost
                | McuReset | LinkSilent | FramesDropped | CommandFailed | SelfTestResult)


def event_json(event: object) -> dict:
    """An event as a JSON-ready dict: {"event": name, ...fields}; readings in position-json form."""
    out: dict = {"event": type(event).__name__}
    for name in event.__dataclass_fields__:
        out[name] = _json_value(getattr(event, name))
    return out


def _json_value(value: object) -> object:
    if isinstance(value, BoardReading):
        return value.to_json()
    if isinstance(value, Hello):
        return {"protocol": value.protocol_version, "firmware": value.firmware, "board_id": value.board_id_hex,
                "boot_nonce": value.boot_nonce, "channels": value.channels, "scan_hz": value.scan_hz,
                "debounce_scans": value.debounce_scans, "snapshot_interval_ms": value.snapshot_interval_ms,
                "heartbeat_ms": value.heartbeat_ms}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value
