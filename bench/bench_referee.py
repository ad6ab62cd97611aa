"""Referee speed per variant: building the play tree of a roll, and judging one board reading.

Run: .venv/bin/python bench/bench_referee.py [--games N] [--seed S] [--variant V ...]
                                             [--cascade-budget SECONDS] [--json FILE]
                                             [--option KEY=VALUE ...]

House rules (--option, e.g. gulbara_cascade_maximize=whole_cascade) apply to the games played and
to the referee alike.

Corpus (seeded): for each variant, N random games from the start (Turn.pick_play with seeded
choices); every position met with the roll thrown there is one entry. For each entry the readings
judged are: the start; every prefix and the final of the chosen play and of up to --plays other
legal plays (moves applied one at a time, a hit sending the blot to the bar); up to --lifted
readings with one checker of the mover lifted from a point it occupies; up to --misplaced readings
with one checker of the mover put on a location no legal play reaches (illegal readings).

Measured (the thread's CPU time, so other processes on the machine do not count; the fastest of
--repeat calls): `Referee(position, dice, rules)` (the play tree) and `referee.judge(reading)`. Reported per variant: p50 / p99 / max, and p99 per verdict kind.
Goals on this machine: judging p99 < 0.3 ms; tree p99 < 5 ms and max < 50 ms.

Gul Bara's cascades (doubles from the fourth turn on) are known to be slow and are reported apart:
the tree build of the first stage, and the judging of the cascade's readings (later stages' trees
are built lazily while judging, so their time is in the judging figures). A cascade entry stops
judging once it has used --cascade-budget seconds; the entries cut short are counted, and so are
the readings of the chosen (legal) play that were not judged legal.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import time
from collections import defaultdict

from bench_rules import random_turns
from firmware_host.referee import Reading, Referee
from firmware_host.rules import VARIANTS, Position, Rules, Turn
from firmware_host.rules.position import WHITE, Color

LOCATIONS = ("bar",) + tuple(str(p) for p in range(1, 25)) + ("off",)


# -- readings changed by hand ------------------------------------------------------------------------

def _changed(reading: Reading, color: Color, location: str, delta: int) -> Reading:
    i = color.index
    if location in ("bar", "off"):
        pair = list(getattr(reading, location))
        pair[i] += delta
        return dataclasses.replace(reading, **{location: tuple(pair)})
    points = list(reading.white if color is WHITE else reading.black)
    points[int(location) - 1] += delta
    return dataclasses.replace(reading, **{color.value: tuple(points)})


def _count(reading: Reading, color: Color, location: str) -> int:
    if location in ("bar", "off"):
        return getattr(reading, location)[color.index]
    return (reading.white if color is WHITE else reading.black)[int(location) - 1]


def _moved(reading: Reading, color: Color, origin: str, destination: str, hit: bool = False) -> Reading:
    reading = _changed(_changed(reading, color, origin, -1), color, destination, +1)
    if hit:
        reading = _changed(_changed(reading, color.opponent, destination, -1), color.opponent, "bar", +1)
    return reading


def _play_readings(start: Reading, color: Color, play) -> list[Reading]:
    readings, reading = [], start
    for move in play.moves:
        reading = _moved(reading, color, move.origin, move.destination, move.hit)
        readings.append(reading)
    return readings


# -- the corpus --------------------------------------------------------------------------------------

@dataclasses.dataclass
class Entry:
    position: Position
    dice: tuple[int, int]
    readings: list[Reading]
    cascade: bool
    misplaced: list[tuple[str, str]]  # (origin, location) of one checker of the mover put elsewhere
    known_legal: int                  # the first readings: the start and the chosen play's prefixes


def is_cascade(turn: Turn) -> bool:
    return len(turn.stages) > 1


def corpus(variant: str, games: int, seed: int, other_plays: int, lifted: int, misplaced: int,
           options: dict[str, str] | None = None) -> list[Entry]:
    entries = []
    for position, dice, turn, chosen, rng in random_turns(variant, games, seed, options):
        cascade = is_cascade(turn)
        start, mover = Reading.of(position), position.turn
        readings = [start] + _play_readings(start, mover, chosen)
        if not cascade:
            plays = turn.plays()
            for play in rng.sample(plays, min(other_plays, len(plays))):
                readings += _play_readings(start, mover, play)
        occupied = [loc for loc in LOCATIONS if loc != "off" and _count(start, mover, loc)]
        for origin in rng.sample(occupied, min(lifted, len(occupied))):
            readings.append(_changed(start, mover, origin, -1))
        elsewhere = [(rng.choice(occupied), rng.choice(LOCATIONS)) for _ in range(misplaced)]
        entries.append(Entry(position, dice, readings, cascade, elsewhere, 1 + len(chosen.moves)))
    return entries


# -- timing ------------------------------------------------------------------------------------------

def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_ms": percentile(values, 0.50), "p99_ms": percentile(values, 0.99),
            "max_ms": max(values) if values else float("nan")}


def measure(variant: str, args) -> dict:
    rules = Rules.for_variant(variant, args.options)
    entries = corpus(variant, args.games, args.seed, args.plays, args.lifted, args.misplaced,
                     args.options)
    build, judge, by_kind = [], [], defaultdict(list)
    cascade_build, cascade_judge, cut_short, cascade_entries, misjudged = [], [], 0, 0, 0
    slowest_judge = (0.0, "")
    gc.disable()
    try:
        for entry in entries:
            built_ms = float("inf")
            for _ in range(1 if entry.cascade else args.repeat):
                t0 = time.thread_time_ns()
                referee = Referee(entry.position, entry.dice, rules)
                built_ms = min(built_ms, (time.thread_time_ns() - t0) / 1e6)
            (cascade_build if entry.cascade else build).append(built_ms)
            readings = list(entry.readings)
            # Misplaced readings: a checker put where the legal plays do not go (judged illegal).
            mover = entry.position.turn
            for origin, target in entry.misplaced:
                if target == origin or target == "bar" and not VARIANTS[variant].has_bar:
                    continue
                readings.append(_moved(Reading.of(entry.position), mover, origin, target))
            if entry.cascade:
                cascade_entries += 1
            spent = 0.0
            for index, reading in enumerate(readings):
                ms = float("inf")
                for _ in range(1 if entry.cascade else args.repeat):
                    t0 = time.thread_time_ns()
                    verdict = referee.judge(reading)
                    ms = min(ms, (time.thread_time_ns() - t0) / 1e6)
                if entry.cascade:
                    cascade_judge.append(ms)
                    misjudged += index < entry.known_legal and not verdict.legal
                    spent += ms / 1000
                    if spent > args.cascade_budget:
                        cut_short += 1
                        break
                    continue
                judge.append(ms)
                by_kind[verdict.kind].append(ms)
                if ms > slowest_judge[0]:
                    slowest_judge = (ms, f"{verdict.kind} {entry.dice[0]}-{entry.dice[1]}")
            gc.collect()
    finally:
        gc.enable()
    return {"variant": variant, "entries": len(entries) - cascade_entries,
            "build": summary(build), "judge": summary(judge),
            "by_kind": {k: summary(v) for k, v in sorted(by_kind.items())},
            "slowest_judge": slowest_judge[1],
            "cascade": {"entries": cascade_entries, "build": summary(cascade_build),
                        "judge": summary(cascade_judge), "cut_short": cut_short,
                        "legal_judged_not_legal": misjudged}}


def _ok(value: float, goal: float) -> str:
    return "ok" if value < goal else "OVER"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="random games per variant")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--variant", action="append", choices=list(VARIANTS))
    parser.add_argument("--plays", type=int, default=3, help="other legal plays per roll")
    parser.add_argument("--lifted", type=int, default=2, help="one-checker-lifted readings per roll")
    parser.add_argument("--misplaced", type=int, default=2, help="misplaced readings per roll")
    parser.add_argument("--repeat", type=int, default=3,
                        help="time each build and judgement this many times, keep the fastest "
                             "(cascades: once)")
    parser.add_argument("--cascade-budget", type=float, default=2.0,
                        help="seconds of judging per gulbara cascade roll")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a house rule for every variant measured")
    args = parser.parse_args()
    if any("=" not in option for option in args.option):
        parser.error("--option takes KEY=VALUE")
    args.options = dict(option.split("=", 1) for option in args.option)

    results = []
    print("judging one reading and building the play tree, milliseconds "
          "(goals: judge p99 < 0.3; tree p99 < 5, max < 50)")
    print(f"{'variant':15} {'rolls':>6} {'readings':>8} | {'judge p50':>9} {'p99':>6} {'max':>7} "
          f"| {'tree p50':>8} {'p99':>6} {'max':>7} | goals          slowest judged")
    for variant in args.variant or VARIANTS:
        r = measure(variant, args)
        results.append(r)
        j, b = r["judge"], r["build"]
        goals = f"{_ok(j['p99_ms'], 0.3)}/{_ok(b['p99_ms'], 5)}/{_ok(b['max_ms'], 50)}"
        print(f"{variant:15} {r['entries']:6d} {j['n']:8d} | {j['p50_ms']:9.3f} {j['p99_ms']:6.3f} "
              f"{j['max_ms']:7.2f} | {b['p50_ms']:8.3f} {b['p99_ms']:6.2f} {b['max_ms']:7.2f} | "
              f"{goals:14} {r['slowest_judge']}")
    print()
    print("judge p99 by verdict kind, ms (n)")
    kinds = ("unchanged", "partial", "complete", "in_hand", "illegal")
    print(f"{'variant':15} " + " ".join(f"{k:>17}" for k in kinds))
    for r in results:
        cells = []
        for kind in kinds:
            s = r["by_kind"].get(kind)
            cells.append(f"{s['p99_ms']:8.3f} ({s['n']:6d})" if s else f"{'-':>17}")
        print(f"{r['variant']:15} " + " ".join(cells))
    cascades = [r for r in results if r["cascade"]["entries"]]
    if cascades:
        print()
        print("gulbara cascades (doubles from the fourth turn), reported apart; later stages' trees "
              "are built while judging")
        for r in cascades:
            c = r["cascade"]
            print(f"{r['variant']:15} rolls {c['entries']:4d}  tree (first stage) p50 "
                  f"{c['build']['p50_ms']:.2f} p99 {c['build']['p99_ms']:.2f} max "
                  f"{c['build']['max_ms']:.2f} ms  |  judge n {c['judge']['n']} p50 "
                  f"{c['judge']['p50_ms']:.2f} p99 {c['judge']['p99_ms']:.2f} max "
                  f"{c['judge']['max_ms']:.1f} ms  |  rolls cut short at {args.cascade_budget:g} s: "
                  f"{c['cut_short']}")
            print(f"{'':15} readings of the chosen legal plays judged not legal: "
                  f"{c['legal_judged_not_legal']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump({"args": vars(args), "results": results}, file, indent=2)


if __name__ == "__main__":
    main()
