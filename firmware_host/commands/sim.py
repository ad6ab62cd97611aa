"""`tavli-board sim-mcu`: the simulated sensor MCU, standalone, on a pty, a TCP port or a serial device."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

from firmware_host.commands import UsageError
from firmware_host.files import InputError, load_json, parse_json
from firmware_host.sensing.config import DEFAULT_BOARD_FILE, BoardConfigError, load_sensing_config
from firmware_host.sensing.reading import BoardReading, ReadingError
from firmware_host.sim.board import OPENING_LAYOUT, SimBoard
from firmware_host.sim.console import ConsoleError, run_command
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.sim.transport import PtyTransport, SerialDeviceTransport, TcpTransport


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sim-mcu", help="run the simulated sensor MCU (the real firmware logic) for a host to connect to",
        description="Speaks the sensor protocol like the real MCU, scanning a simulated board. Handle the "
                    "board and inject faults by typing console commands (help lists them) on stdin.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="DEVICE", help="a serial device on this machine, e.g. a USB-serial "
                                                        "adapter wired to the Pi's UART (/dev/ttyUSB0)")
    where.add_argument("--pty", metavar="LINK", type=Path,
                       help="create a pseudo-terminal and a symlink to it at LINK for the host to open")
    where.add_argument("--tcp", metavar="PORT", type=int,
                       help="listen on 127.0.0.1:PORT (the host opens socket://127.0.0.1:PORT)")
    parser.add_argument("--board", type=Path, default=DEFAULT_BOARD_FILE, help="board file (default: %(default)s)")
    parser.add_argument("--reading", metavar="JSON_OR_FILE", default=OPENING_LAYOUT,
                        help="the board's starting layout, position-json (default: the portes opening)")
    parser.add_argument("--baudrate", type=int, default=115200, help="for --port (default: %(default)s)")
    parser.set_defaults(handler=serve)


def _reading(text: str) -> BoardReading:
    try:
        return BoardReading.from_json(parse_json(text, "--reading") if text.lstrip().startswith("{")
                                      else load_json(text))
    except InputError as error:
        raise UsageError(f"--reading {error}") from None
    except ReadingError as error:
        raise UsageError(f"--reading: {error}") from None


def _transport(args):
    try:
        if args.pty:
            return PtyTransport(args.pty)
        if args.tcp is not None:
            if not 0 < args.tcp < 65536:
                raise UsageError(f"--tcp: {args.tcp} is not a TCP port number")
            return TcpTransport(args.tcp)
        return SerialDeviceTransport(args.port, args.baudrate)
    except OSError as error:
        raise UsageError(f"cannot open the simulated MCU's end: {error}") from None


def serve(args) -> int:
    try:
        sensors = load_sensing_config(args.board).sensors
    except BoardConfigError as error:
        raise UsageError(str(error)) from None
    board = SimBoard(_reading(args.reading))
    mcu = SimulatedMcu(board, sensors.channels, _transport(args), colour_by=sensors.mcu.colour_by)
    print(f"sim-mcu: serving on {mcu.port} (type help for commands)", file=sys.stderr, flush=True)
    stop = threading.Event()
    with mcu:
        try:
            for line in sys.stdin:
                if line.strip() in ("quit", "exit"):
                    break
                try:
                    shown = run_command(mcu, line)
                except ConsoleError as error:
                    print(f"sim-mcu: {error}", file=sys.stderr, flush=True)
                    continue
                if shown:
                    print(shown, flush=True)
            else:
                stop.wait()   # stdin closed (run as a service): serve until interrupted
        except KeyboardInterrupt:
            pass
    return 0
