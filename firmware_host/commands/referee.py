"""Commands of the referee: `judge` and `restore`."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from firmware_host.commands import UsageError
from firmware_host.referee.explain import explain
from firmware_host.referee.judge import Reading, Referee, Verdict, restore
from firmware_host.rules import Position, PositionError, RulesError
from firmware_host.commands.rules import (parse_rule_args, read_json_source, request_fields,
                                     serve_json_lines)


def register(subparsers: argparse._SubParsersAction) -> None:
    judge = subparsers.add_parser(
        "judge", help="judge a board reading against a turn's start and roll",
        description="Print the verdict as JSON: unchanged, partial, complete, in_hand, illegal or "
                    "fault, with the position judged (pins inferred), remaining dice, destinations, "
                    "the play, or the guidance steps; an illegal board with the rules it breaks "
                    "(refusals, and why: the same in words). With --jsonl, read lines {\"position\": ..., "
                    "\"dice\": [a, b], \"reading\": ..., \"rules\": {...}} and answer each line.")
    judge.add_argument("--position", metavar="FILE", help="the turn's start position (JSON file or -)")
    judge.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    judge.add_argument("--reading", metavar="FILE", help="the board reading (JSON file or -)")
    judge.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    judge.add_argument("--jsonl", action="store_true", help="answer JSON lines from stdin")
    judge.set_defaults(handler=run_judge)

    restore_parser = subparsers.add_parser(
        "restore", help="the steps that turn a board reading into a target position")
    restore_parser.add_argument("--target", required=True, metavar="FILE")
    restore_parser.add_argument("--reading", required=True, metavar="FILE")
    restore_parser.set_defaults(handler=run_restore)


def run_judge(args: argparse.Namespace) -> int:
    if args.jsonl:
        return answer_lines(sys.stdin, sys.stdout)
    missing = [flag for flag, value in (("--position", args.position), ("--dice", args.dice),
                                        ("--reading", args.reading)) if value is None]
    if missing:
        raise UsageError(f"{', '.join(missing)} required (or --jsonl)")
    if args.position == "-" and args.reading == "-":
        raise UsageError("--position and --reading cannot both come from stdin")
    try:
        position = Position.from_json(read_json_source(args.position, "position"))
        referee = Referee(position, tuple(args.dice), parse_rule_args(args.rule))
        verdict = referee.judge(Reading.from_json(read_json_source(args.reading, "reading"),
                                                  position.variant))
    except (PositionError, RulesError) as error:
        raise UsageError(str(error)) from None
    print(json.dumps(verdict_json(verdict), sort_keys=True))
    return 0


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The verdict's JSON; an illegal board's refusals also in words (`why`, points in the position format)."""
    data = verdict.to_json()
    if verdict.refusals:
        data["why"] = explain(verdict.refusals)
    return data


def answer_lines(lines: TextIO, out: TextIO) -> int:
    referees: dict[str, Referee] = {}

    def answer(request: Any) -> dict[str, Any]:
        fields = request_fields(request, required=("position", "dice", "reading"),
                                optional=("rules",))
        # Consecutive readings of one roll reuse its play tree.
        key = json.dumps([fields["position"], fields["dice"], fields.get("rules")], sort_keys=True)
        if key not in referees:
            referees.clear()
            dice = fields["dice"]
            if not isinstance(dice, list):
                raise RulesError(f"dice must be a list of two dice, not {json.dumps(dice)}")
            referees[key] = Referee(Position.from_json(fields["position"]), tuple(dice),
                                    fields.get("rules"))
        referee = referees[key]
        return verdict_json(referee.judge(Reading.from_json(fields["reading"], referee.variant)))
    return serve_json_lines(lines, out, answer)


def run_restore(args: argparse.Namespace) -> int:
    if args.target == "-" and args.reading == "-":
        raise UsageError("--target and --reading cannot both come from stdin")
    try:
        target = Position.from_json(read_json_source(args.target, "target"))
        steps = restore(target, Reading.from_json(read_json_source(args.reading, "reading"),
                                                  target.variant))
    except PositionError as error:
        raise UsageError(str(error)) from None
    print(json.dumps({"steps": [step.to_json() for step in steps]}, sort_keys=True))
    return 0
