"""How much of a parallel game the dice decide: the head start a player needs in a pure race to win
a given share of games, with ordinary doubles and with Gul Bara's cascades.

Run: .venv/bin/python bench/bench_luck.py [--games N] [--seed S] [--json FILE]

Why: in the parallel games (fevga, moultezim, gulbara, narde) nobody is hit or pinned, so a random
player wastes few pips; the better player's edge is the pips it denies him (blocks, passes, lost
dice of a cascade) and a tidier bear-off. The model is a race of dice alone: each side must move
360 pips (15 checkers, 24 pips each, from the start to off), the sides roll in turn and the
starter alternates; the weaker side must roll H pips more (the pips it loses to blocks, passes and
lost dice), so the edge is a head start of H pips. A double counts four times; in
Gul Bara, from the game's fourth turn on (gulbara_protected_turns = 3 for the game), a double n-n
counts as its cascade, four times each of n..6. Bear-off waste and dice a block makes unplayable
are left out, so the figures say how big an edge must be, not how big one is. Reported: the share
of games the side with the head start wins, for each H.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

RACE_PIPS = 15 * 24
PROTECTED_TURNS = 3
HEAD_STARTS = (0, 20, 40, 60, 80, 100, 120, 160, 200, 250, 300)


def roll_pips(rng: random.Random, cascades: bool, turn: int) -> int:
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    if a != b:
        return a + b
    if cascades and turn >= PROTECTED_TURNS:
        return sum(4 * n for n in range(a, 7))
    return 4 * a


def share_won(head_start: int, cascades: bool, games: int, rng: random.Random) -> float:
    """The share of races won by the side whose opponent needs `head_start` pips more."""
    won = 0
    for game in range(games):
        needed = [RACE_PIPS, RACE_PIPS + head_start]   # [the side with the head start, the other]
        side, turn = game % 2, 0
        while True:
            needed[side] -= roll_pips(rng, cascades, turn)
            if needed[side] <= 0:
                break
            side, turn = 1 - side, turn + 1
        won += side == 0
    return won / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="races per head start (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for name, cascades in (("doubles", False), ("gulbara cascades", True)):
        rng = random.Random(f"{args.seed}:{name}")
        row = {str(h): round(share_won(h, cascades, args.games, rng), 4) for h in HEAD_STARTS}
        results[name] = row
        print(f"{name:17} " + "  ".join(f"+{h}: {share:.1%}" for h, share in row.items()), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"games": args.games, "seed": args.seed, "share_won": results},
                                        indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
