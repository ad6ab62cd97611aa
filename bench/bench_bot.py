"""The bot's strength: series against the random and the heuristic players in every game, and
Portes against GNU Backgammon's 0-ply play.

Run: .venv/bin/python bench/bench_bot.py [--games N] [--variant V ...] [--opponent random|heuristic ...]
         [--baseline] [--gnubg-games N] [--seed S] [--json FILE]

Every series alternates the bot's colour every game and the starter every two games (the four
seat-and-start pairings equally often). Reported: the bot's win rate with Wilson's 95% interval,
and its points per game (+ won, - lost, under the game's scoring) with the normal 95% interval.
Goals: >= 95% of games against the random player, >= 70% against the heuristic, >= 40% against
gnubg's 0-ply. Also: the bot's decision time (thread CPU) p50/p99 per variant; goal p99 < 50 ms;
and of its Gul Bara cascades alone, also under the house rule gulbara_cascade_maximize =
whole_cascade (reported as its own series, "gulbara/whole_cascade"); and with --baseline the heuristic player against the random one, the yardstick of how much of a
game is luck (a plain player that loses many games to random play shows a game of dice).

GNU Backgammon (Debian's `gnubg`) runs as a child process with its Python scripting (`gnubg -t
-q -p`): for each of its turns our side sends the position as gnubg's board arrays and the dice,
and gnubg answers its best move at 0-ply ("evaluation chequerplay 0-ply", cubeless, no cube).
Portes has no cube, no backgammons (a gammon is 2) and no Crawford rule: gnubg's evaluation is of
money play cubeless, where a backgammon counts 3, so it plays slightly differently from optimal
Portes near a backgammon; the effect is small.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: BLAS threads only contend

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from firmware_host.bot import Bot, HeuristicPlayer, RandomPlayer
from firmware_host.bot.arena import Tally, series
from firmware_host.rules import VARIANTS, WHITE, Color, Play, Position, Rules, Turn


class TimedBot:
    """The bot, with the thread CPU time of every decision recorded (a cascade's also apart)."""

    def __init__(self, bot: Bot):
        self.bot, self.times, self.cascade_times = bot, [], []

    def choose(self, turn: Turn, rng: random.Random) -> Play:
        start = time.thread_time()
        play = self.bot.choose(turn, rng)
        spent = time.thread_time() - start
        self.times.append(spent)
        if len(turn.stages) > 1:
            self.cascade_times.append(spent)
        return play

    def report(self) -> dict[str, float]:
        """p50, p99 and max in ms of every decision, and of the cascades' (with their count)."""
        report = {}
        for prefix, times in (("", sorted(self.times)), ("cascade_", sorted(self.cascade_times))):
            for name, fraction in (("p50", 0.5), ("p99", 0.99), ("max", 1.0)):
                at = times[min(len(times) - 1, int(fraction * len(times)))] if times else 0.0
                report[prefix + name] = round(1000 * at, 2)
        report["cascades"] = len(self.cascade_times)
        return report


def line(name: str, tally: Tally) -> str:
    low, high = tally.win_rate_interval()
    p_low, p_high = tally.points_interval()
    return (f"{name:36} {tally.games:6d}  win {tally.win_rate:6.1%} [{low:6.1%}, {high:6.1%}]  "
            f"points/game {tally.points_per_game:+.3f} [{p_low:+.3f}, {p_high:+.3f}]")


# -- GNU Backgammon ---------------------------------------------------------------------------------

# Every script run inside gnubg (its Python scripting) ends with this: gnubg set to cubeless 0-ply
# play (after the script's own SETTINGS), READY, then for each line read, "board0 board1 die1 die2
# [more numbers]" (gnubg's two 25-point arrays, the side to move second), the one line that the
# script's answer(board, dice, more) returns.
GNUBG_LOOP = r'''
for setting in SETTINGS + ("set jacoby off", "set cube use off", "new game",
                           "set evaluation chequerplay evaluation plies 0",
                           "set evaluation chequerplay evaluation cubeful off"):
    gnubg.command(setting)
context, cube = gnubg.evalcontext(), gnubg.cubeinfo()
sys.stdout.write("READY\n")
sys.stdout.flush()
for text in sys.stdin:
    numbers = [int(n) for n in text.split()]
    board, dice = (tuple(numbers[0:25]), tuple(numbers[25:50])), (numbers[50], numbers[51])
    sys.stdout.write(answer(board, dice, numbers[52:]) + "\n")
    sys.stdout.flush()
'''

# gnubg's best move as "from to from to ...".
BEST_MOVE_ANSWER = r'''
def answer(board, dice, more):
    return " ".join(str(n) for n in gnubg.findbestmove(board, cube, context, dice))
'''


def gnubg_executable() -> str:
    executable = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")  # Debian's place
    if executable is None:
        sys.exit("gnubg is not installed (apt-get install gnubg)")
    return executable


class GnubgChild:
    """gnubg running a script of its Python scripting that defines `answer` (see GNUBG_LOOP), after
    the gnubg commands `settings`: each line of numbers sent gets one line back."""

    def __init__(self, executable: str, answer: str, settings: tuple[str, ...] = ()):
        folder = Path(tempfile.mkdtemp())
        path = folder / "script.py"
        path.write_text(f"import sys\nimport time\nimport gnubg\nSETTINGS = {settings!r}\n{answer}{GNUBG_LOOP}")
        # gnubg stops at once where $HOME does not exist; its own home also keeps the user's ~/.gnubg out.
        self.process = subprocess.Popen([executable, "-t", "-q", "-p", str(path)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, "HOME": str(folder)})
        while self.process.stdout.readline().strip() != "READY":  # past gnubg's greeting and board
            if self.process.poll() is not None:
                raise RuntimeError("gnubg stopped before it was ready")

    def ask(self, numbers: list[int]) -> list[str]:
        self.process.stdin.write(" ".join(map(str, numbers)) + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().split()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


class GnubgPlayer(GnubgChild):
    """GNU Backgammon's 0-ply play of Portes (= backgammon without the cube)."""

    def __init__(self, executable: str):
        super().__init__(executable, BEST_MOVE_ANSWER)

    @staticmethod
    def board(position: Position) -> tuple[list[int], list[int]]:
        """gnubg's board: two arrays of 25 (points 1..24 from each side's own view, then its bar),
        the opponent of the side to move first."""
        def side(color: Color) -> list[int]:
            checkers = position.checkers(color)
            # gnubg's index i is the side's own point i + 1 (its home is 0..5); White's points are
            # ours, Black's are 25 - ours.
            own = [checkers[i] for i in range(24)] if color is WHITE else [checkers[23 - i] for i in range(24)]
            return own + [position.bar[color.index]]
        mover = position.turn
        return side(mover.opponent), side(mover)

    def choose(self, turn: Turn, rng: random.Random) -> Play:
        plays = turn.plays()
        if len(plays) == 1:
            return plays[0]
        theirs, mine = self.board(turn.position)
        answer = [int(n) for n in self.ask(theirs + mine + list(turn.dice))]
        # Pairs (from, to) of the mover's own points 1..24, 25 the bar, 0 off; a pair from 0 is unused.
        mover = turn.mover

        def name(point: int) -> str:
            if point == 25:
                return "bar"
            if point == 0:
                return "off"
            return str(point if mover is WHITE else 25 - point)
        wanted = [(name(answer[i]), name(answer[i + 1])) for i in range(0, len(answer), 2) if answer[i]]
        for play in plays:
            if self._matches(play, wanted, turn):
                return play
        raise RuntimeError(f"gnubg's move {answer} is none of the legal plays of {turn.dice}")

    @staticmethod
    def _matches(play: Play, wanted: list[tuple[str, str]], turn: Turn) -> bool:
        """gnubg lists each checker's whole way (from, to) possibly merged across dice; compare by
        the position reached instead of the path."""
        return GnubgPlayer._apply(turn.position, wanted) == play.position.board_key()

    @staticmethod
    def _apply(position: Position, moves: list[tuple[str, str]]) -> tuple:
        mover, other = position.turn, position.turn.opponent
        mine, theirs = list(position.checkers(mover)), list(position.checkers(other))
        bar, off = list(position.bar), list(position.off)
        for origin, destination in moves:
            if origin == "bar":
                bar[mover.index] -= 1
            else:
                mine[int(origin) - 1] -= 1
            if destination == "off":
                off[mover.index] += 1
                continue
            point = int(destination) - 1
            if theirs[point] == 1:
                theirs[point] = 0
                bar[other.index] += 1
            mine[point] += 1
        white, black = (mine, theirs) if mover is WHITE else (theirs, mine)
        return (tuple(white), tuple(black), tuple(bar), tuple(off), (None,) * 24)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pairing (default: %(default)s)")
    parser.add_argument("--variant", action="append", choices=list(VARIANTS))
    parser.add_argument("--opponent", action="append", choices=("random", "heuristic"))
    parser.add_argument("--baseline", action="store_true",
                        help="also the heuristic player against the random one: how far the games' "
                             "luck lets a plain player go")
    parser.add_argument("--gnubg-games", type=int, default=0,
                        help="Portes games against gnubg 0-ply (default: none)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    results: dict[str, dict] = {}
    variants = args.variant or list(VARIANTS)
    # Each series: its name, the game and its house rules (the whole-cascade rule as a series of its own).
    configurations = [(variant, variant, {}) for variant in variants]
    if "gulbara" in variants:
        configurations.append(("gulbara/whole_cascade", "gulbara", {"gulbara_cascade_maximize": "whole_cascade"}))
    for label, variant, options in configurations:
        rules = Rules.for_variant(variant, options)
        bot = TimedBot(Bot.trained(rules))
        opponents = {"random": RandomPlayer(), "heuristic": HeuristicPlayer(rules)}
        for name in args.opponent or list(opponents):
            tally = series(rules, bot, opponents[name], args.games, random.Random(f"{args.seed}:{label}:{name}"))
            results.setdefault(label, {})[name] = tally.to_json()
            print(line(f"{label} vs {name}", tally), flush=True)
        if args.baseline:
            tally = series(rules, opponents["heuristic"], opponents["random"], args.games,
                           random.Random(f"{args.seed}:{label}:baseline"))
            results[label]["heuristic_vs_random"] = tally.to_json()
            print(line(f"{label} heuristic vs random", tally), flush=True)
        timing = results[label]["decision_ms"] = bot.report()
        cascades = (f"; cascades ({timing['cascades']}) p50 {timing['cascade_p50']:.2f}  p99 {timing['cascade_p99']:.2f}  "
                    f"max {timing['cascade_max']:.2f}") if timing["cascades"] else ""
        print(f"{label:36} decision ms p50 {timing['p50']:.2f}  p99 {timing['p99']:.2f}  max {timing['max']:.2f}"
              + cascades, flush=True)
    if args.gnubg_games:
        rules = Rules.for_variant("portes")
        gnubg = GnubgPlayer(gnubg_executable())
        try:
            tally = series(rules, Bot.trained(rules), gnubg, args.gnubg_games,
                           random.Random(f"{args.seed}:gnubg"))
        finally:
            gnubg.close()
        results.setdefault("portes", {})["gnubg_0ply"] = tally.to_json()
        print(line("portes vs gnubg 0-ply", tally), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
