"""The `tavli-board` command line.

Each subsystem owns its subcommands in a module with a `register(subparsers)` function that adds
its parsers and sets `handler` (a function taking the parsed args and returning an exit code).
"""
from __future__ import annotations

import argparse
import importlib
import sys

# Modules that contribute subcommands, in the order they appear in --help.
COMMAND_MODULES = (
    "firmware_host.rules.cli",
    "firmware_host.referee.cli",
    "firmware_host.sensing.cli",
    "firmware_host.sim.cli",
    "firmware_host.journal.cli",
    "firmware_host.controller.cli",
    "firmware_host.service.cli",
    "firmware_host.hil.cli",
)


class UsageError(Exception):
    """A bad argument or input file: printed as one line on stderr, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tavli-board",
        description="Referee for a physical Tavli board: rules engine, sensors, dice button and LEDs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"tavli-board {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
