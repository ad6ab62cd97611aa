"""Journal benchmarks: how long a committed play takes to be on disk, and opening a long journal.

    .venv/bin/python bench/bench_journal.py [--plays 2000] [--dir /path/on/the/sd/card] [--json FILE]

- committed play: `record_roll` + `record_play` of a real portes game (one transaction each, WAL,
  synchronous=FULL: fsync before returning); the time from the press that commits to the next roll
  being shown is this plus the LEDs. Measured also with synchronous=NORMAL, for what FULL costs.
- open + resume: `Journal.open` of a journal holding --matches finished matches and one unfinished,
  which folds only the unfinished match.
Run it with --dir on the medium the Pi uses: fsync on an SD card is far slower than on this machine.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "journal"))

from firmware_host.journal import Journal  # noqa: E402
from firmware_host.rules.match import MatchRules  # noqa: E402
from journal_kit import play_match, start_next_game  # noqa: E402
from firmware_host.rules import Turn  # noqa: E402


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": statistics.median(ordered) * 1000, "p99_ms": ordered[int(len(ordered) * 0.99) - 1] * 1000,
            "max_ms": ordered[-1] * 1000}


def time_plays(path: Path, plays: int, synchronous: str) -> dict[str, float]:
    journal = Journal.open(path)
    journal._db.execute(f"PRAGMA synchronous = {synchronous}")
    rng = random.Random(1)
    samples = []
    while len(samples) < plays:
        if journal.resume() is None:
            journal.start_match(MatchRules(sequence=("portes",), target=1000))
        if journal.resume().game is None:
            start_next_game(journal, rng)
            continue
        game = journal.resume().game
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        play = Turn(game.position, dice, game.rules).pick_play(rng.choice)
        start = time.perf_counter()
        journal.record_roll(game.side_to_move, dice)
        journal.record_play(game.side_to_move, dice, play)
        samples.append(time.perf_counter() - start)
    journal.close()
    return percentiles(samples)


def time_open(path: Path, matches: int) -> dict[str, float]:
    journal = Journal.open(path)
    rng = random.Random(2)
    for _ in range(matches):
        journal.start_match(MatchRules(sequence=("portes",), target=1))
        play_match(journal, rng)
    journal.start_match(MatchRules(sequence=("portes",), target=3))
    for _ in range(40):
        if journal.resume().game is None:
            start_next_game(journal, rng)
    journal.close()
    samples = []
    for _ in range(20):
        start = time.perf_counter()
        Journal.open(path).close()
        samples.append(time.perf_counter() - start)
    return {**percentiles(samples), "matches": matches, "file_kb": path.stat().st_size // 1024}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=200, help="finished matches in the journal to open")
    parser.add_argument("--dir", type=Path, help="where to put the journals (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        folder = Path(folder)
        results = {f"committed_play_{mode.lower()}": time_plays(folder / f"{mode}.sqlite3", args.plays, mode)
                   for mode in ("FULL", "NORMAL")}
        results["open_and_resume"] = time_open(folder / "long.sqlite3", args.matches)
    print(f"roll + committed play, {args.plays} plays (milliseconds, {folder.parent})")
    for mode in ("full", "normal"):
        figures = results[f"committed_play_{mode}"]
        print(f"  synchronous={mode.upper():<7} p50 {figures['p50_ms']:6.2f}   p99 {figures['p99_ms']:6.2f}   "
              f"max {figures['max_ms']:7.2f}")
    figures = results["open_and_resume"]
    print(f"open + resume with {args.matches} finished matches ({figures['file_kb']} KiB): "
          f"p50 {figures['p50_ms']:.2f} ms   p99 {figures['p99_ms']:.2f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
