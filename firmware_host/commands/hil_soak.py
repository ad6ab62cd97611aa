"""`tavli-board hil soak`: the fault campaign (firmware_host/hil/soak.py)."""
from __future__ import annotations

import json
import signal
import sys
from pathlib import Path


def register(hil_subparsers) -> None:
    parser = hil_subparsers.add_parser(
        "soak", help="random games in every variant by random players, with random faults, checked against the "
                     "rules engine",
        description="Plays random games of every variant on the simulated board and MCU in virtual time: players "
                    "slide, lift, bump checkers, roll too early, move illegally and follow the guidance back, call "
                    "the referee; faults (dropped bytes, bad CRCs, garbage, MCU resets, a pulled cable, a hung "
                    "MCU, a flickering sensor) go through the real protocol and link code; power cuts kill the service, "
                    "which resumes from its journal. Every committed play "
                    "and every settled board's verdict is checked against the rules engine. Exit code 0 when "
                    "there were no false verdicts, crashes or committed plays lost, 1 otherwise.")
    parser.add_argument("--games", type=int, default=100, metavar="N", help="games to play (default: %(default)s)")
    parser.add_argument("--faults", type=float, default=0.05, metavar="RATE",
                        help="the chance of a fault before each physical action or press, 0..1 (default: %(default)s)")
    parser.add_argument("--power-cuts", type=float, default=0.002, metavar="RATE",
                        help="the chance of a power cut (the service killed and resumed from its journal) before each "
                             "move or roll, 0..1 (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seeds the players and dice (default: %(default)s)")
    parser.add_argument("--variants", metavar="LIST",
                        help="comma-separated games to play in turn (default: every variant)")
    parser.add_argument("--physics", action="store_true",
                        help="the simulated sensors weigh: the physical model of the reference design's load cells "
                             "(firmware_host/sim/physics.py), decoded by the firmware's own scan; needs numpy")
    parser.add_argument("--bots", action="store_true",
                        help="the bot plays one seat of each match (White or Black, in turn): the players move its "
                             "checkers as the lights show, and the referee holds the board to its play")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--progress", action="store_true", help="a line on stderr after every match, and each problem as it is found; "
                        "Ctrl-C or SIGTERM stops the campaign and prints the figures of the matches played so far")
    parser.set_defaults(handler=run_soak)


def run_soak(args) -> int:
    from firmware_host.commands import UsageError
    from firmware_host.hil.soak import SoakSettings, run_campaign

    options = {"games": args.games, "fault_rate": args.faults, "seed": args.seed, "physics": args.physics,
               "power_cut_rate": args.power_cuts, "bots": args.bots}
    if args.variants:
        options["variants"] = tuple(name.strip() for name in args.variants.split(","))
    try:
        settings = SoakSettings(**options)
    except ValueError as error:
        raise UsageError(str(error)) from None

    told = 0

    def progress(figures) -> None:
        nonlocal told
        for problem in figures.problems[told:]:
            print(f"soak: problem: {problem}", file=sys.stderr, flush=True)
        told = len(figures.problems)
        print(f"soak: {figures.summary()}", file=sys.stderr, flush=True)
    # Ctrl-C, or SIGTERM (a campaign in the background, where SIGINT is ignored), ends the campaign
    # with the figures so far.
    before = {number: signal.signal(number, signal.default_int_handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        figures = run_campaign(settings, progress if args.progress else None)
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
    print(figures.report())
    if args.json:
        args.json.write_text(json.dumps(figures.to_json(), indent=2) + "\n")
    return 0 if not (figures.false_verdicts or figures.crashes or figures.plays_lost or figures.interrupted) else 1
