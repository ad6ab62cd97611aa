"""`BoardSensor`: the sensing driver. It only posts events; every call on it returns at once.

    sensor = BoardSensor(load_sensing_config(), post=event_queue.put)
    sensor.start()            # the link thread opens the port and posts from now on
    sensor.request_snapshot() # queued for the link thread
    sensor.stop()

Everything below the `post` call runs on the link thread: bytes -> `LinkSession` (link events,
snapshots) -> `ChannelMap` (a `BoardReading`) -> `Stabiliser` (board and fault events) -> `post`.
"""
from __future__ import annotations

from typing import Callable

from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import Clock, MonotonicClock
from firmware_host.sensing.config import SensingConfig
from firmware_host.sensing.events import LinkUp, McuReset, SelfTestResult
from firmware_host.sensing.link import SerialLink, find_mcu_port, open_port
from firmware_host.sensing.session import LinkSession, LinkState
from firmware_host.sensing.stabiliser import Stabiliser


class BoardSensor:
    def __init__(self, config: SensingConfig, post: Callable[[object], None], clock: Clock | None = None, *,
                 opener=open_port, finder=find_mcu_port, link=None) -> None:
        """`link(handler)`: builds the link driver instead of a `SerialLink` thread (the HIL rig drives
        one in virtual time); it must offer `start`, `stop`, `submit` and `write` as `SerialLink` does."""
        self._channels = config.sensors.channels
        self._last_counts: list[tuple[int, int]] = [(0, 0)] * self._channels.channel_count
        self._post = post
        self._now = 0.0
        self.stabiliser = Stabiliser.from_settings(config.sensors)
        self.link = link(self) if link is not None else \
            SerialLink(config.serial, clock or MonotonicClock(), self, opener=opener, finder=finder)
        self.session = LinkSession(config.serial, config.sensors, write=self.link.write, emit=self._on_session)

    def start(self) -> None:
        self.link.start()

    def stop(self) -> None:
        self.link.stop()

    def request_snapshot(self) -> None:
        self.link.submit(self.session.request_snapshot)

    def run_self_test(self) -> None:
        """The result comes as a `SelfTestResult` event (or `CommandFailed`)."""
        self.link.submit(self.session.self_test)

    def enter_maintenance(self) -> None:
        """Restart the MCU into maintenance (mpremote can then reach it); `CommandFailed` if refused."""
        self.link.submit(self.session.maintenance)

    # -- LinkHandler: called on the link thread --------------------------------------------------

    def opened(self, now: float) -> None:
        self._now = now
        self.session.opened(now)

    def received(self, data: bytes, now: float) -> None:
        self._now = now
        self.session.received(data, now)

    def tick(self, now: float) -> None:
        self._now = now
        self.session.tick(now)
        if self.session.state is LinkState.UP:
            # Only a live link makes a board stable or settled: silence says nothing about the board.
            self._post_all(self.stabiliser.tick(now))

    def lost(self, reason: str) -> None:
        self.session.lost(reason)

    def _on_session(self, item: object) -> None:
        if isinstance(item, p.Snapshot):
            self._post_all(self._snapshot(item))
        elif isinstance(item, p.SelfTestReport):
            self._post(SelfTestResult(tuple((self._channels.locations[channel], failure.name.lower())
                                            for channel, failure in item.failures)))
        else:
            if isinstance(item, (LinkUp, McuReset)):
                # A new session or a restarted MCU: the board is read afresh through the quiet time.
                self._post_all(self.stabiliser.reset())
            self._post(item)

    def _snapshot(self, snapshot: p.Snapshot) -> list:
        """An unreadable channel keeps its last counts in the reading and is named as a fault."""
        unreadable = frozenset(self._channels.locations[channel] for channel, counts in enumerate(snapshot.counts)
                               if counts is None)
        self._last_counts = [last if counts is None else counts for last, counts in zip(self._last_counts, snapshot.counts)]
        return self.stabiliser.feed(self._channels.reading(tuple(self._last_counts)), self._now, unreadable)

    def _post_all(self, events: list) -> None:
        for event in events:
            self._post(event)
