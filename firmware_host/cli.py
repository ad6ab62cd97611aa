"""The `tavli-board` command line.

The commands themselves are the modules of `firmware_host.commands`; this builds the parser from them
and turns a `UsageError` into one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# The bot's matrices are small: BLAS threads only wake, spin and contend (3x slower on two cores).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from firmware_host.commands import COMMAND_MODULES, UsageError


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with `argv` that names a command first, of that one only."""
    named = argv[0] if argv else None
    modules = [name for name, commands in COMMAND_MODULES.items() if named in commands] or list(COMMAND_MODULES)
    parser = argparse.ArgumentParser(
        prog="tavli-board",
        description="Referee for a physical Tavli board: rules engine, sensors, dice button and LEDs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"tavli-board {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:   # Ctrl-C where a command has nothing of its own to say about it
        print(f"\ntavli-board {args.command}: stopped", file=sys.stderr)
        return 130
