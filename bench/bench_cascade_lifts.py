"""The referee's worst case: every checker lifted from every board on the way through Gul Bara cascades.

Run: .venv/bin/python bench/bench_cascade_lifts.py [--games N] [--seed S] [--plays K] [--bot] [--verdicts]
                                                   [--variant V] [--option KEY=VALUE ...] [--json FILE]

A person who pauses with a checker in hand shows the referee a board no quick player does (issue
33: one such board took 12 s). This searches for them instead of sampling players: for every
cascade roll (a double from the fourth turn on) of N seeded random games of gulbara (or of
fevga, moultezim or narde with `--option cascading_doubles=true`), the chosen
play and K other plays (each picked stage by stage with seeded choices) are walked move by move,
and at every board on the way (the start included) each location of the mover and of the
opponent that holds a checker has one lifted: the reading the sensors give while it is in hand.
Each reading is judged by the roll's one `Referee`, in the order a person would show them (the
board, its lifts, the next board ...), as the controller does.

Measured: the thread's CPU time of each `judge` (other processes on the machine do not count
directly) and its wall time (which they do: a loaded machine inflates it). Reported, for the CPU
time: p50, p99 and max over all readings, the count over 5 and over 50 ms, and the slowest
reading as a `judge --jsonl` request line (to reproduce it); each cascade's running figures go to
stderr as it ends, for a run cut short; for the wall time: p50, p99 and max. Goals on this machine: p99 < 5 ms, max < 50 ms.

--verdicts: also a sha256 of every verdict's JSON (`json.dumps(verdict.to_json(), sort_keys=True)`, one
line each, in order), made outside the timed calls: the same hash before and after a change to
the referee's speed shows it judged every reading alike.

--bot: also the shipped bot's decision on every cascade roll (`Bot.choose` on a fresh `Turn`, as
the controller asks it; under `gulbara_cascade_maximize = whole_cascade` that includes proving
the most dice): p50, p99, max and the slowest roll. Goal: max < 50 ms.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the bot's small matrices: BLAS threads only contend

import argparse
import gc
import hashlib
import json
import random
import sys
import time

from bench_referee import LOCATIONS, _changed, _count, _play_readings, is_cascade, percentile
from bench_rules import random_turns
from firmware_host.referee import Reading, Referee
from firmware_host.rules import Rules, Turn
from machine import machine_text


def lift_readings(board: Reading, mover) -> list[Reading]:
    """`board` with one checker lifted, of either colour, from every location that holds one."""
    return [_changed(board, color, location, -1) for color in (mover, mover.opponent)
            for location in LOCATIONS if _count(board, color, location)]


def request_line(position, dice, reading: Reading, options: dict) -> str:
    line = {"position": position.to_json(), "dice": list(dice), "reading": reading.to_json()}
    if options:
        line["options"] = options
    return json.dumps(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="seeded random games (default 20)")
    parser.add_argument("--variant", default="gulbara", help="a game with cascades (default gulbara)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plays", type=int, default=2, help="other plays walked per cascade besides the chosen one")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a house rule")
    parser.add_argument("--bot", action="store_true", help="also time the bot's decision on every cascade roll")
    parser.add_argument("--verdicts", action="store_true", help="also hash every verdict's JSON (sha256)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    options = dict(option.split("=", 1) for option in args.option)
    rules = Rules.for_variant(args.variant, options)
    times, wall_times, slowest, cascades, kinds = [], [], (0.0, "", ""), 0, {}
    bot_times, slowest_bot = [], (0.0, "")
    verdicts = hashlib.sha256() if args.verdicts else None
    if args.bot:
        from firmware_host.bot import Bot
        bot = Bot.trained(rules)
    started, load_before = time.monotonic(), os.getloadavg()
    gc.disable()
    try:
        for position, dice, turn, chosen, rng in random_turns(args.variant, args.games, args.seed, options):
            if not is_cascade(turn):
                continue
            cascades += 1
            if args.bot:
                t0 = time.thread_time_ns()
                bot.choose(Turn(position, dice, rules))
                bot_times.append((time.thread_time_ns() - t0) / 1e6)
                if bot_times[-1] > slowest_bot[0]:
                    slowest_bot = (bot_times[-1], request_line(position, dice, Reading.of(position), options))
            choices = random.Random(f"{args.seed}:{cascades}")
            plays = [chosen] + [Turn(position, dice, rules).pick_play(choices.choice) for _ in range(args.plays)]
            referee = Referee(position, dice, rules)
            start, mover = Reading.of(position), position.turn
            for play in plays:
                for board in [start] + _play_readings(start, mover, play):
                    for reading in [board] + lift_readings(board, mover):
                        t0, wall0 = time.thread_time_ns(), time.perf_counter_ns()
                        verdict = referee.judge(reading)
                        ms = (time.thread_time_ns() - t0) / 1e6
                        wall_times.append((time.perf_counter_ns() - wall0) / 1e6)
                        times.append(ms)
                        kinds[verdict.kind] = kinds.get(verdict.kind, 0) + 1
                        if verdicts is not None:
                            verdicts.update(json.dumps(verdict.to_json(), sort_keys=True).encode() + b"\n")
                        if ms > slowest[0]:
                            slowest = (ms, verdict.kind, request_line(position, dice, reading, options))
            print(f"cascade {cascades} ({dice[0]}-{dice[1]}): {len(times)} readings so far, max "
                  f"{max(times):.1f} ms, {sum(t > 50 for t in times)} over 50 ms", file=sys.stderr, flush=True)
            gc.collect()
    finally:
        gc.enable()
    figures = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine_text(),
        "load_average_1_5_15_min": {"before": [round(x, 2) for x in load_before],
                                    "after": [round(x, 2) for x in os.getloadavg()]},
        "command": "bench/bench_cascade_lifts.py " + " ".join(
            [f"--games {args.games}", f"--seed {args.seed}", f"--plays {args.plays}"] + ["--bot"] * args.bot
            + ["--verdicts"] * args.verdicts
            + [f"--variant {args.variant}"] * (args.variant != "gulbara")
            + [f"--option {o}" for o in args.option]),
        "cascades": cascades, "readings": len(times), "verdicts": kinds,
        "p50_ms": round(percentile(times, 0.5), 3), "p99_ms": round(percentile(times, 0.99), 3),
        "max_ms": round(max(times), 3), "over_5_ms": sum(t > 5 for t in times),
        "over_50_ms": sum(t > 50 for t in times), "slowest": {"ms": round(slowest[0], 3), "verdict": slowest[1],
                                                              "request": slowest[2]},
        "wall_ms": {"p50": round(percentile(wall_times, 0.5), 3), "p99": round(percentile(wall_times, 0.99), 3),
                    "max": round(max(wall_times), 3)},
        "wall_s": round(time.monotonic() - started, 1),
    }
    if verdicts is not None:
        figures["verdict_json_sha256"] = verdicts.hexdigest()
    if args.bot:
        figures["bot"] = {"rolls": len(bot_times), "p50_ms": round(percentile(bot_times, 0.5), 3),
                          "p99_ms": round(percentile(bot_times, 0.99), 3), "max_ms": round(max(bot_times), 3),
                          "over_50_ms": sum(t > 50 for t in bot_times), "slowest": slowest_bot[1]}
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w") as out:
            out.write(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
