#!/usr/bin/env python3
"""Set up a private virtual environment and run the project in it.

Needs nothing but python3: `python3 bootstrap.py demo` runs the main job on the simulated board,
`python3 bootstrap.py test` runs the test suite, `python3 bootstrap.py tavli-board ARGS` runs any
command. The environment (.venv) is created on first use and refreshed when what it is built from
changes: pyproject.toml, setup.py or the C source of the rules' compiled search. The first install
takes about a minute (pip builds the compiled search); it says what it is doing as it goes.
Ctrl-C stops it (and the command it runs) with one line, exit 130.
"""
from __future__ import annotations

import collections
import hashlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".installed-from"
# A change to any of these installs again (the compiled parts, every C source setup.py builds, are
# rebuilt from their source).
BUILD_INPUTS = ("pyproject.toml", "setup.py", *sorted(str(path.relative_to(ROOT)) for path in ROOT.glob("firmware_host/**/*.c")))
HEARTBEAT_S = 10.0        # a line saying it still works, when pip has said nothing this long

def pip_step(line: str) -> str | None:
    """What a line of pip's says it is doing, in a few words; None for the lines not passed on (they
    are kept for a failure's report)."""
    line = line.strip()    # pip indents a step's lines under the package they are for
    if line.startswith("Collecting "):
        return "fetching " + line.removeprefix("Collecting ").split(" (from ")[0]
    if line.startswith(("Building editable for ", "Building wheel for ")) and line.endswith(": started"):
        return "building " + line.split(" for ", 1)[1].removesuffix(": started")
    for start, said in (("Installing collected packages: ", "installing"), ("Successfully installed ", "installed")):
        if line.startswith(start):
            return f"{said} {len(line.removeprefix(start).replace(',', ' ').split())} packages"
    return None


def ensure_environment() -> None:
    wanted = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in BUILD_INPUTS)).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted and PYTHON.exists():
        return
    if not PYTHON.exists():
        print(f"bootstrap: creating {VENV}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("bootstrap: installing tavli-board with its test extra and building its compiled search (about a "
          "minute the first time)", file=sys.stderr)
    install(f"{ROOT}[test]")
    STAMP.write_text(wanted)


def install(requirement: str) -> None:
    """`pip install -e requirement`, its steps said as they come and a line every `HEARTBEAT_S` while
    it builds; when it fails, its last lines and exit 1."""
    pip = subprocess.Popen([str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar",
                            "off", "-e", requirement], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in pip.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()
    started, step, kept = time.monotonic(), "starting pip", collections.deque(maxlen=40)
    while True:
        try:
            line = lines.get(timeout=HEARTBEAT_S)
        except queue.Empty:
            print(f"bootstrap:   still {step} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
            continue
        if line is None:
            break
        kept.append(line)
        said = pip_step(line)
        if said is not None:
            step = said
            print(f"bootstrap:   {step}", file=sys.stderr)
    if pip.wait() != 0:
        sys.stderr.write("".join(kept))
        raise SystemExit(f"bootstrap: pip could not install tavli-board (exit {pip.returncode}): its last lines are "
                         "above")


def run_to_the_end(command: list[str], **options) -> int:
    """Run `command` and return its exit code (128 + N for signal N). Ctrl-C on a terminal reaches it
    too: it is the command's to answer, so this process waits for it; SIGTERM is passed on."""
    child = subprocess.Popen(command, **options)
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)       # after the fork: the child keeps its own
    terminate = signal.signal(signal.SIGTERM, lambda signum, frame: child.terminate())
    try:
        code = child.wait()
    finally:
        signal.signal(signal.SIGINT, interrupt)
        signal.signal(signal.SIGTERM, terminate)
    return code if code >= 0 else 128 - code


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        return run(argv)
    except KeyboardInterrupt:
        print("\nbootstrap: stopped (Ctrl-C)", file=sys.stderr)
        return 130


def run(argv: list[str]) -> int:
    ensure_environment()
    command, rest = argv[0], argv[1:]
    if command == "test":
        # pytest exits 5 when it collected nothing: a non-zero code, so an empty run never passes.
        # The tests run from the project folder (their paths and pyproject's settings are relative to it),
        # on every core (pytest-xdist), a test file to a worker: a file's tests share its fixtures (a
        # broker, a browser). Options given after `test` come later and win (`-n 0`: one process).
        return run_to_the_end([str(PYTHON), "-m", "pytest", "-n", "auto", "--dist", "loadfile", *rest], cwd=ROOT)
    if command != "tavli-board":
        rest = [command, *rest]
    # Commands run where the caller is: the paths they type, and the files they write, are theirs.
    return run_to_the_end([str(PYTHON), "-m", "firmware_host", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
