"""The one assembly of the application: a config, a hardware bundle and a journal made into the running
loop with its controller.

    hardware = Hardware.open(config, post=events.put)           # real, simulated, or a rig's devices
    app = assemble(config, hardware, Journal.open(config.journal_path), events)
    app.loop.run()

The service (`Service.open`), the demo (`demo/rig.py`) and both HIL rigs (`hil/rig.py`'s `Host`,
`hil/trace_rig.py`'s `VirtualRig`) are built here; they differ only in their devices, their clock
and what watches the loop.
"""
from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import Callable, Iterable

from firmware_host.app import EventLoop
from firmware_host.config import Config
from firmware_host.controller import Timings
from firmware_host.controller.view import GameView
from firmware_host.hw.dice import DiceSource
from firmware_host.journal import Journal, ResumeState
from firmware_host.sensing.clock import Clock
from firmware_host.service.allocator import glibc, trimmer
from firmware_host.service.hardware import Hardware


@dataclass
class Application:
    config: Config
    hardware: Hardware
    journal: Journal
    loop: EventLoop
    resumed: ResumeState | None      # the unfinished match the journal held, taken up


def assemble(config: Config, hardware: Hardware, journal: Journal, events: queue.Queue, *,
             dice: DiceSource | None = None, clock: Clock | None = None, timings: Timings = Timings(),
             judge_in_background: bool = True, observers: Iterable[Callable[[GameView, object], None]] = (),
             resumed: ResumeState | None = None) -> Application:
    """The application on `hardware` (opened with `post=events.put`): `resumed`, the journal's
    unfinished match (`journal.resume()`), taken up as the service does after a power cut, else a new
    match; fair dice unless `dice` is given; readings judged on a thread of their own unless
    `judge_in_background` is False (virtual time). When the loop falls quiet, glibc gives the memory
    freed since back to the system (service/allocator.py)."""
    loop = EventLoop.from_config(config, journal, hardware, events=events, dice=dice, clock=clock, timings=timings,
                                 judge_in_background=judge_in_background, observers=observers, resume=resumed,
                                 on_idle=trimmer(glibc()))
    return Application(config, hardware, journal, loop, resumed)
