"""A line console for handling the simulated board and injecting faults by hand (sim-mcu's stdin).

    lift 13 white | place 9 [white] | slide 13 9 white | hit 5 black | bear-off 3 white
    reset | unplug | replug [no-reboot] | silent | resume | garbage | bad-crc | drop [N]
    flicker LOCATION W B | stick LOCATION W B | break LOCATION | unstick LOCATION | show | help | quit
"""
from __future__ import annotations

from firmware_host.sim.board import BoardError
from firmware_host.sim.mcu import SimulatedMcu


class ConsoleError(ValueError):
    pass


def _location(text: str) -> str | int:
    return int(text) if text.isdigit() else text


def _counts(white: str, black: str) -> tuple[int, int]:
    if not (white.isdigit() and black.isdigit()):
        raise ConsoleError(f"counts must be whole numbers, got {white} {black}")
    return int(white), int(black)


def run_command(mcu: SimulatedMcu, line: str) -> str | None:
    """Carry out one console line; returns text to show, or None. Raises ConsoleError for bad input."""
    words = line.split()
    if not words:
        return None
    name, args = words[0], words[1:]
    board = mcu.board
    commands = {
        "lift": (2, lambda: board.lift(_location(args[0]), args[1])),
        "place": ((1, 2), lambda: board.place(_location(args[0]), *args[1:])),
        "slide": (3, lambda: board.slide(_location(args[0]), _location(args[1]), args[2])),
        "hit": (2, lambda: board.hit(_location(args[0]), args[1])),
        "bear-off": (2, lambda: board.bear_off(_location(args[0]), args[1])),
        "reset": (0, mcu.reset),
        "unplug": (0, mcu.unplug),
        "replug": ((0, 1), lambda: mcu.replug(reboot=args != ["no-reboot"])),
        "silent": (0, mcu.go_silent),
        "resume": (0, mcu.resume),
        "garbage": (0, mcu.send_garbage),
        "bad-crc": (0, mcu.corrupt_next_crc),
        "drop": ((0, 1), lambda: mcu.drop_bytes(int(args[0]) if args else 1)),
        "flicker": (3, lambda: mcu.flicker(args[0], _counts(args[1], args[2]))),
        "stick": (3, lambda: mcu.stick(args[0], _counts(args[1], args[2]))),
        "break": (1, lambda: mcu.break_sensor(args[0])),
        "unstick": (1, lambda: mcu.unstick(args[0])),
        "show": (0, lambda: board.reading().dumps() + (f"  hand: {board.hand}" if board.hand else "")),
        "help": (0, lambda: __doc__.split("\n\n", 1)[1].strip()),
    }
    if name not in commands:
        raise ConsoleError(f"unknown command {name!r}; try help")
    arity, action = commands[name]
    allowed = arity if isinstance(arity, tuple) else (arity,)
    if not allowed[0] <= len(args) <= allowed[-1]:
        raise ConsoleError(f"{name} takes {' or '.join(map(str, allowed))} argument(s), got {len(args)}")
    try:
        return action()
    except (BoardError, ValueError) as error:
        raise ConsoleError(str(error)) from None
