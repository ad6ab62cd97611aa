"""What recording why a board is illegal costs the referee (issue 28: the verdict's refusals are found
as the referee decides, on its judging thread, no longer by a second rules check on the companion's).

Seeded random games of each variant without cascades; at each roll, boards one wrong checker move
from the turn's start (a random checker of the mover's to a random point); for those the referee calls
illegal: the time of the whole `Referee.judge` and of `refusals` alone (the same call `_illegal` makes).

    python bench/bench_refusals.py [--games N] [--seed S] [--json FILE]
"""
from __future__ import annotations

import argparse
import datetime
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_host.referee import Reading, Referee, VerdictKind  # noqa: E402
from firmware_host.referee.refusal import refusals  # noqa: E402
from firmware_host.rules import BLACK, WHITE, Position, Turn  # noqa: E402
from machine import machine_text

VARIANTS = ("portes", "tavla", "plakoto", "tapa", "neverfinishing", "fevga", "moultezim", "narde")


def wrong_boards(position: Position, rng: random.Random, tries: int) -> list[Reading]:
    """Boards one checker of the mover's moved from a point it holds to any other point."""
    mover = position.turn
    held = [p for p in range(1, 25) if position.count(mover, p)]
    boards = []
    for _ in range(tries):
        origin, destination = rng.choice(held), rng.randint(1, 24)
        points = list(position.white if mover is WHITE else position.black)
        points[origin - 1] -= 1
        points[destination - 1] += 1
        white, black = (tuple(points), position.black) if mover is WHITE else (position.white, tuple(points))
        boards.append(Reading(position.variant, white, black, position.bar, position.off))
    return boards


def measure(variant: str, games: int, rng: random.Random) -> dict:
    judged, refused = [], []
    for _ in range(games):
        position = Position.start(variant, rng.choice([WHITE, BLACK]))
        for _ in range(60):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            referee = Referee(position, dice)
            for reading in wrong_boards(position, rng, 3):
                started = time.perf_counter()
                verdict = referee.judge(reading)
                judge_s = time.perf_counter() - started
                if verdict.kind is not VerdictKind.ILLEGAL:
                    continue
                started = time.perf_counter()
                refusals(referee.position, tuple(referee.turn.dice), reading, referee.turn.rules, referee._legal_starts)
                refused.append(time.perf_counter() - started)
                judged.append(judge_s)
            plays = Turn(position, dice).plays()
            play = rng.choice(plays)
            if play.result is not None:
                break
            position = play.position
    return {"illegal_boards": len(judged),
            "judge_ms_median": round(statistics.median(judged) * 1000, 3),
            "judge_ms_p95": round(sorted(judged)[int(len(judged) * 0.95)] * 1000, 3),
            "refusals_ms_median": round(statistics.median(refused) * 1000, 3),
            "refusals_ms_p95": round(sorted(refused)[int(len(refused) * 0.95)] * 1000, 3),
            "refusals_share_of_judge": round(sum(refused) / sum(judged), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    results = {variant: measure(variant, args.games, rng) for variant in VARIANTS}
    record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine_text(),
              "command": " ".join(["python", "bench/bench_refusals.py", *sys.argv[1:]]),
              "variants": results}
    for variant, figures in results.items():
        print(f"{variant}: {figures}")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
