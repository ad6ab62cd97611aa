"""The demo's processes (issue 29): its web companion ends with it (SIGTERM, and kill -9 on Linux), and a
busy --web-port is one clear line and a non-zero exit before play starts. Each test bounds its processes
in time and kills what it started."""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from web_kit import free_port

START_S = 60


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """The processes `pid` started (Linux's /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")   # ended, not yet reaped


def started_demo(tmp_path, port: int) -> tuple[subprocess.Popen, list[int]]:
    """The demo with its companion on `port`, once the companion answers; the demo's children."""
    # Its temporary folder, which a demo killed with -9 cannot remove, is in the test's (conftest's TMPDIR).
    demo = subprocess.Popen([sys.executable, "-m", "firmware_host", "demo", "--web-port", str(port), "--speed", "4"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    deadline = time.monotonic() + START_S
    while not answers(port):
        assert demo.poll() is None, demo.stderr.read()
        assert time.monotonic() < deadline, "the demo's companion never answered"
        time.sleep(0.2)
    return demo, children(demo.pid)


def end_all(demo: subprocess.Popen, started: list[int]) -> None:
    for pid in [demo.pid, *started]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    demo.wait(10)


def wait_until(condition, timeout_s: float = 20) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the demo's children")
def test_sigterm_ends_the_demo_and_its_web_companion(tmp_path):
    port = free_port()
    demo, started = started_demo(tmp_path, port)
    try:
        assert started, "the demo started no companion process"
        demo.send_signal(signal.SIGTERM)
        _, err = demo.communicate(timeout=30)
        assert demo.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
        assert err.strip().splitlines()[-1] == "tavli-board demo: stopped (SIGTERM)"
        assert wait_until(lambda: all(gone(pid) for pid in started)), "the web companion outlived the demo"
        assert not answers(port)
    finally:
        end_all(demo, started)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_web_companion_ends_even_when_the_demo_is_killed(tmp_path):
    port = free_port()
    demo, started = started_demo(tmp_path, port)
    try:
        demo.kill()
        demo.wait(10)
        assert wait_until(lambda: all(gone(pid) for pid in started)), "the web companion outlived the killed demo"
    finally:
        end_all(demo, started)


def test_a_busy_web_port_is_one_line_and_a_non_zero_exit_before_play(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "firmware_host", "demo", "--web-port", str(port)],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout[-500:]
    assert done.stderr.strip().splitlines() == [
        f"tavli-board demo: --web-port {port}: cannot listen on 127.0.0.1:{port}: another program listens there (an "
        "earlier demo or `tavli-board web` still running?); choose another port, or 0 for no companion"]


def test_the_companion_counts_as_started_only_once_it_has_the_services_board(tmp_path, monkeypatch):
    """The demo prints the companion's address once it shows the board: a companion that answers on its
    port but has no referee service to link to is not started (once, after a fast match, a page opened
    from the printed address said "no snapshot from the referee service yet")."""
    from firmware_host.demo import rig
    from firmware_host.rules.match import MatchRules

    monkeypatch.setattr(rig, "COMPANION_START_S", 5.0)
    port = free_port()
    config = rig.write_companion_config(tmp_path, rig.Settings(MatchRules(sequence=("portes",), target=1), web_port=port))
    with pytest.raises(rig.CompanionDidNotStart):    # nothing serves tmp_path/companion.sock
        rig.start_companion_process(config, port)
    assert not answers(port)                          # and what it started is gone
