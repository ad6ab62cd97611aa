"""The C allocator of the long-running service, where it is glibc's: one arena for all threads, and
the memory a busy stretch freed given back to the system when the loop falls quiet.

glibc gives a thread that finds the allocator's lock taken an arena of its own (up to eight per
core), and each arena keeps its free memory to itself: the board's threads (the loop, the referee's
judging, the sensor link, the companion) held 2.0-2.3 MB free among eight arenas in a busy run, 0.2-0.5
MB in one (bench/records/service-memory-2026-11-28b-probes.txt). One arena serves them all as well:
Python's own lock already lets one thread run at a time. `malloc_trim` hands back the free pages of
the heap, which glibc keeps otherwise (an idle service 1.3 MB lower for it).

Where the C library is not glibc (musl, macOS) nothing is done: the allocator is left as it is.
"""
from __future__ import annotations

import ctypes
import logging
from typing import Any, Callable

log = logging.getLogger(__name__)

M_ARENA_MAX = -8      # mallopt's parameter for the most arenas (glibc's malloc.h)


def glibc() -> Any | None:
    """The process's C library where it is glibc (the only one with `gnu_get_libc_version`), else None."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not all(hasattr(libc, name) for name in ("gnu_get_libc_version", "mallopt", "malloc_trim")):
        return None
    return libc


def one_arena(libc: Any | None) -> bool:
    """Ask glibc (`libc`, from `glibc()`; None: not glibc) for one arena for every thread; to be
    called before the service's threads start (an arena already made stays). True if glibc took it."""
    if libc is None:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, 1))


def trimmer(libc: Any | None) -> Callable[[], None]:
    """The loop's idle call: glibc's free memory given back to the system (nothing where the C
    library is not glibc)."""
    if libc is None:
        return lambda: None

    def trim() -> None:
        libc.malloc_trim(0)
    return trim
