"""Legal-play generation speed per variant, on a seeded corpus of positions from random play.

Run: .venv/bin/python bench/bench_rules.py [--games N] [--seed S] [--variant V ...] [--max-plays N]

For each variant, N random games are played from the start (seeded dice and choices); every
position met, with the roll that was thrown there, goes into the corpus. Each corpus entry is then
timed: all distinct plays are generated (`Turn.plays`; a play builds its moves and position when
first read, so the column "+pos" also times building every play's position, as `tavli-board
moves` does). Reported: positions, plays per second, and p50 / p99 / max milliseconds per
position, with the slowest position's roll and play count. Times are the thread's CPU time, so
other processes on the machine do not inflate them.
Goal on the CI machine: p99 under 5 ms and max under 50 ms for every variant. Columns "json"
time what `moves --jsonl` adds: every play's JSON text (`Play.to_json_text`, positions included).

Hand-picked edge positions (--edges) are timed too, each as the best of many runs, in
microseconds: the library's listing ("plays") and the listing with its JSON text ("+json"), to set
beside GNU Backgammon's 0-ply (10-72 us per Portes position, issue 16): goals within 2x for the
library and 5x with the JSON. With --gnubg GAMES, Debian's `gnubg` times its 0-ply best move (every
play listed and evaluated, its evaluation cache off) on the same Portes edge positions and on every
position of GAMES random Portes games, beside the library's times: the ratios are the goals'
measure, position by position. Beside them, the commands as other programs see them once
started (issue 33): `moves --jsonl` and `hint --jsonl` answering the position's request line in
process (read, parsed, answered, written to nowhere), best of the same runs; goal within 5x of
gnubg for both. OPENBLAS_NUM_THREADS is 1, as the command line sets it. Last, the steps of such a
request line on the first turn of one, two and three plays (the line parsed, the position read, the
turn's plays listed, their text, the bot's chances), each timed on its own.

The first line says which search was timed: the compiled one where the extension is built
(setup.py), the pure-Python one otherwise or with TAVLI_PURE_PYTHON=1 in the environment; with
--gnubg, the next says the same of the bot's inputs (`hint`).

Gul Bara's cascades (doubles from the fourth turn on) are reported in rows of their own:
* "gulbara" holds its other positions only;
* "gulbara cascade" lists every distinct play of a cascade. Low cascades in open positions have
  tens or hundreds of thousands; a listing that passes --max-plays stops (TooManyPlays) and is
  counted with the time it had used, not left out;
* "gulbara stage" times one stage of a cascade (`Turn.stage_ends`, the legal ends of four dice
  from one stage's start), for every stage of a play chosen stage by stage: the unit the referee
  builds its trees from.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command line sets it (firmware_host/cli.py)

import argparse
import io
import json
import random
import time
from typing import Any, Iterator, Mapping

from firmware_host.rules import VARIANTS, Play, Position, Rules, Turn, blocked_for_good
from firmware_host.rules.plays import COMPILED, TooManyPlays


def random_turns(variant: str, games: int, seed: int, options: Mapping[str, Any] | None = None
                 ) -> Iterator[tuple[Position, tuple[int, int], Turn, Play, random.Random]]:
    """Every turn of `games` seeded random games under the house rules `options`: position, roll,
    turn, the play chosen, and the generator (for callers that draw more choices from the same
    seeded stream)."""
    rng = random.Random(f"{seed}:{variant}")
    rules = Rules.for_variant(variant, options)
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


class Row:
    """Timings of one row: seconds per entry, plays per entry, and the slowest entry."""

    def __init__(self, name: str):
        self.name, self.times, self.with_positions, self.with_json, self.plays = name, [], [], [], 0
        self.slowest = (0.0, "")
        self.over_cap: list[float] = []  # seconds used by listings stopped at --max-plays

    def add(self, seconds: float, plays: int, label: str, positions_seconds: float | None = None,
            json_seconds: float | None = None):
        self.times.append(seconds)
        self.with_positions.append(seconds + (positions_seconds or 0.0))
        self.with_json.append(seconds + (json_seconds or 0.0))
        self.plays += plays
        if seconds > self.slowest[0]:
            self.slowest = (seconds, f"{label} ({plays} plays)")

    def line(self) -> str:
        if not self.times:
            return f"{self.name:16} {0:9d}  (nothing timed)"
        times, full, json_times = sorted(self.times), sorted(self.with_positions), sorted(self.with_json)
        cells = (f"{self.name:16} {len(times):9d} {self.plays / sum(times):9.0f} "
                 f"{1000 * percentile(times, 0.5):7.2f} {1000 * percentile(times, 0.99):7.2f} "
                 f"{1000 * times[-1]:8.2f} {1000 * percentile(full, 0.99):8.2f} "
                 f"{1000 * full[-1]:8.2f} {1000 * percentile(json_times, 0.5):8.2f} "
                 f"{1000 * percentile(json_times, 0.99):8.2f}  {self.slowest[1]}")
        if self.over_cap:
            stopped = sorted(self.over_cap)
            cells += (f"\n{'':16} + {len(stopped)} listings stopped past the cap: "
                      f"p50 {1000 * percentile(stopped, 0.5):.0f} ms, max {1000 * stopped[-1]:.0f} ms "
                      "used before stopping")
        return cells


def timed_plays(turn: Turn, limit: int | None) -> tuple[float, list[Play], float, float]:
    """Seconds to list the plays, the plays, seconds to build all their positions, and seconds to
    write the listing's JSON text as `moves` does (positions included)."""
    start = time.thread_time()
    plays = turn.plays(limit=limit)
    listed = time.thread_time()
    for play in plays:
        play.position
    built = time.thread_time()
    json_seconds = timed_json(turn, limit)
    return listed - start, plays, built - listed, json_seconds


def timed_json(turn: Turn, limit: int | None) -> float:
    """Seconds to write the JSON text of a fresh listing's plays (positions built on the way)."""
    plays = Turn(turn.position, turn.dice, turn.rules).plays(limit=limit)
    start = time.thread_time()
    ", ".join(play.to_json_text() for play in plays)
    return time.thread_time() - start


def time_stages(turn: Turn, rng: random.Random, row: Row, label: str) -> None:
    """Time every stage of one play of a cascade, chosen stage by stage with `rng`."""
    node = turn.start
    for stage in turn.stages:
        start = time.thread_time()
        ends = turn.stage_ends(node, stage)
        row.add(time.thread_time() - start, len({end.node for end in ends}),
                f"{label} stage {stage[0]}s")
        end = rng.choice(ends)
        if end.result is not None or end.remaining:
            return
        node = end.node


def measure(variant: str, games: int, seed: int, max_plays: int) -> list[Row]:
    rules = Rules.for_variant(variant)
    rows = {"plain": Row(variant)}
    if rules.options.get("cascading_doubles"):
        rows["cascade"] = Row(f"{variant} cascade")
        rows["stage"] = Row(f"{variant} stage")
    stage_rng = random.Random(f"{seed}:{variant}:stages")
    for position, dice in corpus(variant, games, seed):
        turn = Turn(position, dice, rules)
        label = f"{dice[0]}-{dice[1]}"
        cascade = len(turn.stages) > 1
        row = rows["cascade" if cascade else "plain"]
        if cascade:
            time_stages(turn, stage_rng, rows["stage"], label)
            turn = Turn(position, dice, rules)
        start = time.thread_time()
        try:
            seconds, plays, positions, json_seconds = timed_plays(turn, max_plays)
        except TooManyPlays:
            row.over_cap.append(time.thread_time() - start)
            continue
        row.add(seconds, len(plays), label, positions, json_seconds)
    return list(rows.values())


def _board(variant: str, white: dict, black: dict, turn: str = "white", **more) -> Position:
    data = {"variant": variant, "turn": turn, "white": {"points": {str(p): n for p, n in white.items()}},
            "black": {"points": {str(p): n for p, n in black.items()}}}
    for key, value in more.items():
        side, _, field = key.partition("_")
        if side in ("white", "black"):
            data[side][field] = value
        else:
            data[key] = value
    return Position.from_json(data)


# (name, position, dice): rolls with many plays, none, or special rules at work.
EDGE_POSITIONS = [
    ("portes start 6-5", Position.start("portes"), (6, 5)),
    ("portes start 1-1", Position.start("portes"), (1, 1)),
    ("portes blitz 2-2", _board("portes", {24: 1, 22: 1, 20: 1, 18: 2, 13: 3, 10: 2, 8: 2, 6: 2, 5: 1},
                                {1: 2, 3: 1, 7: 1, 12: 3, 17: 3, 19: 3, 23: 2}), (2, 2)),
    ("portes dance 6-6", _board("portes", {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3},
                                {12: 13}, black_bar=2, turn="black"), (6, 6)),
    ("portes bear-off 4-2", _board("portes", {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {19: 15}), (4, 2)),
    ("portes race 3-3", _board("portes", {11: 3, 9: 3, 8: 3, 6: 3, 4: 3}, {14: 3, 16: 3, 17: 3, 19: 3, 21: 3}),
     (3, 3)),
    ("plakoto pins 2-2", _board("plakoto", {24: 8, 20: 2, 17: 1, 12: 2, 9: 1, 6: 1},
                                {1: 7, 5: 2, 9: 1, 11: 2, 17: 1, 20: 1, 22: 1},
                                pinned={"9": "black", "17": "white", "20": "black"}), (2, 2)),
    ("neverfinishing 5-3", _board("neverfinishing", {24: 10, 13: 2, 11: 1, 8: 2},
                                  {1: 10, 6: 1, 7: 1, 12: 3}), (5, 3)),
    ("fevga start 6-6", Position.start("fevga"), (6, 6)),
    ("narde head 3-3", _board("narde", {24: 10, 20: 1, 18: 2, 14: 2}, {12: 10, 8: 2, 5: 2, 3: 1},
                              rolls={"white": 4, "black": 4}), (3, 3)),
]


def best_times(position: Position, dice: tuple[int, int], repeats: int) -> tuple[int, float, float]:
    """The number of plays, and the best of `repeats` runs of the listing and of the listing with
    its JSON text, in seconds."""
    rules = Rules.for_variant(position.variant)
    listing, with_json, count = [], [], 0
    for _ in range(repeats):
        start = time.thread_time()
        plays = Turn(position, dice, rules).plays()
        listed = time.thread_time()
        ", ".join(play.to_json_text() for play in plays)
        listing.append(listed - start)
        with_json.append(time.thread_time() - start)
        count = len(plays)
    return count, min(listing), min(with_json)


def time_edges(repeats: int) -> dict[str, tuple[int, float, float]]:
    """Each edge position's best time of `repeats` runs, in microseconds; returned by name."""
    print(f"\nedge positions, best of {repeats} runs, thread CPU microseconds")
    print(f"{'position':22} {'plays':>6} {'plays us':>9} {'+json us':>9}")
    timed = {}
    for name, position, dice in EDGE_POSITIONS:
        count, listing, with_json = timed[name] = best_times(position, dice, repeats)
        print(f"{name:22} {count:6d} {1e6 * listing:9.0f} {1e6 * with_json:9.0f}", flush=True)
    return timed


# gnubg's answer (bench_bot.GNUBG_LOOP) to "board0 board1 die1 die2 runs": the best of `runs` calls
# of its 0-ply best move, in CPU seconds of its process. Its evaluation cache is off, so that every
# play of every call is evaluated as in a position met for the first time (with it, repeated calls
# only look their plays up), and it runs one thread.
GNUBG_TIMING_SETTINGS = ("set threads 1", "set cache 0")
GNUBG_TIMING_ANSWER = r'''
def answer(board, dice, more):
    times = []
    for _ in range(more[0]):
        start = time.process_time()
        gnubg.findbestmove(board, cube, context, dice)
        times.append(time.process_time() - start)
    return str(min(times))
'''


class _Sink:
    """An output that keeps nothing: the commands' answers written nowhere."""

    def write(self, text: str) -> None:
        pass

    def writelines(self, pieces) -> None:
        for _ in pieces:
            pass

    def flush(self) -> None:
        pass


def command_times(position: Position, dice: tuple[int, int], runs: int, answer_hint) -> tuple[float, float]:
    """The best of `runs` of answering the position's request line as `moves --jsonl` and as
    `hint --jsonl` do (the line read, parsed and answered, the answer written), in seconds: the
    commands' time per position once started."""
    from firmware_host.commands.rules import DEFAULT_MAX_PLAYS, answer_lines, serve_json_lines

    line = json.dumps({"position": position.to_json(), "dice": list(dice)}) + "\n"
    sink, moves, hint = _Sink(), [], []
    for _ in range(runs):
        start = time.thread_time()
        answer_lines(io.StringIO(line), sink, DEFAULT_MAX_PLAYS)
        listed = time.thread_time()
        serve_json_lines(io.StringIO(line), sink, answer_hint)
        moves.append(listed - start)
        hint.append(time.thread_time() - listed)
    return min(moves), min(hint)


def request_steps(turns: list[tuple[Position, tuple[int, int]]], runs: int, answer_hint) -> None:
    """The steps of a request line of `moves --jsonl` and `hint --jsonl`, each the best of `runs`
    on its own, on the first turn of one, two and three plays in `turns`: where a small turn's time
    goes (what gnubg settles in 10-20 us)."""
    from firmware_host.bot import Bot
    from firmware_host.files import parse_json

    def best(step, prepare=lambda: None) -> float:
        times = []
        for _ in range(runs):
            made = prepare()
            start = time.thread_time()
            step(made)
            times.append(time.thread_time() - start)
        return 1e6 * min(times)

    firsts: dict[int, tuple[Position, tuple[int, int]]] = {}
    for position, dice in turns:
        firsts.setdefault(len(Turn(position, dice).plays()), (position, dice))
    names = ("line parsed", "position", "turn, plays", "plays' text", "bot's chances", "moves --jsonl",
             "hint --jsonl", "hint - moves")
    print(f"\nthe request's steps, each on its own, best of {runs} runs, thread CPU microseconds "
          "(the first turn of so many plays in the corpus)")
    print(f"{'plays':>5} " + " ".join(f"{name:>13}" for name in names))
    for count in (1, 2, 3):
        if count not in firsts:
            continue
        position, dice = firsts[count]
        line = json.dumps({"position": position.to_json(), "dice": list(dice)}) + "\n"
        data = position.to_json()
        rules = Rules.for_variant(position.variant)
        bot = Bot.trained(rules)
        moves, hint = command_times(position, dice, runs, answer_hint)
        cells = (best(lambda _: parse_json(line, "line 1")),
                 best(lambda _: Position.from_json(data)),
                 best(lambda _: Turn(position, dice, rules).plays()),
                 best(lambda plays: [play.to_json_text() for play in plays],
                      lambda: Turn(position, dice, rules).plays()),
                 best(lambda turn: bot.chances(turn, turn.plays()), lambda: Turn(position, dice, rules))
                 - best(lambda turn: turn.plays(), lambda: Turn(position, dice, rules)),
                 1e6 * moves, 1e6 * hint, 1e6 * (hint - moves))
        print(f"{count:5d} " + " ".join(f"{cell:13.1f}" for cell in cells), flush=True)


def time_beside_gnubg(edges: dict[str, tuple[int, float, float]], repeats: int, games: int, seed: int
                      ) -> None:
    """GNU Backgammon's 0-ply best move (every play listed and evaluated) beside the library's
    listing, on the Portes edge positions (best of `repeats`) and on every position of `games`
    random Portes games (best of 20 each): the goals are the listing within 2x of it and the listing
    with its JSON within 5x."""
    from bench_bot import GnubgChild, GnubgPlayer, gnubg_executable  # a script beside this one
    from firmware_host.commands.bot import hint_answerer

    gnubg = GnubgChild(gnubg_executable(), GNUBG_TIMING_ANSWER, GNUBG_TIMING_SETTINGS)
    answer_hint = hint_answerer(20_000)

    def gnubg_seconds(position: Position, dice: tuple[int, int], runs: int) -> float:
        theirs, mine = GnubgPlayer.board(position)
        return float(gnubg.ask(theirs + mine + list(dice) + [runs])[0])

    try:
        print(f"\nbeside gnubg 0-ply (its evaluation cache off, one thread; process CPU), best of "
              f"{repeats} runs, microseconds; ratios: ours / gnubg's (goals <= 2 and <= 5 with JSON)")
        print("moves us / hint us: `moves --jsonl` and `hint --jsonl` answering the position's line, "
              "in process (start-up left out); their ratios to gnubg's: goal <= 5")
        print(f"{'position':22} {'plays':>6} {'gnubg us':>9} {'plays us':>9} {'ratio':>6} "
              f"{'+json us':>9} {'ratio':>6} {'moves us':>9} {'ratio':>6} {'hint us':>9} {'ratio':>6}")
        for name, position, dice in EDGE_POSITIONS:
            if position.variant != "portes":
                continue
            count, listing, with_json = edges.get(name) or best_times(position, dice, repeats)
            theirs = gnubg_seconds(position, dice, repeats)
            moves, hint = command_times(position, dice, repeats, answer_hint)
            print(f"{name:22} {count:6d} {1e6 * theirs:9.0f} {1e6 * listing:9.0f} {listing / theirs:6.2f} "
                  f"{1e6 * with_json:9.0f} {with_json / theirs:6.2f} {1e6 * moves:9.0f} "
                  f"{moves / theirs:6.2f} {1e6 * hint:9.0f} {hint / theirs:6.2f}", flush=True)
        ratios, json_ratios, ours, gnubg_times, moves_ratios, hint_ratios = [], [], [], [], [], []
        over: dict[str, list[int]] = {"moves --jsonl": [], "hint --jsonl": []}  # plays of positions past 5x
        seconds: dict[str, list[float]] = {"moves --jsonl": [], "hint --jsonl": []}   # per position
        few: list[float] = []   # hint's ratios on turns of 1-3 plays, where the network's fixed cost tells most
        own: dict[str, list[float]] = {}   # hint's time beyond moves' on the same line, by plays: the bot's own cost
        for position, dice in corpus("portes", games, seed):
            count, listing, with_json = best_times(position, dice, 20)
            theirs = gnubg_seconds(position, dice, 20)
            moves, hint = command_times(position, dice, 20, answer_hint)
            ours.append(listing)
            gnubg_times.append(theirs)
            ratios.append(listing / theirs)
            json_ratios.append(with_json / theirs)
            moves_ratios.append(moves / theirs)
            hint_ratios.append(hint / theirs)
            seconds["moves --jsonl"].append(moves)
            seconds["hint --jsonl"].append(hint)
            if count <= 3:
                few.append(hint / theirs)
            own.setdefault(str(count) if count <= 3 else "4+", []).append(hint - moves)
            for command, ratio in (("moves --jsonl", moves / theirs), ("hint --jsonl", hint / theirs)):
                if ratio > 5:
                    over[command].append(count)
    finally:
        gnubg.close()
    for values in (ratios, json_ratios, ours, gnubg_times, moves_ratios, hint_ratios, *seconds.values()):
        values.sort()
    print(f"{len(ratios)} positions of {games} random Portes games: gnubg p50 / p99 "
          f"{1e6 * percentile(gnubg_times, 0.5):.0f} / {1e6 * percentile(gnubg_times, 0.99):.0f} us, "
          f"ours {1e6 * percentile(ours, 0.5):.0f} / {1e6 * percentile(ours, 0.99):.0f} us; ratio p50 / "
          f"p99 / max {percentile(ratios, 0.5):.2f} / {percentile(ratios, 0.99):.2f} / {ratios[-1]:.2f} "
          f"(within 2x: {sum(r <= 2 for r in ratios) / len(ratios):.1%}), with JSON "
          f"{percentile(json_ratios, 0.5):.2f} / {percentile(json_ratios, 0.99):.2f} / {json_ratios[-1]:.2f} "
          f"(within 5x: {sum(r <= 5 for r in json_ratios) / len(json_ratios):.1%})", flush=True)
    for command, values in (("moves --jsonl", moves_ratios), ("hint --jsonl", hint_ratios)):
        counts = sorted(over[command])
        print(f"{command}: p50 / p99 {1e6 * percentile(seconds[command], 0.5):.0f} / "
              f"{1e6 * percentile(seconds[command], 0.99):.0f} us beside gnubg's "
              f"{1e6 * percentile(gnubg_times, 0.5):.0f} / {1e6 * percentile(gnubg_times, 0.99):.0f} us; "
              f"ratio p50 / p99 / max {percentile(values, 0.5):.2f} / "
              f"{percentile(values, 0.99):.2f} / {values[-1]:.2f} (within 5x: "
              f"{sum(r <= 5 for r in values) / len(values):.1%})"
              + (f"; past 5x: {len(counts)} positions of {counts[0]}-{counts[-1]} plays, median "
                 f"{percentile(counts, 0.5)}" if counts else ""), flush=True)
    few.sort()
    if few:
        print(f"hint --jsonl on turns of 1-3 plays: {len(few)} positions, ratio p50 / max "
              f"{percentile(few, 0.5):.2f} / {few[-1]:.2f}", flush=True)
    print("hint --jsonl beyond moves --jsonl on the same line (the bot's own cost), p50 us: " + ", ".join(
        f"{key} plays {1e6 * percentile(sorted(own[key]), 0.5):.1f} ({len(own[key])} positions)"
        for key in ("1", "2", "3", "4+") if key in own), flush=True)
    request_steps(corpus("portes", games, seed), 200, answer_hint)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="random games per variant")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--variant", action="append", choices=list(VARIANTS))
    parser.add_argument("--max-plays", type=int, default=20_000,
                        help="stop listing a cascade past this many distinct plays")
    parser.add_argument("--edges", type=int, default=200, metavar="RUNS",
                        help="runs per hand-picked edge position (0: none; default %(default)s)")
    parser.add_argument("--gnubg", type=int, default=0, metavar="GAMES",
                        help="also time GNU Backgammon's 0-ply beside the listing on the Portes edge "
                             "positions and on every position of GAMES random Portes games "
                             "(default: not)")
    args = parser.parse_args()
    print("search: " + ("compiled (firmware_host/rules/_search.c)" if COMPILED else
                        "pure Python (the extension is not built, or TAVLI_PURE_PYTHON is set)"))
    if args.gnubg:
        from firmware_host.bot.features import COMPILED as ENCODER_COMPILED
        print("bot inputs: " + ("compiled (firmware_host/bot/_encode.c)" if ENCODER_COMPILED else
                                "numpy (the extension is not built, or TAVLI_PURE_PYTHON is set)"))
    print("legal plays per position, thread CPU milliseconds (goals: p99 < 5, max < 50); "
          "+pos: also every play's position built; json: also the JSON text `moves` writes")
    print(f"{'variant':16} {'positions':>9} {'plays/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'max ms':>8} {'+pos p99':>8} {'+pos max':>8} {'json p50':>8} {'json p99':>8}  slowest")
    for variant in args.variant or VARIANTS:
        for row in measure(variant, args.games, args.seed, args.max_plays):
            print(row.line(), flush=True)
    edges = time_edges(args.edges) if args.edges else {}
    if args.gnubg:
        time_beside_gnubg(edges, args.edges or 200, args.gnubg, args.seed)


if __name__ == "__main__":
    main()
