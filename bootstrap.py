#!/usr/bin/env python3
"""Set up a private virtual environment and run the project in it.

Needs nothing but python3: `python3 bootstrap.py demo` runs the main job on the simulated board,
`python3 bootstrap.py test` runs the test suite, `python3 bootstrap.py tavli-board ARGS` runs any
command. The environment (.venv) is created on first use and refreshed when what it is built from
changes: pyproject.toml, setup.py or the C source of the rules' compiled search.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".installed-from"
# A change to any of these installs again (the compiled search is rebuilt from its source).
BUILD_INPUTS = ("pyproject.toml", "setup.py", "firmware_host/rules/_search.c")


def ensure_environment() -> None:
    wanted = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in BUILD_INPUTS)).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted and PYTHON.exists():
        return
    if not PYTHON.exists():
        print(f"bootstrap: creating {VENV}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("bootstrap: installing tavli-board with its test extra", file=sys.stderr)
    pip = [str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__.strip())
        return 0 if argv else 2
    ensure_environment()
    command, rest = argv[0], argv[1:]
    if command == "test":
        # pytest exits 5 when it collected nothing: a non-zero code, so an empty run never passes.
        # The tests run from the project folder (their paths and pyproject's settings are relative to it).
        return subprocess.run([str(PYTHON), "-m", "pytest", *rest], cwd=ROOT).returncode
    if command != "tavli-board":
        rest = [command, *rest]
    # Commands run where the caller is: the paths they type, and the files they write, are theirs.
    return subprocess.run([str(PYTHON), "-m", "firmware_host", *rest]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
