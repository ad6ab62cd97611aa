"""`tavli-board hil ...`: the hardware-in-the-loop commands.

Each module in `HIL_COMMAND_MODULES` has a `register(hil_subparsers)` function that adds its
parsers and sets `handler` (a function taking the parsed args and returning an exit code), as the
top-level command modules do (firmware_host/commands/__init__.py).
"""
from __future__ import annotations

import importlib

# Modules that contribute `hil` subcommands, in the order they appear in `hil --help`.
HIL_COMMAND_MODULES = (
    "firmware_host.commands.hil_run",
    "firmware_host.commands.hil_trace",
    "firmware_host.commands.hil_soak",
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hil", help="hardware-in-the-loop: run scenarios against the whole application (docs/hil.md)",
        description="Scenarios of physical and fault actions, run against the real controller, sensor link, "
                    "button and LEDs with the simulated board and MCU (docs/hil.md).")
    hil_subparsers = parser.add_subparsers(dest="hil_command", metavar="HIL_COMMAND", required=True)
    for name in HIL_COMMAND_MODULES:
        importlib.import_module(name).register(hil_subparsers)
