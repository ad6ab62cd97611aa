"""The command table (`COMMAND_MODULES`): a command line imports only the module of its command."""
import argparse
import importlib
import subprocess
import sys

from firmware_host.commands import COMMAND_MODULES


def registered(module_name: str) -> tuple[str, ...]:
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(module_name).register(subparsers)
    return tuple(subparsers.choices)


def test_the_table_names_exactly_the_commands_each_module_registers():
    assert {name: registered(name) for name in COMMAND_MODULES} == COMMAND_MODULES


def imported_by(*argv: str) -> set[str]:
    """The command modules a command line has imported by the time its handler runs."""
    probe = ("import sys\n"
             "from firmware_host.cli import build_parser\n"
             f"build_parser({list(argv)!r}).parse_args({list(argv)!r})\n"
             "print(' '.join(m for m in sys.modules if m.startswith('firmware_host.commands.')))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


def test_a_named_command_imports_its_own_module_and_help_imports_all():
    assert imported_by("state-diagram", "--check") == {"firmware_host.commands.demo"}
    assert imported_by("web-pin") == {"firmware_host.commands.web"}
    everything = subprocess.run([sys.executable, "-m", "firmware_host", "--help"], capture_output=True, text=True,
                                timeout=60, check=True).stdout
    assert all(command in everything for commands in COMMAND_MODULES.values() for command in commands)
