"""Soak campaign throughput, and the figures of a long campaign.

    .venv/bin/python bench/bench_soak.py [--games 50] [--faults 0.05] [--seed 1] [--json bench/results/soak.json]

Runs a campaign (`firmware_host.hil.soak`) in this process and reports what it played and how fast:
games a minute, turns a second, virtual seconds played per wall second, and the campaign's own
figures (false verdicts, crashes, plays lost). The long campaigns of `tavli-board hil soak --json`
are kept in bench/ (bench/records/soak-campaign-2026-11-22.json: the 10,000-game campaign).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from firmware_host.hil.soak import SoakSettings, run_campaign


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--faults", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = run_campaign(SoakSettings(games=args.games, fault_rate=args.faults, seed=args.seed))
    results = {
        "games": figures.games, "fault_rate": args.faults, "seed": args.seed,
        "games_a_minute": round(60 * figures.games / figures.wall_s, 1),
        "turns_a_second": round(figures.turns / figures.wall_s, 1),
        "virtual_s_per_wall_s": round(figures.virtual_s / figures.wall_s, 1),
        "figures": figures.to_json(),
    }
    print(figures.report())
    print(f"{results['games_a_minute']} games a minute, {results['turns_a_second']} turns a second, "
          f"{results['virtual_s_per_wall_s']} s of play a second")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
