"""`tavli-board hil replay TRACE` and `hil to-scenario TRACE`: what to do with a recorded trace."""
from __future__ import annotations

import sys
from pathlib import Path


def register(hil_subparsers) -> None:
    replay = hil_subparsers.add_parser(
        "replay", help="feed a recorded trace back through the application and print its verdicts and scenes",
        description="Replays a trace (recorded by the service: `kill -USR1` it, docs/hil.md) through the whole "
                    "application in virtual time: the recorded MCU bytes into the host's link, the button "
                    "events, the dice. Prints every state, verdict and scene with its time, and every button and "
                    "link event. The same trace always prints the same lines.")
    replay.add_argument("trace", type=Path, metavar="TRACE", help="a trace file (.jsonl)")
    replay.set_defaults(handler=run_replay)
    convert = hil_subparsers.add_parser(
        "to-scenario", help="turn a recorded trace into a scenario whose expectations are what the trace showed",
        description="Replays the trace, then writes a scenario (docs/hil.md) that repeats its hands on the board, "
                    "presses and faults, each followed by what the application showed then (state, verdict, "
                    "dice, score, LEDs) as expectations: a bug seen in the cafe becomes a regression test.")
    convert.add_argument("trace", type=Path, metavar="TRACE", help="a trace file (.jsonl)")
    convert.add_argument("-o", "--output", type=Path, metavar="FILE", help="write here (default: standard output)")
    convert.add_argument("--title", help="the scenario's title (default: from the trace's file name)")
    convert.set_defaults(handler=run_to_scenario)


def _replayed(path: Path):
    """The trace and its replay; a bad trace is a usage error."""
    from firmware_host.commands import UsageError
    from firmware_host.hil.replay import replay
    from firmware_host.service.trace import TraceError, load_trace

    try:
        trace = load_trace(path)
        return trace, replay(trace)
    except TraceError as error:
        raise UsageError(str(error)) from None


def run_replay(args) -> int:
    _, result = _replayed(args.trace)
    for line in result.lines:
        print(line)
    return 1 if result.errors else 0


def run_to_scenario(args) -> int:
    from firmware_host.hil.trace_scenario import scenario_text

    from firmware_host.commands import UsageError
    from firmware_host.service.trace import TraceError

    try:
        text = scenario_text(*_replayed(args.trace), title=args.title or f"from the trace {args.trace.name}")
    except TraceError as error:
        raise UsageError(str(error)) from None
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0
