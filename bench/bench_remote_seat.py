"""A remote match of every game between two simulated boards over a broker (issue 31, item 3).

    PYTHONPATH=$PWD .venv/bin/python bench/bench_remote_seat.py [--games portes,fevga] [--seed 3]
        [--speed 8] [--broker auto|mosquitto|embedded] [--json FILE]

For each game, a match to 1 point: table-1's scripted players play white, table-2's black; each
board's players move the other board's plays as their lights show them (firmware_host/demo/club.py,
the same boards `tavli-board club demo` runs). Recorded per game: the wall time, the plays and rolls,
whether both journals hold the same dice in the same order and the same plays, the winner on each
board, and the faults either journal holds. The refusals (a forged, a replayed or an unrevealed
message) are tests, not figures: tests/club/test_remote_seat_refusals.py.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from firmware_host.demo.club import last_match, open_board, play_on_threads, remote_pair, start_broker
from firmware_host.journal import JournalReader, Kind
from firmware_host.rules import VARIANTS
from firmware_host.rules.match import MatchRules
from machine import machine_text


def faults(journal: Path) -> list[str]:
    with JournalReader.open(journal) as reader:
        return [event.data["fault"] for event in reader.tail(100_000) if event.kind == Kind.FAULT]


def one_match(folder: Path, port: int, game: str, seed: int, speed: float) -> dict:
    board_a, board_b = remote_pair(("table-1", "table-2"), folder, "127.0.0.1", port, "bench",
                                   MatchRules(sequence=(game,), target=1), seed=seed, speed=speed,
                                   outs=(io.StringIO(), io.StringIO()))
    started = time.monotonic()
    with open_board(board_a) as demo_a, open_board(board_b) as demo_b:
        played = play_on_threads([demo_a, demo_b], seed=seed)
    seconds = time.monotonic() - started
    a, b = last_match(board_a.journal), last_match(board_b.journal)
    errors = [repr(result.error) for result in played if result.error is not None]
    return {
        "game": game, "seconds": round(seconds, 1), "plays": len(a.plays), "rolls": len(a.dice),
        "seconds_per_play": round(seconds / max(len(a.plays), 1), 2),
        "same_dice": a.dice == b.dice, "same_plays": a.plays == b.plays, "same_end": a.ended == b.ended,
        "winner": [None if result.view is None else result.view.match.winner.value for result in played],
        "faults": {"table-1": faults(board_a.journal), "table-2": faults(board_b.journal)},
        "errors": errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(VARIANTS), help="comma-separated (default: every game)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--speed", type=float, default=8.0)
    parser.add_argument("--broker", choices=("auto", "mosquitto", "embedded"), default="auto")
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    games = [game for game in args.games.split(",") if game]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-remote-seat-") as folder:
        broker = start_broker(args.broker, Path(folder))
        try:
            for game in games:
                result = one_match(Path(folder) / game, broker.port, game, args.seed, args.speed)
                print(json.dumps(result), flush=True)
                results.append(result)
        finally:
            broker.close()
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_text(),
        "python": sys.version.split()[0],
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "broker": broker.name, "seed": args.seed, "speed": args.speed,
        "all_same": all(r["same_dice"] and r["same_plays"] and r["same_end"] and not r["errors"] for r in results),
        "matches": results,
    }
    if args.json:
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    print(f"every journal pair the same: {record['all_same']}")
    return 0 if record["all_same"] else 1


if __name__ == "__main__":
    sys.exit(main())
