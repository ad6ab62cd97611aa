"""`tavli-board sensor-watch` prints the sensor link's events as JSON lines; `firmware-config` renders
the MCU's board_config.py from the board file."""
from __future__ import annotations

import json
import queue
import sys
import time
from dataclasses import replace
from pathlib import Path

from firmware_host.commands import UsageError
from firmware_host.sensing.config import DEFAULT_BOARD_FILE, BoardConfigError, load_sensing_config
from firmware_host.sensing.events import CommandFailed, LinkLost, LinkSilent, LinkUp, event_json
from firmware_host.sensing.mcu_config import FIRMWARE_BOARD_CONFIG, render_board_config
from firmware_host.sensing.sensor import BoardSensor


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sensor-watch", help="print the sensor link's events (board readings, faults, link state) as JSON lines",
        description="Opens the sensor MCU's serial link as the board file says (or at --port) and prints "
                    "every event as one JSON line until interrupted or --seconds have passed.")
    parser.add_argument("--board", type=Path, default=DEFAULT_BOARD_FILE, help="board file (default: %(default)s)")
    parser.add_argument("--port", help="device or pyserial URL, overriding [serial] port "
                                       "(e.g. /dev/ttyACM0, socket://127.0.0.1:7070)")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: run until interrupted)")
    parser.add_argument("--self-test", action="store_true", help="ask the MCU for a self-test once the link is up")
    parser.add_argument("--maintenance", action="store_true",
                        help="restart the MCU into maintenance once the link is up (main.py stopped, no watchdog: "
                             "mpremote can connect; the next reset runs the board again), then exit")
    parser.set_defaults(handler=watch)

    render = subparsers.add_parser(
        "firmware-config", help="render the sensor MCU's board_config.py from the board file",
        description="Writes the MicroPython module the Pico's firmware reads its pins, multiplexers and "
                    "checker masses from, rendered from [serial] and [sensors] of the board file.")
    render.add_argument("--board", type=Path, default=DEFAULT_BOARD_FILE, help="board file (default: %(default)s)")
    render.add_argument("--output", type=Path, default=FIRMWARE_BOARD_CONFIG,
                        help="where to write it, - for stdout (default: %(default)s)")
    render.set_defaults(handler=write_firmware_config)


def _config(board: Path):
    try:
        return load_sensing_config(board)
    except BoardConfigError as error:
        raise UsageError(str(error)) from None


def write_firmware_config(args) -> int:
    text = render_board_config(_config(args.board))
    if str(args.output) == "-":
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
    return 0


def watch(args) -> int:
    config = _config(args.board)
    if args.port:
        config = replace(config, serial=replace(config.serial, port=args.port))
    if args.seconds is not None and args.seconds <= 0:
        raise UsageError(f"--seconds must be positive, got {args.seconds}")
    events: queue.SimpleQueue = queue.SimpleQueue()
    sensor = BoardSensor(config, events.put)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    self_test_pending = args.self_test
    sensor.start()
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = events.get(timeout=0.1)
            except queue.Empty:
                continue
            print(json.dumps(event_json(event), sort_keys=True), flush=True)
            if self_test_pending and isinstance(event, LinkUp):
                self_test_pending = False
                sensor.run_self_test()
            if args.maintenance and isinstance(event, LinkUp):
                sensor.enter_maintenance()
            if args.maintenance and isinstance(event, CommandFailed):
                print(f"sensor-watch: the MCU refused maintenance: {event.reason}", file=sys.stderr)
                return 1
            if args.maintenance and isinstance(event, (LinkSilent, LinkLost)):
                print("sensor-watch: the MCU restarted into maintenance: run mpremote now", file=sys.stderr)
                return 0
    except KeyboardInterrupt:
        pass
    finally:
        sensor.stop()
    return 0
