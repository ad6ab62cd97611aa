"""The real service's resident memory in real time (issue 33): `tavli-board run` on the simulated board.

Run: .venv/bin/python bench/bench_service_realtime.py --config FILE --minutes M [--every S] [--jsonl FILE]
     .venv/bin/python bench/bench_service_realtime.py --busy --minutes M [--every S] [--jsonl FILE]

Starts `python -m firmware_host run --config FILE` as its own process (the same service systemd
starts, with the simulated MCU and board), waits for its log's "ready" line, and samples the
service's VmRSS, VmHWM and the mappings of heavy libraries from /proc every S seconds for M
minutes of wall-clock time, one JSON line per sample (to stdout and, with --jsonl, to a file as it
goes, so a run cut short keeps its samples). Then SIGTERM, and a summary line: the RSS first,
last and highest.

--busy: a board in continuous play instead, in this process: the demo's rig (the simulated MCU over
a pseudo-terminal, the loop, the controller, the journal, the referee, and the service's trace ring
fed as the service feeds it) at speed 1 (real time), its scripted players playing one tavli match
to 3 after another (a press at the final score starts the next); the samples are this process's,
with the ring's records and their size (ring_records, ring_kib) and the loop's idle calls so far
(idle_calls: glibc's free memory given back). As the service at its start (`run_service`), glibc
is asked for one arena for all threads first.

Unlike bench_service_memory.py (virtual time, the service built in-process), this is the service as
it runs on a Pi: its own interpreter, its threads, the clock's real timers and the kernel's pages.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

HEAVY = ("numpy", "libopenblas", "libgfortran", "_search")   # which of these are mapped


def proc_status(pid: int) -> dict:
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"):
                fields[key] = int(value.split()[0])
    mapped = set()
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            mapped.update(name for name in HEAVY if name in line)
    return {"rss_mb": round(fields["VmRSS"] / 1024, 1), "hwm_mb": round(fields["VmHWM"] / 1024, 1),
            "anon_mb": round(fields["RssAnon"] / 1024, 1), "file_mb": round(fields["RssFile"] / 1024, 1),
            "threads": fields["Threads"], "mapped": sorted(mapped)}


def wait_ready(log_file: Path, service: subprocess.Popen, limit_s: float = 120.0) -> float:
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        if service.poll() is not None:
            sys.exit(f"the service exited with {service.returncode} before it was ready")
        if log_file.exists() and " ready: " in log_file.read_text(errors="replace"):
            return time.monotonic() - start
        time.sleep(0.2)
    sys.exit(f"the service was not ready within {limit_s:.0f} s (see {log_file})")


def play_forever(stop: threading.Event, started: Callable[[Any], None] = lambda demo: None) -> None:
    """The demo's scripted players at real speed, one match after another, until `stop`; the rig
    keeps the service's trace ring, as the service does. `started(demo)` once the rig is up."""
    import random
    import tempfile

    from firmware_host.controller import machine as m
    from firmware_host.controller.orientation import Orientation, laid_out
    from firmware_host.demo.players import Players
    from firmware_host.demo.rig import Demo, Settings
    from firmware_host.rules import Position
    from firmware_host.rules.match import MatchRules

    match = MatchRules(sequence="tavli", target=3)
    with tempfile.TemporaryDirectory(prefix="tavli-busy-") as folder, open(os.devnull, "w") as quiet:
        settings = Settings(match, seed=1, speed=1.0, out=quiet, boards="none")
        board = laid_out(Position.start(match.sequence[0]), random.Random(1).choice(list(Orientation)))
        with Demo(settings, Path(folder), board, traced=True) as demo:
            started(demo)
            seed = 1
            while not stop.is_set():
                Players(demo, seed).play_until(lambda seen: stop.is_set() or seen.state == m.MATCH_OVER)
                seed += 1
                if not stop.is_set():
                    demo.press()    # the next match


def sample_for(args: argparse.Namespace, pid: int, start: dict, running,
               more: Callable[[], dict] = dict) -> None:
    """Sample `pid` every --every seconds for --minutes while `running()`, one JSON line each (to
    stdout and --jsonl as they come), with `more()`'s fields; a start line first, a summary line last."""
    samples = []
    with open(args.jsonl, "a") if args.jsonl else open(os.devnull, "w") as out:
        def emit(record: dict) -> None:
            line = json.dumps(record)
            print(line, flush=True)
            out.write(line + "\n")
            out.flush()
        emit({"event": "start", "pid": pid, **start, "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "command": sys.argv, "machine": f"{os.uname().nodename} {os.uname().machine}"})
        started = time.monotonic()
        try:
            while True:
                elapsed = time.monotonic() - started
                samples.append({"minutes": round(elapsed / 60, 2), **proc_status(pid), **more()})
                emit(samples[-1])
                if elapsed >= args.minutes * 60 or not running():
                    break
                time.sleep(min(args.every, max(0.0, args.minutes * 60 - elapsed)))
        finally:
            if samples:
                emit({"event": "summary", "rss_first_mb": samples[0]["rss_mb"], "rss_last_mb": samples[-1]["rss_mb"],
                      "rss_max_mb": max(s["rss_mb"] for s in samples), "minutes": samples[-1]["minutes"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="the service's config (its [logging] file must be set)")
    parser.add_argument("--busy", action="store_true", help="the demo's players in continuous play, in this process")
    parser.add_argument("--minutes", type=float, required=True, help="wall-clock minutes to sample")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between samples (default 60)")
    parser.add_argument("--jsonl", metavar="FILE", help="also append the samples to this file")
    args = parser.parse_args()
    if args.busy == (args.config is not None):
        parser.error("give either --config (the idle service) or --busy")
    if args.busy:
        run_busy(args)
    else:
        run_idle(args)


def run_idle(args: argparse.Namespace) -> None:
    import tomllib
    log_file = Path(tomllib.loads(Path(args.config).read_text())["logging"]["file"])
    service = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", args.config],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # SIGTERM to this script stops the service too (a run cut short).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        ready_s = wait_ready(log_file, service)
        sample_for(args, service.pid, {"ready_after_s": round(ready_s, 1)}, lambda: service.poll() is None)
    finally:
        if service.poll() is None:
            service.send_signal(signal.SIGTERM)
            service.wait(timeout=30)


def run_busy(args: argparse.Namespace) -> None:
    from firmware_host.service.allocator import glibc, one_arena
    one_arena(glibc())      # as `run_service` does, before any thread starts
    stop = threading.Event()
    failure: list[BaseException] = []
    rigs: list = []   # the demo's rig, once up
    idle_calls = [0]

    def counting(demo) -> None:
        """The rig, its loop's idle calls counted."""
        idle = demo.loop.on_idle

        def counted() -> None:
            idle_calls[0] += 1
            idle()
        demo.loop.on_idle = counted
        rigs.append(demo)

    def players() -> None:
        try:
            play_forever(stop, counting)
        except BaseException as error:   # printed at the end; the samples so far stand
            failure.append(error)
            stop.set()

    def ring() -> dict:
        """The trace ring's records and their bytes (`TraceRecorder.size_bytes`)."""
        return ({"ring_records": len(rigs[0].trace), "ring_kib": rigs[0].trace.size_bytes // 1024,
                 "idle_calls": idle_calls[0]} if rigs else {})
    thread = threading.Thread(target=players, name="players", daemon=True)
    # SIGTERM (a run cut short) stops the players, whose rig then removes its temporary folder.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    thread.start()
    try:
        sample_for(args, os.getpid(), {"busy": True}, lambda: not stop.is_set(), ring)
    finally:
        stop.set()
        thread.join(60)
    if failure:
        sys.exit(f"the players stopped: {failure[0]!r}")


if __name__ == "__main__":
    main()
