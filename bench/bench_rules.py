"""Legal-play generation speed per variant, on a seeded corpus of positions from random play.

Run: .venv/bin/python bench/bench_rules.py [--games N] [--seed S] [--variant V ...]

For each variant, N random games are played from the start (seeded dice and choices); every
position met, with the roll that was thrown there, goes into the corpus. Each corpus entry is then
timed: all distinct plays are generated (`Turn.plays`). Reported: positions, plays per second, and
p50 / p99 / max milliseconds per position, with the slowest position's roll and play count. Times
are the thread's CPU time, so other processes on the machine do not inflate them.
Goal on the CI machine: p99 under 5 ms and max under 50 ms for every variant.

Gulbara cascades of low doubles in open positions have up to hundreds of thousands of distinct
plays; such entries are timed like any other, with a cap (--max-plays) past which the entry is
reported separately instead of timed to the end.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from typing import Iterator

from firmware_host.rules import VARIANTS, Play, Position, Rules, Turn, blocked_for_good
from firmware_host.rules.plays import TooManyPlays


def random_turns(variant: str, games: int, seed: int
                 ) -> Iterator[tuple[Position, tuple[int, int], Turn, Play, random.Random]]:
    """Every turn of `games` seeded random games: position, roll, turn, the play chosen, and the
    generator (for callers that draw more choices from the same seeded stream)."""
    rng = random.Random(f"{seed}:{variant}")
    rules = Rules.for_variant(variant)
    for _ in range(games):
        position = Position.start(variant, rng.choice(("white", "black")))
        while True:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            turn = Turn(position, dice, rules)
            play = turn.pick_play(rng.choice)
            yield position, dice, turn, play, rng
            if play.result is not None or not play.moves and blocked_for_good(play.position, rules):
                break  # over, or can never move again (a mutual blockade with no draw rule)
            position = play.position


def corpus(variant: str, games: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    return [(position, dice) for position, dice, *_ in random_turns(variant, games, seed)]


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def measure(variant: str, games: int, seed: int, max_plays: int) -> dict:
    rules = Rules.for_variant(variant)
    entries = corpus(variant, games, seed)
    times, total_plays, too_many = [], 0, []
    slowest = (0.0, None, 0)
    for position, dice in entries:
        start = time.thread_time()
        try:
            plays = Turn(position, dice, rules).plays(limit=max_plays)
        except TooManyPlays:
            too_many.append((dice, time.thread_time() - start))
            continue
        elapsed = time.thread_time() - start
        times.append(elapsed)
        total_plays += len(plays)
        if elapsed > slowest[0]:
            slowest = (elapsed, dice, len(plays))
    times.sort()
    return {
        "variant": variant, "positions": len(entries), "plays_per_s": total_plays / sum(times),
        "p50_ms": 1000 * percentile(times, 0.50), "p99_ms": 1000 * percentile(times, 0.99),
        "max_ms": 1000 * times[-1], "mean_ms": 1000 * statistics.fmean(times),
        "slowest": f"{slowest[1][0]}-{slowest[1][1]} ({slowest[2]} plays)",
        "over_cap": too_many,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="random games per variant")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--variant", action="append", choices=list(VARIANTS))
    parser.add_argument("--max-plays", type=int, default=20_000)
    args = parser.parse_args()
    print(f"{'variant':15} {'positions':>9} {'plays/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'max ms':>7}  slowest")
    for variant in args.variant or VARIANTS:
        r = measure(variant, args.games, args.seed, args.max_plays)
        print(f"{variant:15} {r['positions']:9d} {r['plays_per_s']:9.0f} {r['p50_ms']:7.2f} "
              f"{r['p99_ms']:7.2f} {r['max_ms']:7.2f}  {r['slowest']}")
        for dice, seconds in r["over_cap"]:
            print(f"{'':15} cascade {dice[0]}-{dice[1]}: more than {args.max_plays} distinct plays "
                  f"(stopped after {seconds * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
