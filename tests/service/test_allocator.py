"""The service and glibc's allocator (issue 33): one arena for every thread, asked for before the
service's threads start; the free memory given back when the loop falls quiet, from the service
layer only; where the C library is not glibc, nothing is asked and nothing breaks."""
import ast
import ctypes
import queue
from pathlib import Path
from types import SimpleNamespace

import pytest

import firmware_host
from firmware_host.app import QUIET_S
from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.leds import CapturingStrip
from firmware_host.sensing.clock import ManualClock
from firmware_host.service import run
from firmware_host.service.allocator import M_ARENA_MAX, glibc, one_arena, trimmer
from firmware_host.service.assembly import assemble


class FakeGlibc:
    """glibc's calls, recorded."""

    def __init__(self) -> None:
        self.calls = []

    def mallopt(self, parameter, value):
        self.calls.append(("mallopt", parameter, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


def test_one_arena_asks_glibc_for_one_arena_and_without_glibc_asks_nothing():
    libc = FakeGlibc()
    assert one_arena(libc) is True and libc.calls == [("mallopt", M_ARENA_MAX, 1)]
    assert one_arena(None) is False


def test_a_c_library_that_is_not_glibc_is_left_alone(monkeypatch):
    monkeypatch.setattr(ctypes, "CDLL", lambda name: SimpleNamespace(malloc=None, free=None))   # musl, macOS
    assert glibc() is None
    trimmer(None)()        # the idle call does nothing, and says nothing

    def no_library(name):
        raise OSError("cannot load the C library")
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert glibc() is None


@pytest.mark.skipif(glibc() is None, reason="the C library here is not glibc")
def test_on_glibc_the_calls_are_made_for_real():
    libc = glibc()
    assert libc.gnu_get_libc_version() is not None
    trimmer(libc)()


def test_the_service_asks_for_one_arena_before_it_opens_anything(tmp_path, config_file, monkeypatch):
    libc, asked_before_opening = FakeGlibc(), []
    monkeypatch.setattr(run, "glibc", lambda: libc)

    def journal_opened(*args, **kwargs):
        asked_before_opening.append(list(libc.calls))
        raise SystemExit(3)    # nothing more of the service is needed here
    monkeypatch.setattr(run, "open_journal_when_possible", journal_opened)
    with pytest.raises(SystemExit):
        run.run_service(load_config(config_file))
    assert asked_before_opening == [[("mallopt", M_ARENA_MAX, 1)]]


def test_the_assembled_loop_gives_memory_back_once_quiet(tmp_path, config_file, monkeypatch):
    # The service, the demo and the HIL rigs all get their loop from `assemble`.
    libc = FakeGlibc()
    monkeypatch.setattr("firmware_host.service.assembly.glibc", lambda: libc)
    config = load_config(config_file)
    clock = ManualClock(100.0)
    hardware = SimpleNamespace(strip=CapturingStrip(config.leds.layout), button=None)
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        loop = assemble(config, hardware, journal, queue.Queue(), clock=clock, judge_in_background=False).loop
        loop.turn()
        assert libc.calls == []
        clock.advance(QUIET_S)
        loop.turn()
        loop.turn()
    assert libc.calls == [("malloc_trim", 0)]


PURE = ("rules", "referee", "bot", "club")


def test_the_pure_layers_never_touch_the_allocator():
    # The pure core does no I/O and no system calls of its own: glibc is the service's business.
    package = Path(firmware_host.__file__).parent
    for layer in PURE:
        for path in (package / layer).rglob("*.py"):
            tree = ast.parse(path.read_text())
            imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
            assert "ctypes" not in imported, path
            assert "firmware_host.service.allocator" not in imported, path
            assert "malloc_trim" not in path.read_text(), path
