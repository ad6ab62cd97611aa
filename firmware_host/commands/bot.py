"""Commands of the bot: `train` (TD(lambda) self-play for one game), `average` (the mean of trained
networks of one game) and `hint` (the bot's ranked plays for a position and a roll)."""
from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.pool
import os
import random
import signal
import sys
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

import numpy as np

from firmware_host.bot import OUTCOMES, Bot
from firmware_host.bot.features import GameShape, input_size
from firmware_host.bot.players import best_first, ten_thousandths_rows
from firmware_host.bot.network import Network
from firmware_host.bot.training import Settings, Trainer, settings_json
from firmware_host.commands import UsageError
from firmware_host.commands.rules import (add_roll_arguments, parse_rule_args, read_json_source,
                                          request_fields, serve_json_lines)
from firmware_host.rules import VARIANTS, Position, PositionError, Rules, RulesError, Turn

SHIPPED_WEIGHTS = Path(__file__).resolve().parents[1] / "bot" / "weights"


def register(subparsers: argparse._SubParsersAction) -> None:
    train = subparsers.add_parser(
        "train", help="train the bot of one game by TD(lambda) self-play",
        description="Self-play on the rules engine, learning after every play (TD(lambda)), with a "
                    "progress bar, a checkpoint every --checkpoint-every games, and a series against the "
                    "random and heuristic players every --eval-every games. Writes VARIANT.npz (the "
                    "weights) and VARIANT.json (the training record) to --out; --install also writes "
                    "them where the package ships them.")
    train.add_argument("variant", choices=list(VARIANTS))
    train.add_argument("--games", type=int, default=5_000, help="self-play games in all (default: %(default)s)")
    train.add_argument("--seed", type=int, default=1, help="dice and the first weights (default: %(default)s)")
    train.add_argument("--resume", action="store_true", help="go on from the checkpoint in --out")
    train.add_argument("--from", dest="start_from", type=Path, metavar="NPZ",
                       help="go on training this network (VARIANT.npz, such as the shipped one, or a "
                            "checkpoint.npz) with this command's --alpha, --heuristic-share and --seed; "
                            "its training record beside it (the same name, .json) is carried on")
    train.add_argument("--out", type=Path, help="the folder for checkpoints and results (default: "
                       "$XDG_DATA_HOME/tavli-board/training/VARIANT)")
    train.add_argument("--install", action="store_true", help="also write the results into the package")
    train.add_argument("--hidden", type=int, help=f"hidden units of a new network (default: {Settings.hidden}), "
                       "or with --from more than it has: the network widened, computing the same at first")
    train.add_argument("--alpha", type=float, default=Settings.alpha, help="learning rate (default: %(default)s)")
    train.add_argument("--heuristic-share", type=float, default=Settings.heuristic_share, metavar="SHARE",
                       help="the share of games with the heuristic player on one side, both sides' "
                            "boards learnt (default: %(default)s)")
    train.add_argument("--checkpoint-every", type=int, default=250, metavar="GAMES")
    train.add_argument("--keep-checkpoints", action="store_true",
                       help="also keep every checkpoint as checkpoint-GAMES.npz and .json, to pick the "
                            "strongest (a TD network's strength wanders between checkpoints) and go on "
                            "from it with --from")
    train.add_argument("--eval-every", type=int, default=1_000, metavar="GAMES")
    train.add_argument("--workers", type=int, default=1, metavar="N",
                       help="train on N processor cores: in each round every worker plays --sync-every "
                            "games from the same network, and the round's network is the mean of theirs "
                            "(the result depends on both; default: %(default)s, one process)")
    train.add_argument("--sync-every", type=int, default=50, metavar="GAMES",
                       help="each worker's games in a round of --workers (default: %(default)s)")
    train.add_argument("--eval-games", type=int, default=100, metavar="GAMES",
                       help="games against each baseline per evaluation (default: %(default)s)")
    train.set_defaults(handler=run_train)

    average = subparsers.add_parser(
        "average", help="average trained networks of one game into one",
        description="The mean of the weights of networks of one game that were trained on from one network "
                    "(the kept checkpoints of a run, or of runs side by side): a TD network's strength "
                    "wanders from checkpoint to checkpoint, and the mean of several is often stronger "
                    "than each (stochastic weight averaging, model soups). Each network needs its training record "
                    "beside it. The mean is evaluated against the baselines as at the end of training "
                    "and written as VARIANT.npz and VARIANT.json (its record lists each network's) to "
                    "--out; --install also writes them where the package ships them.")
    average.add_argument("variant", choices=list(VARIANTS))
    average.add_argument("networks", nargs="+", type=Path, metavar="NPZ", help="two or more networks")
    average.add_argument("--out", type=Path, help="the folder for the results (default: "
                         "$XDG_DATA_HOME/tavli-board/training/VARIANT)")
    average.add_argument("--install", action="store_true", help="also write the results into the package")
    average.add_argument("--seed", type=int, default=1, help="the evaluation's dice (default: %(default)s)")
    average.add_argument("--eval-games", type=int, default=100, metavar="GAMES",
                         help="games against each baseline (default: %(default)s)")
    average.set_defaults(handler=run_average)

    hint = subparsers.add_parser(
        "hint", help="the bot's ranked plays for a position and a roll",
        description="Print every distinct legal play as JSON, best first, each with its moves, the position "
                    "after it and the mover's chances (win, win_double, win_triple, lose_double, "
                    "lose_triple) and expected points: {\"plays\": [...]}. With --jsonl, read one request "
                    "per line on stdin as `moves --jsonl` does and answer each line.")
    add_roll_arguments(hint, position_default="-", position_help="position JSON file, or - for stdin "
                       "(the default)")
    hint.add_argument("--max-plays", type=int, default=20_000,
                      help="refuse a roll with more distinct plays than this (default: %(default)s)")
    hint.set_defaults(handler=run_hint)


# -- hint -------------------------------------------------------------------------------------------

class _Bots:
    """The shipped bot of each game, loaded on first use; the last one made for each game is kept
    for its rules (a game's default rules are one object: `Rules.for_variant`)."""

    def __init__(self) -> None:
        self._bots: dict[str, Bot] = {}

    def for_rules(self, rules: Rules) -> Bot:
        bot = self._bots.get(rules.variant.name)
        if bot is None or bot.rules is not rules:
            network = Bot.trained(rules).network if bot is None else bot.network
            bot = self._bots[rules.variant.name] = Bot(rules, network)
        return bot


def hint_text(bots: _Bots, position: Position, dice: Any, options: Any, max_plays: int) -> str:
    """The ranked plays as JSON text, {"plays": [...]} with keys sorted, rendered directly (as
    `moves` renders its listing): each play's own keys, its chances and expected points."""
    if not isinstance(dice, (list, tuple)):
        raise RulesError(f"dice must be a list of two dice, not {json.dumps(dice)}")
    if options is not None and not isinstance(options, dict):
        raise RulesError(f"rules must be an object of options, not {json.dumps(options)}")
    turn = Turn(position, dice, options)
    plays, chances, points = bots.for_rules(turn.rules).evaluation(turn, limit=max_plays)
    texts = _chance_texts()
    # The chances (in OUTCOMES' order) and the expected points in ten-thousandths, in one operation;
    # each head names the chances in sorted order (tests/bot/test_bot_hint_text.py holds it to json.dumps).
    rows = ten_thousandths_rows(chances, points)
    heads = [_RANKED_HEAD % (texts[lose_double], texts[lose_triple], texts[win], texts[win_double],
                             texts[win_triple], value / 10_000)   # k / 10_000: as `rounded` divides
             for win, win_double, win_triple, lose_double, lose_triple, value in rows]
    # Each play's own text follows its head, which sorts before every key of it; the plays are
    # written best first (the texts ordered, not the arrays).
    ranked = [head + play.to_json_text()[1:] for head, play in zip(heads, plays)]
    return '{"plays": [' + ", ".join([ranked[i] for i in best_first(points)]) + "]}"


# "chances" (its outcomes in sorted order) and "equity", each a number as repr writes it.
_RANKED_HEAD = ('{"chances": {' + ", ".join(f'"{name}": %s' for name in sorted(OUTCOMES))
                + '}, "equity": %r, ')


@lru_cache(maxsize=None)
def _chance_texts() -> list[str]:
    """Each chance 0..1 in ten-thousandths as repr writes it rounded (k / 10_000 is the float
    round(v, 4) gives): looked up, five a play, rather than written (a third of `hint`'s own time
    on a turn of many plays)."""
    return [repr(k / 10_000) for k in range(10_001)]


def hint_answerer(max_plays: int) -> Callable[[Any], str]:
    """The answer of `hint --jsonl` to one request (`serve_json_lines`), the bots loaded once."""
    bots = _Bots()

    def answer(request: Any) -> str:
        fields = request_fields(request, required=("position", "dice"), optional=("rules",))
        return hint_text(bots, Position.from_json(fields["position"]), fields["dice"],
                         fields.get("rules"), max_plays)
    return answer


def run_hint(args: argparse.Namespace) -> int:
    if args.jsonl:
        return serve_json_lines(sys.stdin, sys.stdout, hint_answerer(args.max_plays))
    bots = _Bots()
    if args.dice is None:
        raise UsageError("--dice A B is required (or --jsonl)")
    try:
        position = Position.from_json(read_json_source(args.position, "position"))
        print(hint_text(bots, position, args.dice, parse_rule_args(args.rule), args.max_plays))
    except (PositionError, RulesError) as error:
        raise UsageError(str(error)) from None
    return 0


# -- train ------------------------------------------------------------------------------------------

def _default_out(variant: str) -> Path:
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "tavli-board" / "training" / variant


class _Progress:
    """A one-line progress bar on a terminal (a line per update elsewhere)."""

    def __init__(self, total: int, done: int, out: TextIO):
        self.total, self.start_done, self.out = total, done, out
        self.started = time.monotonic()
        self.tty = out.isatty()

    def show(self, done: int, note: str = "") -> None:
        elapsed = time.monotonic() - self.started
        rate = (done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate else 0.0
        filled = int(30 * done / self.total)
        line = (f"[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} games, {rate:.1f}/s, "
                f"{left / 60:.0f} min left {note}")
        self.out.write(("\r" + line) if self.tty else line + "\n")
        self.out.flush()


def _setting_options(args: argparse.Namespace) -> str:
    """The learning settings given other than by default, as the command's options."""
    return ((f" --alpha {args.alpha}" if args.alpha != Settings.alpha else "")
            + (f" --heuristic-share {args.heuristic_share}"
               if args.heuristic_share != Settings.heuristic_share else "")
            + _worker_options(args))


def _worker_options(args: argparse.Namespace) -> str:
    """--workers and --sync-every as given, where they shape the result (more than one worker)."""
    return f" --workers {args.workers} --sync-every {args.sync_every}" if args.workers > 1 else ""


def _pool_leaving_interrupts_to_the_parent(workers: int) -> multiprocessing.pool.Pool:
    """Worker processes that ignore Ctrl-C (a terminal sends it to the whole foreground group) from
    their first instruction, while they still import too: the parent alone stops the run and says
    where --resume goes on. An ignored signal stays ignored across exec, so the workers are started
    with it ignored here. Spawned, not forked: a fork would copy the parent's threads and state."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return multiprocessing.get_context("spawn").Pool(workers)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """A Ctrl-C while a checkpoint's files are written waits until all are: a network without its
    record (or beside an older one) would be resumed as if it had had other games."""
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _train_share(task: tuple[str, bytes, dict, int, int, int]) -> tuple[bytes, float]:
    """A worker's games `first + 1` .. `last` of a round, from the round's network (run in a worker
    process): the network it ends with, and the CPU seconds it took."""
    variant, weights, settings, first, last, seed = task
    started = time.process_time()
    trainer = Trainer(Rules.for_variant(variant), Network.from_bytes(weights), Settings(**settings))
    trainer.train(last, random.Random(seed), first)
    return trainer.network.to_bytes(), time.process_time() - started


def _checked_record(record: Any) -> dict:
    """A training record with the fields training goes on from in their types (a record without
    evaluations starts them); KeyError, TypeError or ValueError saying which is wrong."""
    if not isinstance(record, dict):
        raise TypeError("not a JSON object")
    record.update(games=int(record["games"]), command=str(record["command"]),
                  cpu_seconds=float(record["cpu_seconds"]), evaluations=record.get("evaluations", []))
    if not isinstance(record["evaluations"], list):
        raise TypeError("its evaluations are not a list")
    return record


def _why(error: Exception) -> str:
    """What is wrong with a record, in words: a KeyError's text is the bare key."""
    return f"no {error} in it" if isinstance(error, KeyError) else str(error)


def _resumed(args: argparse.Namespace, rules: Rules, out: Path) -> tuple[Trainer, random.Random, dict]:
    """The trainer, dice and record of the checkpoint in `out`, its settings kept."""
    checkpoint = out / "checkpoint.json"
    if not checkpoint.exists():
        raise UsageError(f"no checkpoint to resume in {out}")
    try:
        record = _checked_record(json.loads(checkpoint.read_text()))
        variant = record["variant"]
        network = Network.from_bytes((out / "checkpoint.npz").read_bytes())
        rng = random.Random()
        version, state, gauss = record["rng_state"]
        rng.setstate((version, tuple(state), gauss))
        settings = Settings(**record["settings"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"the checkpoint in {out} is damaged ({_why(error)})") from None
    if variant != args.variant:
        raise UsageError(f"the checkpoint in {out} is for {variant}, not {args.variant}")
    if args.games < record["games"]:
        raise UsageError(f"--games is the total: the checkpoint in {out} has had {record['games']} games; "
                         f"give --games {record['games']} to write its network, or more to train on")
    if args.games > record["games"]:  # else it only evaluates and writes the checkpoint's network
        record["command"] += f"; then --resume --games {args.games}" + _worker_options(args)
    return Trainer(rules, network, settings), rng, record


def _trained_network(source: Path, label: str, rules: Rules) -> tuple[Network, dict]:
    """The network in `source` and its training record beside it, for this game's inputs; a
    UsageError starting with `label` otherwise."""
    try:
        network = Network.from_bytes(source.read_bytes())
        record = _checked_record(json.loads(source.with_suffix(".json").read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise UsageError(f"{label}: not a network with its training record beside it ({_why(error)})") from None
    wanted = input_size(GameShape.of(rules))
    if network.inputs != wanted:
        raise UsageError(f"{label}: a network of {network.inputs} inputs; {rules.variant.name} takes {wanted}")
    return network, record


def _started_from(args: argparse.Namespace, rules: Rules) -> tuple[Trainer, random.Random, dict]:
    """A trainer of the network in --from with this command's settings, its record carried on."""
    source: Path = args.start_from
    network, record = _trained_network(source, f"--from {source}", rules)
    done, command = record["games"], record["command"]
    if done >= args.games:
        raise UsageError(f"--games is the total: {source} has had {done} games already; give --games "
                         f"more than {done}")
    if args.hidden is not None:
        if args.hidden < len(network.hidden_bias):
            raise UsageError(f"--from {source}: --hidden {args.hidden} is fewer than its {len(network.hidden_bias)} "
                             "hidden units (a network can be widened, not narrowed)")
        network = network.widened(args.hidden, np.random.default_rng(args.seed))
    settings = Settings(hidden=len(network.hidden_bias), alpha=args.alpha,
                        heuristic_share=args.heuristic_share)
    record = {key: value for key, value in record.items() if key != "rng_state"}
    record.update(variant=args.variant, settings=settings_json(settings),
                  command=command + f"; then --from {source.name} --games {args.games} "
                                              f"--seed {args.seed}" + _setting_options(args)
                                      + (f" --hidden {args.hidden}" if args.hidden is not None else ""))
    return Trainer(rules, network, settings), random.Random(args.seed), record


def _check_limits(*limits: tuple[str, object, bool, str]) -> None:
    """Each (option, value, whether it is allowed, what is allowed): the first one not allowed, in one line."""
    for option, value, allowed, allowed_text in limits:
        if not allowed:
            raise UsageError(f"{option} is {value}; allowed: {allowed_text}")


def _eval_games_limit(args: argparse.Namespace) -> tuple[str, object, bool, str]:
    return "--eval-games", args.eval_games, args.eval_games >= 2, "at least 2"


def _check_train_options(args: argparse.Namespace) -> None:
    """Each option within its limits, and no two that exclude each other: the first wrong one, in one line."""
    _check_limits(("--games", args.games, args.games >= 1, "at least 1"),
                  ("--hidden", args.hidden, args.hidden is None or args.hidden >= 1, "at least 1"),
                  _eval_games_limit(args),
                  ("--alpha", args.alpha, 0 < args.alpha <= 1, "more than 0 and at most 1"),
                  ("--heuristic-share", args.heuristic_share, 0 <= args.heuristic_share <= 1, "from 0 to 1"),
                  ("--workers", args.workers, args.workers >= 1, "at least 1"),
                  ("--sync-every", args.sync_every, args.sync_every >= 1, "at least 1"))
    if args.resume and args.start_from:
        raise UsageError("--resume and --from exclude each other: --resume goes on from --out's checkpoint")
    if args.hidden is not None and args.resume:
        raise UsageError("--hidden is for a new network or one gone on from with --from: --resume keeps "
                         "the checkpoint's hidden units")


def _fresh(args: argparse.Namespace, rules: Rules) -> tuple[Trainer, random.Random, dict]:
    """A trainer of a new network from --seed, and the record of its first stage."""
    settings = Settings(hidden=args.hidden or Settings.hidden, alpha=args.alpha,
                        heuristic_share=args.heuristic_share)
    trainer = Trainer.fresh(rules, np.random.default_rng(args.seed), settings)
    record = {"variant": args.variant, "seed": args.seed, "settings": settings_json(settings),
              "games": 0, "cpu_seconds": 0.0, "evaluations": [],
              "command": f"tavli-board train {args.variant} --games {args.games} --seed {args.seed}"
                         + _setting_options(args)
                         + (f" --hidden {args.hidden}" if args.hidden else "")}
    return trainer, random.Random(args.seed), record


class _TrainingRun:
    """One `train` command's games after its start: the network trained here or by worker processes,
    evaluated and checkpointed as the games pass each's turn, its CPU time counted."""

    def __init__(self, args: argparse.Namespace, rules: Rules, out: Path,
                 start: tuple[Trainer, random.Random, dict]):
        self.args, self.rules, self.out = args, rules, out
        self.trainer, self.rng, self.record = start
        self.progress = _Progress(args.games, self.record["games"], sys.stderr)
        self.cpu_start = time.process_time() - self.record["cpu_seconds"]
        self.worker_cpu = 0.0
        # the checkpoints in `out` of this run
        self.saved: list[int] = [self.record["games"]] if args.resume else []

    def save(self, done: int) -> None:
        args, record = self.args, self.record
        record.update(games=done, cpu_seconds=round(time.process_time() - self.cpu_start + self.worker_cpu, 1),
                      rng_state=list(self.rng.getstate()))
        # Its command made just this network: the last stage stops at `done` (so that a run stopped
        # here and resumed reads as the stages it had).
        head, _, tail = record["command"].rpartition(f"--games {args.games}")
        weights = self.trainer.network.to_bytes()
        checkpoint = json.dumps({**record, "command": f"{head}--games {done}{tail}"})
        with _interrupts_held():
            _write(self.out / "checkpoint.npz", weights)
            _write(self.out / "checkpoint.json", checkpoint)
            if args.keep_checkpoints:
                _write(self.out / f"checkpoint-{done}.npz", weights)
                _write(self.out / f"checkpoint-{done}.json", checkpoint)
            self.saved.append(done)

    def evaluate(self, done: int) -> None:
        results = self.trainer.evaluate(self.args.eval_games, random.Random(f"{self.args.seed}:eval:{done}"))
        self.record["evaluations"].append({"games": done, **results})
        self.progress.show(done, "| vs random {:.0%}, vs heuristic {:.0%}".format(
            results["random"]["win_rate"], results["heuristic"]["win_rate"]))
        if self.progress.tty:
            sys.stderr.write("\n")

    def played(self, before: int, done: int) -> None:
        """Games `before + 1` .. `done` played: an evaluation and a checkpoint where they passed one's turn."""
        if done // self.args.eval_every > before // self.args.eval_every and done != self.args.games:
            self.evaluate(done)
        if done // self.args.checkpoint_every > before // self.args.checkpoint_every:
            self.save(done)

    def train_here(self) -> None:
        def on_game(done: int, result: Any) -> None:
            if done % 10 == 0 or done == self.args.games:
                self.progress.show(done)
            self.played(done - 1, done)

        self.trainer.train(self.args.games, self.rng, self.record["games"], on_game)

    def train_in_workers(self) -> None:
        """Rounds of --sync-every games per worker, each from the round's network; the next round's
        network is their mean."""
        args = self.args
        with _pool_leaving_interrupts_to_the_parent(args.workers) as pool:
            done = self.record["games"]
            while done < args.games:
                games = min(args.workers * args.sync_every, args.games - done)
                bounds = [done + games * worker // args.workers for worker in range(args.workers + 1)]
                weights = self.trainer.network.to_bytes()
                shares = pool.map(_train_share, [
                    (args.variant, weights, settings_json(self.trainer.settings), first, last,
                     self.rng.getrandbits(64))   # from the run's dice, so that --resume goes on alike
                    for first, last in zip(bounds, bounds[1:]) if last > first])
                self.trainer = Trainer(self.rules, Network.mean([Network.from_bytes(net) for net, _ in shares]),
                                       self.trainer.settings)
                self.worker_cpu += sum(cpu for _, cpu in shares)
                self.progress.show(done + games)
                self.played(done, done + games)
                done += games

    def finish(self) -> tuple[dict, list[Path]]:
        """The last evaluation and checkpoint, and the results written: the record and where it went."""
        self.evaluate(self.args.games)
        self.save(self.args.games)
        final = {key: value for key, value in self.record.items() if key != "rng_state"}
        return final, _write_results(self.args, self.trainer.network, final)


def run_train(args: argparse.Namespace) -> int:
    _check_train_options(args)
    out = args.out or _default_out(args.variant)
    rules = Rules.for_variant(args.variant)
    if args.resume:
        start = _resumed(args, rules, out)
    elif args.start_from:
        start = _started_from(args, rules)
    else:
        start = _fresh(args, rules)
    _make_folder(out)
    run = _TrainingRun(args, rules, out, start)
    try:
        if args.workers == 1:
            run.train_here()
        else:
            run.train_in_workers()
        final, targets = run.finish()
    except KeyboardInterrupt:
        print(f"\n{args.variant}: stopped" + (
            f"; its last checkpoint ({run.saved[-1]} games) is in {out}: --resume goes on from it" if run.saved
            else " before its first checkpoint; nothing was written"), file=sys.stderr)
        return 130
    print(f"\n{args.variant}: {args.games} games in {final['cpu_seconds'] / 60:.1f} CPU minutes; "
          f"written to {', '.join(map(str, targets))}")
    return 0


def _write_results(args: argparse.Namespace, network: Network, record: dict) -> list[Path]:
    """VARIANT.npz (float16) and VARIANT.json in --out, and in the package with --install."""
    targets = [args.out or _default_out(args.variant)] + ([SHIPPED_WEIGHTS] if args.install else [])
    with _interrupts_held():
        for folder in targets:
            _make_folder(folder)
            _write(folder / f"{args.variant}.npz", network.to_bytes(np.float16))
            _write(folder / f"{args.variant}.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return targets


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make the folder {folder} ({error.strerror or error})") from None


def _write(path: Path, data: bytes | str) -> None:
    """Replace a result or a checkpoint whole or not at all: a full or failing disk stops the
    command in one line and leaves the file before it (--resume goes on from the last checkpoint)."""
    part = path.with_name(path.name + ".part")
    try:
        if isinstance(data, bytes):
            part.write_bytes(data)
        else:
            part.write_text(data)
        os.replace(part, path)
    except OSError as error:
        part.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path} ({error.strerror or error})") from None


# -- average ----------------------------------------------------------------------------------------

def run_average(args: argparse.Namespace) -> int:
    if len(args.networks) < 2:
        raise UsageError("average takes two networks or more")
    _check_limits(_eval_games_limit(args))
    rules = Rules.for_variant(args.variant)
    loaded = [_trained_network(path, str(path), rules) for path in args.networks]
    hidden = {len(network.hidden_bias) for network, _ in loaded}
    if len(hidden) > 1:
        raise UsageError(f"the networks have different hidden units ({', '.join(map(str, sorted(hidden)))}): "
                         "only networks trained on from one network average")
    _make_folder(args.out or _default_out(args.variant))   # before the evaluation, not after it
    network = Network.mean([network for network, _ in loaded])
    sources = [{key: record[key] for key in ("command", "games", "seed", "settings", "cpu_seconds") if key in record}
               for _, record in loaded]
    evaluation = Trainer(rules, network).evaluate(args.eval_games, random.Random(f"{args.seed}:eval"))
    # The most of those averaged, so that --from counts on from them (a sum would count the stages
    # they share once for each); each one's own is in "averaged".
    games = max(source["games"] for source in sources)
    record = {"variant": args.variant, "seed": args.seed, "settings": {"hidden": hidden.pop()},
              "games": games, "cpu_seconds": max(source["cpu_seconds"] for source in sources),
              "command": f"tavli-board average {args.variant} of: "
                         + " AND ".join(f"({source['command']})" for source in sources),
              "averaged": sources, "evaluations": [{"games": games, **evaluation}]}
    targets = _write_results(args, network, record)
    print(f"{args.variant}: the mean of {len(sources)} networks, vs random "
          f"{evaluation['random']['win_rate']:.0%}, vs heuristic {evaluation['heuristic']['win_rate']:.0%}; "
          f"written to {', '.join(map(str, targets))}")
    return 0
