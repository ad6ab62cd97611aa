"""The journal's edges (issue 29, items 1, 2 and 5): silent losses and tracebacks, goal 0 and 0.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_journal_edges.py [--seeds 40] [--json FILE]

Games are recorded through `Journal` with seeded random legal plays (tests/journal/journal_kit.py),
never checkpointed, and copied as a power cut leaves them. Then:

- wal-first-frames: one byte flipped in the first three frames of the write-ahead log (3 per game);
- elsewhere: one byte flipped at a random offset of the WAL after them, or of the database (3 per game);
- wal-removed: the -wal file gone;
- kill-9-move-aside: a child opens a copy whose first WAL frame is damaged and SIGKILLs itself just
  before each change the move aside and the new journal make (copy, renames, the new file, its mark);
- disk-full: a game in which, before every step, no file may grow (RLIMIT_FSIZE 0, as on a full disk:
  SQLite and the mark get EFBIG), the step tried, the journal closed and opened again while full
  (start-up on a full disk), then the room given back and the journal opened;
- run-full-disk: `tavli-board run` started with no room: READY with a storage-fault STATUS, SIGTERM,
  exit 0, no traceback, the journal untouched;
- the readers (`history`, `export 1`, `export last --format mat`, `dice-stats`) on every damaged copy.

A silent loss: a journal that opened with `damage` None and resumed anything but what was committed,
one that resumed something never committed, a committed record missing after a full disk, or a
journal moved aside because the disk was full. A traceback: any exception other than the journal's
own errors out of `Journal.open`, a step or a reader command, or "Traceback" on a child's stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "journal"))

from firmware_host.cli import main  # noqa: E402
from firmware_host.journal import Journal, JournalError  # noqa: E402
from firmware_host.rules.match import MatchRules  # noqa: E402
from journal_kit import power_cut_copy, step  # noqa: E402
from machine import machine_text  # noqa: E402

WAL_HEADER, FRAME = 32, 24 + 4096
READERS = (["history"], ["export", "1"], ["export", "last", "--format", "mat"], ["dice-stats"])


def records(journal: Journal) -> list[dict]:
    return [event.to_json() for event in journal.unfinished_match_events()]


def record_game(folder: Path, seed: int, steps: int) -> tuple[Path, list[dict]]:
    """A game of `steps` steps, never checkpointed, copied as a power cut leaves it; its committed records."""
    journal = Journal.open(folder / "played" / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("portes",), target=5))
    rng = random.Random(seed)
    for _ in range(steps):
        step(journal, rng)
    committed = records(journal)
    cut = power_cut_copy(journal.path, folder / "cut")
    journal.close()
    return cut, committed


def flip(path: Path, low: int, high: int, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    offset = rng.randrange(low, min(high, len(data)))
    data[offset] ^= rng.randrange(1, 256)
    path.write_bytes(bytes(data))


def opened(path: Path, committed: list[dict], tally: Counter, problems: list[str], probe: str, what: str) -> None:
    """Open a damaged copy and classify what it did (counted in all and by `probe`)."""
    try:
        journal = Journal.open(path)
    except JournalError as error:
        tally["refused"] += 1
        problems.append(f"{what}: refused ({error})")
        return
    except Exception as error:   # noqa: BLE001 - counting what escapes is the point
        tally["tracebacks"] += 1
        problems.append(f"{what}: {type(error).__name__}: {error}")
        return
    after = records(journal)
    if journal.damage is None:
        if after == committed:
            tally["intact"] += 1
        else:
            tally["silent_losses"] += 1
            tally[f"silent_losses_{probe}"] += 1
            problems.append(f"{what}: silent loss ({len(after)} of {len(committed)} records resumed)")
    elif after != committed[:len(after)]:
        tally["silent_losses"] += 1
        tally[f"silent_losses_{probe}"] += 1
        problems.append(f"{what}: resumed something never committed")
    else:
        tally["reported"] += 1
    journal.close()


def readers(path: Path, tally: Counter, problems: list[str], what: str) -> None:
    """The reader commands on a copy: an exit code and lines, never an exception."""
    for argv in READERS:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main([*argv, "--journal", str(path)])
        except Exception as error:   # noqa: BLE001
            tally["reader_tracebacks"] += 1
            problems.append(f"{what}: {' '.join(argv)}: {type(error).__name__}: {error}")
            continue
        tally[f"reader_exit_{code}"] += 1
        if code != 0 and len(err.getvalue().strip().splitlines()) != 1:
            tally["reader_not_one_line"] += 1
            problems.append(f"{what}: {' '.join(argv)}: exit {code} with {err.getvalue()!r}")


def damaged_copies(folder: Path, seeds: int, tally: Counter, problems: list[str]) -> None:
    for seed in range(seeds):
        game = folder / f"game-{seed}"
        rng = random.Random(seed)
        cut, committed = record_game(game, seed, rng.randrange(8, 40))
        wal_size = Path(f"{cut}-wal").stat().st_size
        trials = [("wal-first-frames", "-wal", WAL_HEADER, WAL_HEADER + 3 * FRAME)] * 3 + \
                 [("elsewhere", rng.choice(["-wal", ""]), WAL_HEADER + 3 * FRAME, 1 << 40)] * 3 + \
                 [("wal-removed", None, 0, 0)]
        for number, (probe, suffix, low, high) in enumerate(trials):
            copy = power_cut_copy(cut, game / f"{probe}-{number}")
            if suffix is None:
                Path(f"{copy}-wal").unlink()
            else:
                target = Path(f"{copy}{suffix}")
                if suffix == "" or low >= wal_size:
                    target, low = copy, 0   # the database (or, for a WAL of three frames or fewer, instead of it)
                flip(target, low, high, rng)
            tally[f"probe_{probe}"] += 1
            readers(power_cut_copy(copy, game / f"{probe}-{number}-read"), tally, problems, f"seed {seed} {probe}")
            opened(copy, committed, tally, problems, probe, f"seed {seed} {probe} #{number}")
        shutil.rmtree(game)


KILLED_CHILD = """
import os, shutil, signal, sys
from pathlib import Path
from firmware_host.journal import Journal, store
at, count = int(sys.argv[2]), [0]
def counted(function):
    def step(*args, **kwargs):
        if count[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
        count[0] += 1
        return function(*args, **kwargs)
    return step
for owner, name in ((Path, "rename"), (shutil, "copyfile"), (store, "_write_new"), (store, "replace_mark")):
    if hasattr(owner, name):
        setattr(owner, name, counted(getattr(owner, name)))
Journal.open(sys.argv[1]).close()
print(count[0])
"""


def kills_in_the_move_aside(folder: Path, seeds: int, tally: Counter, problems: list[str]) -> None:
    for seed in range(seeds):
        game = folder / f"kill-{seed}"
        cut, committed = record_game(game, seed, 20)
        wal = Path(f"{cut}-wal")
        flip(wal, WAL_HEADER + 24, WAL_HEADER + FRAME, random.Random(seed))   # opening must move it aside
        whole = power_cut_copy(cut, game / "whole")
        # Children run in the temporary folder: `python -c` and `-m` put their folder first on the path,
        # and the code under test is the one PYTHONPATH names.
        child = subprocess.run([sys.executable, "-c", KILLED_CHILD, str(whole), "-1"], capture_output=True, text=True,
                               cwd=folder)
        changes = int(child.stdout.strip() or 0)
        for at in range(changes):
            copy = power_cut_copy(cut, game / f"at-{at}")
            child = subprocess.run([sys.executable, "-c", KILLED_CHILD, str(copy), str(at)], capture_output=True,
                                   text=True, cwd=folder)
            tally["kill_9_move_aside"] += 1
            if child.returncode != -signal.SIGKILL:
                problems.append(f"seed {seed} kill before change {at}: the child was not killed ({child.stderr[-200:]})")
            opened(copy, committed, tally, problems, "kill-9-move-aside",
                   f"seed {seed} kill-9 before change {at} of {changes}")
        shutil.rmtree(game)


def attempt(call, name: str, tally: Counter, problems: list[str], what: str) -> None:
    """`call` on a full disk: it worked, or the journal said it cannot write (held), or it is a traceback."""
    try:
        call()
        tally[f"{name}_done"] += 1
    except JournalError:   # JournalWriteError too: the write was refused, nothing kept
        tally[f"{name}_held"] += 1
    except Exception as error:   # noqa: BLE001
        tally["tracebacks"] += 1
        problems.append(f"full disk {what}: {type(error).__name__}: {error}")


def full_disk_at_every_moment(folder: Path, seeds: int, moments: int, tally: Counter, problems: list[str]) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG, as on a full disk
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    for seed in range(seeds):
        path = folder / f"full-{seed}" / "journal.sqlite3"
        journal = Journal.open(path)
        journal.start_match(MatchRules(sequence=("portes",), target=5))
        rng = random.Random(seed)
        for moment in range(moments):
            if journal.resume() is None:
                journal.start_match(MatchRules(sequence=("portes",), target=5))
            committed = records(journal)
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
            try:
                attempt(lambda: step(journal, rng), "full_disk_step", tally, problems, f"seed {seed} moment {moment}")
                committed_now = records(journal)
                journal.close()
                attempt(lambda: Journal.open(path).close(), "full_disk_start", tally, problems,   # a restart, still full
                        f"start, seed {seed} moment {moment}")
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            moved = [name.name for name in path.parent.iterdir() if ".corrupt-" in name.name or ".damaged-" in name.name]
            journal = Journal.open(path)
            after = records(journal)
            tally["full_disk_moments"] += 1
            if moved or after[:len(committed)] != committed or after != committed_now[:len(after)] or \
                    journal.damage is not None:
                for key in ("silent_losses", "silent_losses_disk-full") if journal.damage is None else ("reported",):
                    tally[key] += 1
                problems.append(f"full disk seed {seed} moment {moment}: {len(moved)} files moved aside, damage "
                                f"{journal.damage}, {len(after)} records after, {len(committed)} committed before")
        journal.close()


def run_on_a_full_disk(folder: Path, tally: Counter, problems: list[str]) -> None:
    path = folder / "run-full" / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.start_match(MatchRules())
        before = records(journal)
    config = folder / "run-full" / "config.toml"
    config.write_text(f'hardware = "simulated"\n[journal]\npath = "{path}"\n'
                      f'[logging]\nfile = "{folder / "run-full" / "log"}"\nraw_frames_dir = "{folder / "raw"}"\n')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(folder / "notify"))
    notify.settimeout(30)

    def no_room() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
                             env={**os.environ, "NOTIFY_SOCKET": str(folder / "notify")}, stderr=subprocess.PIPE,
                             text=True, preexec_fn=no_room, cwd=folder)
    try:
        ready = notify.recv(4096).decode()
    except TimeoutError:
        ready = ""
    child.send_signal(signal.SIGTERM)
    try:
        code = child.wait(30)
    except subprocess.TimeoutExpired:
        child.kill()
        code = child.wait()
    errors = child.stderr.read()
    notify.close()
    tally["run_full_disk"] += 1
    with Journal.open(path) as journal:
        after = records(journal)
    if "Traceback" in errors:
        tally["tracebacks"] += 1
        problems.append(f"run on a full disk: a traceback: {errors[-300:]}")
    if not ready.startswith("READY=1\nSTATUS=storage fault") or code != 0:
        tally["run_full_disk_not_held"] += 1
        problems.append(f"run on a full disk: told systemd {ready!r}, exit {code}")
    if after != before:
        tally["silent_losses"] += 1
        tally["silent_losses_run-full-disk"] += 1
        problems.append("run on a full disk: the match was not taken up once there was room")


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40, help="recorded games damaged (default %(default)s)")
    parser.add_argument("--kill-seeds", type=int, default=4)
    parser.add_argument("--full-seeds", type=int, default=3)
    parser.add_argument("--moments", type=int, default=40, help="steps of each full-disk game (default %(default)s)")
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)   # the journal's own error lines are expected here by the hundred
    tally: Counter = Counter()
    problems: list[str] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-journal-edges-") as folder:
        folder = Path(folder)
        damaged_copies(folder, args.seeds, tally, problems)
        kills_in_the_move_aside(folder, args.kill_seeds, tally, problems)
        full_disk_at_every_moment(folder, args.full_seeds, args.moments, tally, problems)
        run_on_a_full_disk(folder, tally, problems)
    result = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_text(),
        "command": f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} python bench/bench_journal_edges.py "
                   + " ".join(sys.argv[1:]),
        "seconds": round(time.monotonic() - started, 1),
        "silent_losses": tally["silent_losses"],
        "tracebacks": tally["tracebacks"] + tally["reader_tracebacks"],
        "counts": dict(sorted(tally.items())),
        "problems": [problem[:240] for problem in problems[:50]],
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main_bench()
