"""The service's memory over hours of uptime, idle and in continuous play (issue 11).

Run: .venv/bin/python bench/bench_service_memory.py [--hours H] [--json FILE]

Each run is one service as `tavli-board run` builds it (the loop, the controller, the journal, the
link session with its trace ring, `TraceRecorder` with the default hour's window) on the simulated
MCU and board (`hil soak`'s `SoakMatch`), in virtual time:
- idle: no game touched, the MCU's heartbeats and snapshots only (a board left on in a closed cafe);
- busy: the soak's players, without faults, one match to 3 points after another (a press at the
  final score starts the next, as at a cafe's table).
Every virtual quarter hour: the trace ring's records, the Python heap's allocated blocks
(`sys.getallocatedblocks`, after a collection) and the process's resident memory. The figures must
be flat after the first hour (the window). The harness's own records of the plays are emptied at
every sample, so that only the service's memory counts.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
from pathlib import Path

from firmware_host.controller import machine as m
from firmware_host.hil.soak import Figures, SoakMatch, SoakPlayers, soak_config
from firmware_host.rules.match import MatchRules

QUARTER_S = 900.0


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def sample(match: SoakMatch, players: SoakPlayers | None = None) -> dict:
    del match.commits[:-1]          # the harness's records, not the service's
    if players is not None:
        players.accepted.clear()
    gc.collect()
    return {"virtual_h": round(match.clock.monotonic() / 3600, 2), "ring_records": len(match.trace),
            "heap_blocks": sys.getallocatedblocks(), "rss_mb": round(rss_mb(), 1)}


def run(kind: str, hours: float, folder: Path) -> list[dict]:
    rules = MatchRules(sequence=("portes", "plakoto", "fevga", "narde"), target=3)
    match = SoakMatch(soak_config(), rules, 7, 0.0, Figures(), folder, trace=True)
    samples, next_sample = [sample(match)], QUARTER_S
    try:
        if kind == "idle":
            while match.clock.monotonic() < hours * 3600:
                match.advance(QUARTER_S)
                samples.append(sample(match))
                print(kind, samples[-1], flush=True)
        else:
            players = SoakPlayers(match, 7)

            def done(seen) -> bool:
                nonlocal next_sample
                if match.clock.monotonic() >= next_sample:
                    next_sample += QUARTER_S
                    samples.append(sample(match, players))
                    print(kind, samples[-1], flush=True)
                return match.clock.monotonic() >= hours * 3600 or seen.state == m.MATCH_OVER
            while players.play_until(done).state == m.MATCH_OVER:
                players.press()         # the next match
    finally:
        match.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0, help="virtual hours of each run")
    parser.add_argument("--json", metavar="FILE", help="also write the samples as JSON")
    args = parser.parse_args()
    results = {}
    for kind in ("idle", "busy"):
        with tempfile.TemporaryDirectory(prefix="tavli-memory-") as folder:
            results[kind] = run(kind, args.hours, Path(folder))
    for kind, samples in results.items():
        after_hour = [s for s in samples if s["virtual_h"] >= 1.0] or samples
        print(f"{kind}: ring {samples[-1]['ring_records']} records; after the first hour heap blocks "
              f"{min(s['heap_blocks'] for s in after_hour)}..{max(s['heap_blocks'] for s in after_hour)}, "
              f"RSS {min(s['rss_mb'] for s in after_hour)}..{max(s['rss_mb'] for s in after_hour)} MB")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
