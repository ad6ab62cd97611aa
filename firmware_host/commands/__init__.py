"""The `tavli-board` commands, one module per family, each with a `register(subparsers)` function
that adds its parsers and sets `handler` (a function taking the parsed args and returning an exit
code). They are the shell: the only place with argparse, stdin and stdout; the packages below them
(the rules, the referee, the drivers, the journal, the service) know nothing of a command line.
"""
from __future__ import annotations

from pathlib import Path

from firmware_host.config import DEFAULT_CONFIG_FILE, Config, ConfigError, load_config

# Modules that contribute subcommands, in the order they appear in --help, and the commands each
# registers: a command line that names a command imports only its module, so that the service at
# rest has not loaded what other commands need (numpy for the bot's, say); --help and an unknown
# command import them all. tests/test_commands.py checks the table against the modules.
COMMAND_MODULES = {
    "firmware_host.commands.rules": ("moves", "start", "show", "engine-demo"),
    "firmware_host.commands.bot": ("train", "average", "hint"),
    "firmware_host.commands.referee": ("judge", "restore"),
    "firmware_host.commands.sensing": ("sensor-watch", "firmware-config"),
    "firmware_host.commands.sim": ("sim-mcu",),
    "firmware_host.commands.journal": ("export", "history", "dice-stats"),
    "firmware_host.commands.demo": ("demo", "legend", "state-diagram"),
    "firmware_host.commands.service": ("run", "config", "selftest", "bringup", "bug-report", "leds-off",
                                       "wiring", "maker-docs"),
    "firmware_host.commands.hil": ("hil",),
    "firmware_host.commands.web": ("web", "web-pin"),
    "firmware_host.commands.club": ("club",),
}


class UsageError(Exception):
    """A bad argument or input file: printed as one line on stderr, exit code 2."""


def add_config_argument(parser) -> None:
    """The `--config` option every command that reads the configuration takes."""
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help=f"the configuration file (default: {DEFAULT_CONFIG_FILE} if it exists, else the "
                             "built-in defaults: the simulated board)")


def config_path_from_args(args) -> Path | None:
    """The file `--config` names; else /etc/tavli-board/config.toml if it exists; else None (built-in defaults)."""
    if args.config is None and DEFAULT_CONFIG_FILE.exists():
        return DEFAULT_CONFIG_FILE
    return args.config


def config_from_args(args) -> Config:
    """The configuration a command names with `--config`, or the default one; a bad one is a usage error."""
    try:
        return load_config(config_path_from_args(args))
    except ConfigError as error:
        separator = "\n" if len(error.problems) > 1 else " "
        raise UsageError(f"the configuration is not usable, nothing was started:{separator}{error}") from None
