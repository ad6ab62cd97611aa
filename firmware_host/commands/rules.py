"""Commands of the rules engine: `moves`, `start`, `show` and the engine `demo`."""
from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, BinaryIO, Callable, Iterable, Iterator, TextIO

from firmware_host.commands import UsageError
from firmware_host.files import InputError, load_json, parse_json
from firmware_host.rules import (BLACK, VARIANTS, WHITE, GameResult, Play, Position, PositionError,
                                 Rules, RulesError, Turn, blocked_for_good)
from firmware_host.rules.match import Match, MatchRules, opening_roll
from firmware_host.rules.plays import COMPILED, dice_text

DEFAULT_MAX_PLAYS = 100_000
SEARCH = "compiled (C)" if COMPILED else \
    "pure Python (the compiled one is not built, or TAVLI_PURE_PYTHON is set)"
MAX_LINE = 1024 * 1024   # bytes of one JSON-lines request: far more than a position, a reading and rules


def register(subparsers: argparse._SubParsersAction) -> None:
    moves = subparsers.add_parser(
        "moves", help="list every legal play for a position and a roll",
        description="Print every distinct legal play as JSON: {\"plays\": [{\"moves\": [...], "
                    "\"position\": {...}}, ...]}. With --jsonl, read one request per line on stdin "
                    "({\"position\": ..., \"dice\": [a, b], \"rules\": {...}}) and answer each line. "
                    f"Search: {SEARCH}; both list the same plays.")
    add_roll_arguments(moves, position_default=None,
                       position_help="position JSON file, or - for stdin (default: the start of --variant)")
    moves.add_argument("--variant", default="portes", choices=list(VARIANTS),
                       help="the game whose start position is used when no --position is given")
    moves.add_argument("--max-plays", type=int, default=DEFAULT_MAX_PLAYS,
                       help="refuse (with an error) a roll with more distinct plays than this; "
                            "low gulbara cascades can have hundreds of thousands "
                            f"(default {DEFAULT_MAX_PLAYS}); the listing holds about 1 KB a play")
    moves.set_defaults(handler=run_moves)

    start = subparsers.add_parser("start", help="print a game's starting position")
    start.add_argument("variant", choices=list(VARIANTS))
    start.add_argument("--turn", choices=("white", "black"), default="white")
    start.set_defaults(handler=lambda args: _print_json(
        Position.start(args.variant, args.turn).to_json()))

    show = subparsers.add_parser("show", help="draw a position as text")
    show.add_argument("position", nargs="?", default="-", metavar="FILE",
                      help="position JSON file, or - for stdin (default)")
    show.set_defaults(handler=run_show)

    demo = subparsers.add_parser("engine-demo", help="play a random game of every variant "
                                 "through the rules engine and show the boards and scores")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--variant", action="append", choices=list(VARIANTS),
                      help="only these variants (repeatable; default all)")
    demo.add_argument("--quiet", action="store_true", help="only the final boards and scores")
    demo.set_defaults(handler=run_demo)


def add_roll_arguments(parser: argparse.ArgumentParser, position_default: str | None,
                       position_help: str) -> None:
    """The options of a command asked about a position and a roll: --dice, --position, --rule,
    --jsonl (requests on stdin instead)."""
    parser.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    parser.add_argument("--position", metavar="FILE", default=position_default, help=position_help)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a house-rule option, e.g. --rule higher_die_rule=false (repeatable)")
    parser.add_argument("--jsonl", action="store_true", help="answer JSON lines from stdin")


def parse_rule_args(items: Iterable[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--rule {item!r}: expected NAME=VALUE, e.g. higher_die_rule=false")
        options[name.strip()] = value.strip()
    return options


def read_json_source(source: str, what: str) -> Any:
    """The JSON value of the file `source` ("-": standard input); a bad one is a usage error naming it."""
    try:
        return load_json(source)
    except InputError as error:
        raise UsageError(f"the {what} {error}") from None


def plays_json(position: Position, dice: Any, options: Any, max_plays: int) -> Iterator[str]:
    """The listing as JSON text, {"plays": [...]} with keys sorted, in pieces to write one after
    the other: each play's text is made as it is written and let go, so a listing of hundreds of
    thousands never lies in memory as text or as plays. A bad request or a roll of more than
    `max_plays` plays raises here, before the first piece."""
    if not isinstance(dice, (list, tuple)):
        raise RulesError(f"dice must be a list of two dice, not {json.dumps(dice)}")
    if options is not None and not isinstance(options, dict):
        raise RulesError(f"rules must be an object of options, not {json.dumps(options)}")
    return _listing_pieces(Turn(position, dice, options).iter_plays(limit=max_plays))


def _listing_pieces(plays: Iterator[Play]) -> Iterator[str]:
    yield '{"plays": ['
    for number, play in enumerate(plays):
        yield (", " if number else "") + play.to_json_text()
    yield "]}"


def run_moves(args: argparse.Namespace) -> int:
    if args.jsonl:
        return answer_lines(sys.stdin, sys.stdout, args.max_plays)
    if args.dice is None:
        raise UsageError("--dice A B is required (or --jsonl)")
    try:
        position = (Position.from_json(read_json_source(args.position, "position"))
                    if args.position else Position.start(args.variant))
        pieces = plays_json(position, args.dice, parse_rule_args(args.rule), args.max_plays)
    except (PositionError, RulesError) as error:
        raise UsageError(str(error)) from None
    sys.stdout.writelines(pieces)
    sys.stdout.write("\n")
    return 0


def answer_lines(lines: TextIO, out: TextIO, max_plays: int) -> int:
    def answer(request: dict[str, Any]) -> str:
        fields = request_fields(request, required=("position", "dice"), optional=("rules",))
        return plays_json(Position.from_json(fields["position"]), fields["dice"],
                          fields.get("rules"), max_plays)
    return serve_json_lines(lines, out, answer)


def request_fields(request: Any, required: tuple[str, ...], optional: tuple[str, ...]
                   ) -> dict[str, Any]:
    """The fields of one JSON-lines request, checked: an object with exactly these keys."""
    allowed = required + optional
    if not isinstance(request, dict):
        raise RulesError(f"a request is an object with {', '.join(allowed)}")
    unknown = sorted(set(request) - set(allowed))
    if unknown:
        raise RulesError(f"unknown key {unknown[0]!r}; expected {', '.join(allowed)}")
    missing = [key for key in required if key not in request]
    if missing:
        raise RulesError(f"a request needs {', '.join(missing)}")
    return request


def serve_json_lines(stream: TextIO | BinaryIO, out: TextIO,
                     answer: Callable[[Any], dict[str, Any] | str | Iterator[str]]) -> int:
    """One answer line per request line; a bad line (not UTF-8, not JSON, too long, a request that
    cannot be answered) gets {"error": ...} and the rest go on. An answer is an object, or its JSON
    text already rendered on one line (keys sorted), whole or in pieces written as they come."""
    for number, line in enumerate(_bounded_lines(stream), 1):
        if isinstance(line, InputError):
            reply = {"error": f"line {number}: {line.problem}"}
        elif not line.strip():
            continue
        else:
            try:
                reply = answer(parse_json(line, f"line {number}"))
            except InputError as error:
                reply = {"error": str(error)}
            except (PositionError, RulesError) as error:
                reply = {"error": f"line {number}: {error}"}
        if isinstance(reply, dict):
            reply = json.dumps(reply, sort_keys=True)
        out.writelines([reply] if isinstance(reply, str) else reply)
        out.write("\n")
        out.flush()
    return 0


def _bounded_lines(stream: TextIO | BinaryIO) -> Iterator[str | InputError]:
    """The stream's lines as text, each at most MAX_LINE long; a line too long or not UTF-8 comes as
    the `InputError` that says so (the rest of a long line is skipped)."""
    source = getattr(stream, "buffer", stream)
    while True:
        line = source.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE:
            while line and not line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
                line = source.readline(MAX_LINE)
            yield InputError("a line", f"is longer than {MAX_LINE // 1024} KiB")
        elif isinstance(line, bytes):
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError as error:
                yield InputError("a line", f"is not UTF-8 text (byte {line[error.start]:#04x} at offset {error.start})")
        else:
            yield line


def run_show(args: argparse.Namespace) -> int:
    try:
        print(Position.from_json(read_json_source(args.position, "position")).diagram())
    except PositionError as error:
        raise UsageError(str(error)) from None
    return 0


def play_random_game(variant: str, rng: random.Random, starter: str = "white",
                     out: TextIO | None = None) -> tuple[Position, GameResult | None]:
    """A whole game by random legal plays; prints each turn to `out` when given.

    The result is None for a game that can never end: neither side can move any more (both
    mothers pinned in neverfinishing, say) and the rules declare no draw for it.
    """
    rules = Rules.for_variant(variant)
    position = Position.start(variant, starter)
    while True:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        play = Turn(position, dice, rules).pick_play(rng.choice)
        if out:
            print(f"{position.turn.value:>5} {dice_text(dice)}: {play}", file=out)
        position = play.position
        if play.result is not None:
            return position, play.result
        if not play.moves and blocked_for_good(position, rules):
            return position, None


def run_demo(args: argparse.Namespace) -> int:
    """A tavli match's worth of random games: every variant once, scored as a match would."""
    rng = random.Random(args.seed)
    variants = args.variant or list(VARIANTS)
    match = Match.new(MatchRules(sequence=tuple(variants), target=10 ** 6))
    for variant in variants:
        starter = match.next_starter
        while starter is None:
            starter = opening_roll(rng.randint(1, 6), rng.randint(1, 6)).starter
        print(f"=== {variant}: {starter.value} starts ===")
        position, result = play_random_game(variant, rng, starter.value,
                                            None if args.quiet else sys.stdout)
        print(position.diagram())
        if result is None:
            print("result: neither side can ever move again; without the mutual_no_move_draw "
                  "rule the game cannot end, so it is left unscored\n")
            continue
        winner = result.winner.value if result.winner else "nobody (tie)"
        print(f"result: {winner} scores {result.points} ({result.reason})\n")
        match = match.record(result, starter, position.turn.opponent)
    score = match.score
    print(f"score over {len(variants)} games: white {score[WHITE]}, black {score[BLACK]}")
    return 0


def _print_json(data: Any) -> int:
    json.dump(data, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0
