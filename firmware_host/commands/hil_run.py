"""`tavli-board hil run SCENARIO...`: run scenario files against the whole application."""
from __future__ import annotations

from pathlib import Path


def register(hil_subparsers) -> None:
    parser = hil_subparsers.add_parser(
        "run", help="run scenario files against the whole application; a JUnit XML report on request",
        description="Runs each scenario (docs/hil.md) against the real controller, sensor link (on a pty to the "
                    "simulated MCU), dice button (mock GPIO pin) and LED renderer (frames decoded back into "
                    "scenes), in virtual time unless --realtime. Exit code 0 when every scenario passes, 1 "
                    "when one fails, 2 for a scenario that cannot be read.")
    parser.add_argument("scenarios", nargs="+", type=Path, metavar="SCENARIO", help="scenario files (.toml)")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report to FILE")
    parser.add_argument("--realtime", action="store_true",
                        help="run in real time on the service's threads (default: virtual time, deterministic)")
    parser.add_argument("--port", metavar="DEVICE",
                        help="drive a real Pi running the service through this serial device (a USB-serial "
                             "adapter): the simulated MCU plays the board, the Pi reports its LEDs over the link")
    parser.add_argument("--frames", type=int, default=5, metavar="N",
                        help="how many of the last LED frames a failure report shows (default: %(default)s)")
    parser.add_argument("--physics", action="store_true",
                        help="the simulated sensors weigh: the physical model of the reference design's load cells "
                             "(firmware_host/sim/physics.py), decoded by the firmware's own scan; needs numpy")
    parser.set_defaults(handler=run_command)


def run_command(args) -> int:
    from firmware_host.hil.runner import run_files

    return run_files(args.scenarios, junit=args.junit, realtime=args.realtime, port=args.port,
                     frames=args.frames, physics=args.physics)
