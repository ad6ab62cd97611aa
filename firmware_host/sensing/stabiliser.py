"""Raw readings -> board events, in injected time. Pure: no I/O, no clock of its own.

`feed(reading, now)` for every snapshot and `tick(now)` regularly (the link thread does both);
each returns the events due, in order:

- `BoardChanging(reading)` at once on every change, so a lifted checker is seen without waiting;
- `BoardStable(reading)` once the reading has not changed for `quiet_s`;
- `BoardSettled(reading)` once it has not changed for `grace_s`: the time after which a wrong
  board may be called an error;
- `SensorFault` / `SensorFaultCleared` for readings no hand can produce. While any fault is active
  the board is never stable, so a faulty reading never reaches a verdict; a reading with more
  checkers of a colour than a side has is not even passed on as changing (it would be judged as a
  lift).
"""
from __future__ import annotations

from collections import deque

from firmware_host.sensing.channels import UNUSED
from firmware_host.sensing.config import SensorSettings
from firmware_host.sensing.events import (BoardChanging, BoardSettled, BoardStable, FaultKind, SensorFault,
                                          SensorFaultCleared)
from firmware_host.sensing.reading import COLOURS, BoardReading

CHECKERS_PER_SIDE = 15   # every game of the Tavli family is played with 15 checkers a side

FaultKey = tuple[str | None, FaultKind]


class Stabiliser:
    def __init__(self, quiet_s: float = 0.3, grace_s: float = 3.0,
                 flicker_changes: int = 6, flicker_window_s: float = 1.0, colour_by: str = "mass") -> None:
        """`colour_by`: "mass" sensors count each colour, so each colour's total is checked; "magnet"
        sensors report a point's count in its bottom checker's colour (a pinned point's in the pinned
        one's), so only the board's total is."""
        if grace_s < quiet_s:
            raise ValueError(f"grace ({grace_s} s) must not be shorter than the quiet time ({quiet_s} s)")
        self.quiet_s = quiet_s
        self.grace_s = grace_s
        self.flicker_changes = flicker_changes
        self.flicker_window_s = flicker_window_s
        self._totals = ((("", (0, 1), 2 * CHECKERS_PER_SIDE),) if colour_by == "magnet" else
                        tuple((f"{colour} ", (index,), CHECKERS_PER_SIDE) for index, colour in enumerate(COLOURS)))
        self._active_faults: dict[FaultKey, SensorFault] = {}
        self._change_times: dict[str, deque[float]] = {}
        self.reset()

    @classmethod
    def from_settings(cls, settings: SensorSettings) -> Stabiliser:
        return cls(settings.quiet_ms / 1000, settings.grace_ms / 1000,
                   settings.flicker_changes, settings.flicker_window_ms / 1000, settings.mcu.colour_by)

    @property
    def reading(self) -> BoardReading | None:
        return self._reading

    @property
    def active_faults(self) -> tuple[SensorFault, ...]:
        return tuple(self._active_faults.values())

    def reset(self) -> list[SensorFaultCleared]:
        """Start afresh (a new link session or an MCU reset): the next reading goes through the quiet time."""
        self._reading: BoardReading | None = None
        self._changed_at = 0.0
        self._stable_sent = False
        self._settled_sent = False
        self._last_sane: BoardReading | None = None
        self._too_many: dict[str, dict[FaultKey, SensorFault]] = {}
        self._unreadable: frozenset[str] = frozenset()
        self._change_times.clear()
        cleared = [SensorFaultCleared(*key) for key in self._active_faults]
        self._active_faults.clear()
        return cleared

    def feed(self, reading: BoardReading, now: float, unreadable: frozenset[str] = frozenset()) -> list:
        """A new snapshot; `unreadable`: the locations whose sensors give no reading (each a fault)."""
        self._unreadable = unreadable - {UNUSED}
        if reading == self._reading:
            return self.tick(now)
        previous, self._reading = self._reading, reading
        self._changed_at = now
        self._stable_sent = self._settled_sent = False
        if previous is not None:
            self._record_changes(previous, reading, now)
        self._check_totals(reading)
        events: list = self._fault_events(now)
        if not self._too_many:
            events.append(BoardChanging(reading))
        events += self._timer_events(now)
        return events

    def tick(self, now: float) -> list:
        return self._fault_events(now) + self._timer_events(now)

    def _timer_events(self, now: float) -> list:
        if self._reading is None or self._active_faults:
            return []
        quiet_for = now - self._changed_at
        events: list = []
        if not self._stable_sent and quiet_for >= self.quiet_s:
            self._stable_sent = True
            events.append(BoardStable(self._reading))
        if self._stable_sent and not self._settled_sent and quiet_for >= self.grace_s:
            self._settled_sent = True
            events.append(BoardSettled(self._reading))
        return events

    def _record_changes(self, previous: BoardReading, reading: BoardReading, now: float) -> None:
        before = previous.location_counts()
        for location, counts in reading.location_counts().items():
            if before.get(location) != counts:
                self._change_times.setdefault(location, deque()).append(now)

    def _check_totals(self, reading: BoardReading) -> None:
        """Faults for a colour with more than 15 checkers (or a board with more than 30, where the
        sensors cannot tell the colours of a stack apart), blamed on the locations that gained some."""
        too_many: dict[str, dict[FaultKey, SensorFault]] = {}
        for name, indices, limit in self._totals:
            total = sum(reading.side(COLOURS[index]).total for index in indices)
            if total <= limit:
                continue
            if name in self._too_many:   # keep blaming the same locations while the colour stays over
                too_many[name] = self._too_many[name]
                continue
            reason = f"{total} {name}checkers on the board, {'a side has' if len(indices) == 1 else 'a set has'} {limit}"
            suspects = self._gained(indices, reading) or [None]
            too_many[name] = {(location, FaultKind.TOO_MANY): SensorFault(location, FaultKind.TOO_MANY, reason)
                              for location in suspects}
        self._too_many = too_many
        if not too_many:
            self._last_sane = reading

    def _gained(self, indices: tuple[int, ...], reading: BoardReading) -> list[str]:
        if self._last_sane is None:
            return []
        before = self._last_sane.location_counts()
        return [location for location, counts in reading.location_counts().items()
                if sum(counts[i] for i in indices) > sum(before.get(location, (0, 0))[i] for i in indices)]

    def _fault_events(self, now: float) -> list:
        wanted = {key: fault for faults in self._too_many.values() for key, fault in faults.items()}
        for location in self._unreadable:
            wanted[(location, FaultKind.UNREADABLE)] = SensorFault(
                location, FaultKind.UNREADABLE, "its sensor gives no reading (broken, unplugged or not calibrated)")
        horizon = now - self.flicker_window_s
        for location in list(self._change_times):
            times = self._change_times[location]
            while times and times[0] <= horizon:
                times.popleft()
            if not times:   # a whole window without a change: any flicker fault here is over
                del self._change_times[location]
                continue
            key = (location, FaultKind.FLICKER)
            if key in self._active_faults:
                wanted[key] = self._active_faults[key]
            elif len(times) >= self.flicker_changes:
                wanted[key] = SensorFault(location, FaultKind.FLICKER,
                                          f"{len(times)} changes within {self.flicker_window_s:g} s, "
                                          "faster than a hand moves checkers")
        events: list = [SensorFaultCleared(*key) for key in self._active_faults if key not in wanted]
        events += [fault for key, fault in wanted.items() if key not in self._active_faults]
        self._active_faults = wanted
        return events
