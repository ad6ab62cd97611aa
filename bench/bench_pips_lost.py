"""Where a parallel game's pips go: the pips each side loses (dice rolled less pips moved) per game,
the bot against the heuristic or the random player.

Run: .venv/bin/python bench/bench_pips_lost.py VARIANT [--opponent heuristic|random] [--games N] [--seed S]
         [--json FILE]

Why: in the parallel games nobody is hit, so the better player wins by the pips the other loses:
to blocks, to passes and, in Gul Bara, to cascades cut short (a stage that cannot be played in full
ends the turn). `bench_luck.py` says how big a lead of pips must be to win a given share of races;
this says how big the lead is between two players, and how much of each side's loss comes from
cascades played before all its checkers are home (after that, dice that overshoot in the bear-off
are lost too, but cost little). Each game's last turn is left out: the winner's last roll is mostly
beyond what he needed. Seats and starters alternate as in `bench_bot.py`.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: BLAS threads only contend

import argparse
import json
import random
from pathlib import Path

from firmware_host.bot import Bot, HeuristicPlayer, RandomPlayer
from firmware_host.bot.arena import mean_and_half_width, play_game, seats
from firmware_host.bot.players import Player
from firmware_host.rules import BLACK, VARIANTS, WHITE, Color, Play, Position, Rules, Turn
from firmware_host.rules.plays import Frame
from firmware_host.rules.variants import Family

HOME_FROM = 19   # the mover's home is route points 19..24 (`rules.plays.Frame`: 0 the bar, 1..24 his route)


def pips_to_go(position: Position, side: Color, rules: Rules) -> int:
    """The pips `side`'s checkers still have to travel."""
    checkers = Frame(position, side, rules).node[0]
    return sum(count * (25 - point) for point, count in enumerate(checkers[:25]))


def pips_lost(turn: Turn, play: Play) -> int:
    """The pips of the roll (every stage of a cascade) that the play does not move."""
    rolled = sum(sum(stage) for stage in turn.stages)
    moved = pips_to_go(turn.position, turn.mover, turn.rules) - pips_to_go(play.position, turn.mover, turn.rules)
    return rolled - moved


def cascade_before_home(turn: Turn) -> bool:
    return len(turn.stages) > 1 and sum(turn.start[0][:HOME_FROM]) > 0


def game(rules: Rules, players: dict[Color, Player], starter: Color, rng: random.Random) -> tuple[dict, Color | None]:
    """One game: each side's pips lost, in all and in cascades before home, and the winner."""
    lost = {side: {"all": 0, "cascades_before_home": 0} for side in (WHITE, BLACK)}

    def count(turn: Turn, play: Play) -> None:
        loss = pips_lost(turn, play)
        lost[turn.mover]["all"] += loss
        if cascade_before_home(turn):
            lost[turn.mover]["cascades_before_home"] += loss

    result = play_game(rules, players, starter, rng, on_play=count)
    return lost, result.winner if result else None


def measure(variant: str, opponent_name: str, games: int, seed: int) -> dict:
    rules = Rules.for_variant(variant)
    bot = Bot.trained(rules)
    opponent = HeuristicPlayer(rules) if opponent_name == "heuristic" else RandomPlayer()
    rng = random.Random(seed)
    per_game: dict[str, list[int]] = {key: [] for key in
                                      ("bot", "opponent", "bot_cascades", "opponent_cascades", "lead")}
    won = 0
    for number in range(games):
        bot_side, starter = seats(number)
        lost, winner = game(rules, {bot_side: bot, bot_side.opponent: opponent}, starter, rng)
        won += winner == bot_side
        mine, theirs = lost[bot_side], lost[bot_side.opponent]
        for key, value in (("bot", mine["all"]), ("opponent", theirs["all"]),
                           ("bot_cascades", mine["cascades_before_home"]),
                           ("opponent_cascades", theirs["cascades_before_home"]),
                           ("lead", theirs["all"] - mine["all"])):
            per_game[key].append(value)
    return {"variant": variant, "opponent": opponent_name, "games": games, "seed": seed,
            "bot_won": round(won / games, 4),
            "pips_lost_per_game": {key: dict(zip(("mean", "plus_minus_95"),
                                                 (round(number, 1) for number in mean_and_half_width(values))))
                                   for key, values in per_game.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", choices=[name for name in VARIANTS
                                            if Rules.for_variant(name).variant.family is Family.PARALLEL])
    parser.add_argument("--opponent", choices=("heuristic", "random"), default="heuristic")
    parser.add_argument("--games", type=int, default=1_000, help="games (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be at least 2 (a spread needs two games)")
    result = measure(args.variant, args.opponent, args.games, args.seed)
    lost = result["pips_lost_per_game"]
    print(f"{args.variant}: the bot won {result['bot_won']:.1%} of {args.games} against the {args.opponent} "
          "player; pips lost per game "
          + ", ".join(f"{key} {value['mean']:.1f} +- {value['plus_minus_95']:.1f}" for key, value in lost.items()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
