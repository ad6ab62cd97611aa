"""Screen networks (a training run's kept checkpoints) against the baselines, in parallel, to pick
the one to ship.

Run: .venv/bin/python bench/screen_checkpoints.py VARIANT NPZ... [--games N] [--opponent random|heuristic|gnubg ...]
         [--seed S] [--jobs J] [--json FILE]

A TD network's strength wanders from checkpoint to checkpoint (fevga, trained on from the shipped
net: 58% against the heuristic, then 47%, 56%, 47% at the next three checkpoints of 1,000 games),
so `tavli-board train --keep-checkpoints` keeps them all and this script plays each against each
opponent (`--games` games, seats and starts alternated as in bench_bot.py; gnubg's 0-ply for Portes
as there) and ranks them. The screen's dice (`--seed`, 7 by default) differ from bench_bot.py's
(2026), so the pick's bench series is not the series it was picked on.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: BLAS threads only contend

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from bench_bot import GnubgPlayer, gnubg_executable
from firmware_host.bot import Bot, HeuristicPlayer, RandomPlayer
from firmware_host.bot.arena import series
from firmware_host.bot.network import Network
from firmware_host.rules import VARIANTS, Rules


def screen(variant: str, path: str, opponent: str, games: int, seed: int) -> dict:
    rules = Rules.for_variant(variant)
    try:
        bot = Bot(rules, Network.from_bytes(Path(path).read_bytes()))
    except (OSError, ValueError) as error:
        return {"network": path, "opponent": opponent, "error": f"not a network: {error}"}
    other = {"gnubg": lambda: GnubgPlayer(gnubg_executable()), "heuristic": lambda: HeuristicPlayer(rules),
             "random": RandomPlayer}[opponent]()
    try:
        tally = series(rules, bot, other, games, random.Random(seed))
    finally:
        if isinstance(other, GnubgPlayer):
            other.close()  # its child process
    return {"network": path, "opponent": opponent, "games": tally.games, "win_rate": tally.win_rate,
            "win_rate_95": list(tally.win_rate_interval()), "points_per_game": tally.points_per_game}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", choices=list(VARIANTS))
    parser.add_argument("networks", nargs="+", help="the .npz files to screen")
    parser.add_argument("--games", type=int, default=400, help="games per network and opponent (default: %(default)s)")
    parser.add_argument("--opponent", action="append", choices=("random", "heuristic", "gnubg"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    opponents = args.opponent or ["heuristic"]
    if "gnubg" in opponents and args.variant != "portes":
        parser.error("gnubg plays Portes only")
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(screen, args.variant, path, opponent, args.games, args.seed)
                   for path in args.networks for opponent in opponents]
        results = []
        for future in as_completed(futures):  # each as it comes, so that a run cut short keeps them
            results.append(future.result())
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    by_network: dict[str, dict[str, dict]] = {}
    for error in sorted({(r["network"], r["error"]) for r in results if "error" in r}):
        print(f"{error[0]:60} {error[1]}")
    for result in results:
        if "error" not in result:
            by_network.setdefault(result["network"], {})[result["opponent"]] = result
    ranked = sorted(by_network.items(), key=lambda item: -item[1].get(opponents[0], {}).get("win_rate", -1))
    for path, against in ranked:
        print(f"{path:60} " + "  ".join(
            f"{name} {r['win_rate']:6.1%} [{r['win_rate_95'][0]:.1%}, {r['win_rate_95'][1]:.1%}] "
            f"{r['points_per_game']:+.2f}" for name, r in against.items()))
    if args.json:
        args.json.write_text(json.dumps({"variant": args.variant, "seed": args.seed, "results": results},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
