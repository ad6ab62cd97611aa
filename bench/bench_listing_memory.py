"""Peak memory and time of `tavli-board moves` listing a Gul Bara cascade with many plays (issue 29).

Run: .venv/bin/python bench/bench_listing_memory.py [--dice 4 3] [--tree PATH ...] [--max-plays N]

Each listing runs as its own process (`python -m firmware_host moves --position ... --dice d d
--max-plays N`, default 2,000,000, its answer written to a file), and its peak resident memory is
the kernel's (the child's ru_maxrss from wait4), beside the number of plays and the wall time; a
roll with more plays than N is refused by `moves` (its peak is then what the refusal took).
--tree names a checkout to run instead of this one (its code first on PYTHONPATH), e.g. the code
before a change.
The position: a Gul Bara opening after three turns each, White's checkers spread from 24, where low
doubles cascade through 1s to 6s: 4-4 has 22,316 distinct plays, 3-3 424,189.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASCADE = {"variant": "gulbara", "turn": "white", "rolls": {"white": 3, "black": 3},
           "white": {"points": {"14": 1, "22": 1, "23": 2, "24": 11}},
           "black": {"points": {"12": 5, "2": 3, "4": 1, "5": 1, "6": 4, "8": 1}}}
PLAY_MARK = b'{"moves": ['   # begins every play of a listing, and nothing else


def listing(tree: Path, die: int, position_file: Path, answer: Path, max_plays: int
            ) -> tuple[int, float, int | None]:
    """(peak RSS in KiB, wall seconds, plays or None where refused) of one `moves` run from `tree`."""
    environment = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-m", "firmware_host", "moves", "--position", str(position_file),
               "--dice", str(die), str(die), "--max-plays", str(max_plays)]
    start = time.monotonic()
    with answer.open("wb") as out:
        child = subprocess.Popen(command, cwd=tree, env=environment, stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode == 2:    # more plays than max_plays: refused
        return usage.ru_maxrss, seconds, None
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    plays, tail = 0, b""
    with answer.open("rb") as text:
        while chunk := text.read(1 << 20):
            plays += (tail + chunk).count(PLAY_MARK)
            tail = chunk[-(len(PLAY_MARK) - 1):]
    return usage.ru_maxrss, seconds, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, nargs="+", default=[4], metavar="D",
                        help="the doubles to list, d-d each (default 4: 22,316 plays; 3: 424,189)")
    parser.add_argument("--tree", type=Path, action="append",
                        help="a checkout to run (repeatable; default: this one)")
    parser.add_argument("--max-plays", type=int, default=2_000_000,
                        help="moves' --max-plays (default %(default)s; the command's own default is 100000)")
    args = parser.parse_args()
    print(f"{'tree':40} {'roll':>4} {'plays':>8} {'peak RSS MB':>11} {'KB/play':>8} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as folder:
        position_file = Path(folder) / "cascade.json"
        position_file.write_text(json.dumps(CASCADE))
        for tree in args.tree or [ROOT]:
            for die in args.dice:
                peak, seconds, plays = listing(tree.resolve(), die, position_file, Path(folder) / "answer.json",
                                               args.max_plays)
                counted = f"{plays:8d}" if plays is not None else f"{'refused':>8}"
                per_play = f"{peak / max(plays, 1):8.2f}" if plays is not None else f"{'':8}"
                print(f"{str(tree):40} {die}-{die:<2} {counted} {peak / 1024:11.1f} {per_play} {seconds:8.1f}",
                      flush=True)


if __name__ == "__main__":
    main()
