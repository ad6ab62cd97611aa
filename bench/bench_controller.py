"""Controller benchmarks: stable reading -> LED frame through the event loop, and the demo's memory.

    .venv/bin/python bench/bench_controller.py [--matches 3] [--skip-demo] [--json bench/results/controller.json]

1. Stable reading -> frame (goal: p99 under 1 ms with the shipped 200-LED layout): whole tavli matches
   are played through the real `EventLoop` (virtual clock, capturing strip, a journal in a temporary
   folder). For every `BoardStable` the time is taken from posting the event to the strip having the
   frame: the loop's turn, the controller's trigger, judging the reading (each reading is new, so no
   cached verdict), building the scene and rendering it. Twice: with the readings judged on the
   loop's judging thread as in the service (the verdict comes back through the queue), and inline. The plays come from the engine, laid on the
   board whole, as a player would leave the board before pressing. A lifted checker (`BoardChanging`
   with a checker missing) is timed too: its destinations must light without a quiet time.
   The presses (which write the journal with synchronous=FULL) are not part of this path.
2. The demo's peak memory (goal: under 40 MB): `tavli-board demo` run as a child process to its end,
   its maximum resident set size from the kernel.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import queue
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from firmware_host.app import EventLoop
from firmware_host.config import load_config
from firmware_host.hw.dice import SeededDice
from firmware_host.controller.orientation import laid_out
from firmware_host.hw import DicePressed
from firmware_host.journal import Journal
from firmware_host.leds import CapturingStrip
from firmware_host.rules import Turn
from firmware_host.rules.match import MatchRules
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.events import BoardChanging, BoardStable

TAVLI_BOARD = Path(sys.executable).with_name("tavli-board")


def timed_matches(matches: int, background: bool) -> dict[str, list[float]]:
    """Seconds from posting each board event to its frame (its verdict shown), by kind of event."""
    config = dataclasses.replace(load_config(None), match_rules=MatchRules(sequence="tavli", target=3))
    times: dict[str, list[float]] = {"stable": [], "lift": []}
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, matches + 1):
            clock = ManualClock()
            strip = CapturingStrip(config.leds.layout)
            journal = Journal.open(Path(folder) / f"journal-{seed}.sqlite3")
            loop = EventLoop.from_config(config, journal, SimpleNamespace(strip=strip, button=None),
                                         events=queue.Queue(), dice=SeededDice(seed), clock=clock,
                                         judge_in_background=background)
            controller, choose = loop.controller, random.Random(seed).choice

            def deliver(event, kind=None) -> None:
                clock.advance(loop.frame_interval_s)   # a frame is due: the turn always renders one
                started = time.perf_counter()
                loop.post(event)
                loop.turn()
                while controller.awaiting_verdict is not None:
                    loop.turn(timeout=5.0)   # the verdict comes back through the queue
                elapsed = time.perf_counter() - started
                if kind is not None:
                    times[kind].append(elapsed)

            while controller.state != "match_over":
                if controller.state == "setup":
                    deliver(BoardStable(laid_out(controller.position, controller.orientation)))
                elif controller.state in ("opening_roll", "awaiting_roll"):
                    deliver(DicePressed(clock.now))
                elif controller.state == "moving":
                    play = Turn(controller.position, controller.dice, controller.rules).pick_play(choose)
                    if play.moves and play.moves[0].origin.isdigit():
                        deliver(BoardChanging(lifted_from(controller, int(play.moves[0].origin))), "lift")
                    deliver(BoardStable(laid_out(play.position, controller.orientation)), "stable")
                    deliver(DicePressed(clock.now))
                elif controller.state == "game_over":
                    clock.advance(controller.timings.game_over_s)
                    deliver(DicePressed(clock.now))
                else:
                    raise RuntimeError(f"the bench match stopped in {controller.state}")
            if loop.judge_worker is not None:
                loop.judge_worker.close()
            journal.close()
    return times


def lifted_from(controller, point: int):
    """The board at the turn's start with one checker of the mover lifted from `point` (unified)."""
    board = laid_out(controller.position, controller.orientation)
    colour = controller.position.turn.value
    points = list(board.side(colour).points)
    points[controller.orientation.point(point) - 1] -= 1
    return dataclasses.replace(board, **{colour: dataclasses.replace(board.side(colour), points=tuple(points))})


def demo_peak_memory_mb() -> tuple[float, float]:
    """(peak resident MB of `tavli-board demo`, its wall time in seconds)."""
    started = time.monotonic()
    subprocess.run([str(TAVLI_BOARD), "demo"], check=True, stdout=subprocess.DEVNULL)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak_kb / 1024, time.monotonic() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3, help="tavli matches to play (default %(default)s)")
    parser.add_argument("--skip-demo", action="store_true", help="do not measure the demo's memory")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    leds = load_config(None).leds.layout.count
    results: dict[str, object] = {"leds": leds}
    for mode, background in (("judging thread", True), ("inline", False)):
        for kind, values in timed_matches(args.matches, background).items():
            ms = [value * 1000 for value in values]
            figures = {"count": len(ms), "p50_ms": round(statistics.median(ms), 3),
                       "p99_ms": round(percentile(ms, 0.99), 3), "max_ms": round(max(ms), 3)}
            results[f"{kind}, {mode}"] = figures
            print(f"{kind:>6} reading -> frame ({leds} LEDs, {mode:>14}): p50 {figures['p50_ms']:.3f} ms, "
                  f"p99 {figures['p99_ms']:.3f} ms, max {figures['max_ms']:.3f} ms over {len(ms)}")
    if not args.skip_demo:
        peak_mb, seconds = demo_peak_memory_mb()
        results["demo"] = {"peak_rss_mb": round(peak_mb, 1), "seconds": round(seconds, 1)}
        print(f"demo: peak memory {peak_mb:.1f} MB (goal under 40 MB), {seconds:.1f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
