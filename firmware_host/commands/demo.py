"""Commands of the demo: `demo` (the simulated board, two scripted players, a match to 3),
`legend` (what every light means) and `state-diagram` (docs/state-diagram.gv and .svg from the
state machine's declaration)."""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import secrets
import signal
import sys
from pathlib import Path
from typing import Iterator

from firmware_host.commands import UsageError
from firmware_host.config import WebSettings, state_home
from firmware_host.leds.legend import legend_lines, legend_svg
from firmware_host.leds.palette import PALETTES
from firmware_host.leds.terminal import wants_colour
from firmware_host.rules import Color, RulesError
from firmware_host.rules.match import PRESETS, MatchRules


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo", help="a whole match on the simulated board and MCU: two scripted players, the controller, "
                     "the referee and the LEDs drawn in the terminal",
        description="The full controller on the simulated board and MCU (over a pseudo-terminal), playing a "
                    "match with two scripted players who lift, slide and place checkers, try to roll too "
                    "early, make an illegal move and follow the guidance back, and call the referee's replay "
                    "once. The board and its LEDs are drawn as it goes; it ends with the match score.")
    add_match_arguments(demo)
    demo.add_argument("--boards", choices=("moments", "every-turn"), default="moments",
                      help="draw the board at the notable moments (default) or after every turn")
    demo.add_argument("--web-port", type=int, default=WebSettings.port,
                      help="serve the web companion at this port, to watch the match in a browser "
                           "(default: %(default)s; 0: no companion)")
    demo.add_argument("--web-host", choices=("local", "lan"), default="local",
                      help="local: the companion on this machine only (default); lan: open to the local network, "
                           "its address shown with a QR code for a phone, changes needing a PIN made up for the run")
    demo.add_argument("--bot", action="append", choices=("white", "black"), default=[],
                      help="the bot plays this side (again for both): the lights show its moves and the scripted "
                           "players move its checkers")
    demo.add_argument("--interactive", action="store_true",
                      help="no scripted players: type the actions yourself (lift, place, slide, press, hold ...)")
    demo.set_defaults(handler=run)

    legend = subparsers.add_parser(
        "legend", help="what every colour and blink of the LEDs means",
        description="Every light of the board, the dice, the turn and the score: how it blinks and what it "
                    "means; in colour on a terminal (not where NO_COLOR is set), else with the two-letter "
                    "code the demo draws in its place. --svg writes the picture of docs/leds.md.")
    legend.add_argument("--palette", choices=list(PALETTES), default="standard",
                        help="the palette ([leds] palette; default: %(default)s)")
    legend.add_argument("--svg", type=Path, metavar="FILE", help="write the legend of both palettes as an SVG picture")
    legend.add_argument("--check", action="store_true",
                        help=f"write nothing; exit 1 if {LEGEND_SVG.relative_to(DOCS_DIR.parent)} differs from the legend")
    legend.set_defaults(handler=run_legend)

    diagram = subparsers.add_parser(
        "state-diagram", help="draw the controller's state diagrams, the game's and the overlays' (Graphviz "
        "source and SVG), from its declaration")
    diagram.add_argument("--output", type=Path, default=DOCS_DIR, help="folder (default: %(default)s)")
    diagram.add_argument("--check", action="store_true",
                         help="write nothing; exit 1 if a committed source differs from the declaration")
    diagram.set_defaults(handler=run_state_diagram)


def run_legend(args: argparse.Namespace) -> int:
    if args.check:
        if not LEGEND_SVG.is_file() or LEGEND_SVG.read_text() != legend_svg(PALETTES.values()):
            print(f"{LEGEND_SVG} is out of date: run tavli-board legend --svg {LEGEND_SVG}", file=sys.stderr)
            return 1
        print(f"{LEGEND_SVG} is the legend of the code")
        return 0
    if args.svg is not None:
        try:
            args.svg.write_text(legend_svg(PALETTES.values()))
        except OSError as error:
            raise UsageError(f"cannot write {args.svg}: {error.strerror}") from None
        print(f"wrote {args.svg}")
        return 0
    print("\n".join(legend_lines(PALETTES[args.palette], wants_colour(sys.stdout))))
    return 0


DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"
LEGEND_SVG = DOCS_DIR / "led-legend.svg"


class Terminated(Exception):
    """SIGTERM, raised in the main thread so that the demo cleans up on the way out as after Ctrl-C."""


def _terminate(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)     # once: the way out is not interrupted again
    raise Terminated


def add_match_arguments(parser: argparse.ArgumentParser, match: str = "tavli", target: int = 3) -> None:
    """The scripted match's options, for `demo` and `club demo`: read back with `match_from_args`."""
    parser.add_argument("--match", default=match, metavar="PRESET_OR_GAMES",
                        help=f"a match preset ({', '.join(PRESETS)}), one game (e.g. portes) or a list "
                             "(portes,fevga) (default: %(default)s)")
    parser.add_argument("--target", type=int, default=target, help="points to win the match (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="dice and players' choices (default: %(default)s)")
    parser.add_argument("--speed", type=float, default=8.0,
                        help="how much faster than real time the sensors' quiet and grace times, the hold time "
                             "and the signals run (default: %(default)s; 1 is the real board)")


def match_from_args(args: argparse.Namespace) -> MatchRules:
    """The match of `add_match_arguments`' options, its speed checked too."""
    if not 0.5 <= args.speed <= 20:
        raise UsageError(f"--speed {args.speed:g} is not allowed: from 0.5 to 20 (the MCU scans at its real rate)")
    try:
        return MatchRules(sequence=args.match, target=args.target)
    except RulesError as error:
        raise UsageError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    from firmware_host.demo import Settings, run_demo
    from firmware_host.demo.rig import CompanionDidNotStart

    match = match_from_args(args)
    if not 0 <= args.web_port <= 65535:
        raise UsageError(f"--web-port {args.web_port} is not valid: from 1 to 65535, or 0 for no companion")
    reach = _companion_reach(args.web_host)
    if args.web_port:
        _check_port_free(reach.get("web_host", "127.0.0.1"), args.web_port)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with _demo_journal() as journal:
            return run_demo(Settings(match, seed=args.seed, speed=args.speed, boards=args.boards,
                                     web_port=args.web_port or None, bots=frozenset(map(Color, args.bot)),
                                     journal=journal, **reach),
                            interactive=args.interactive)
    except KeyboardInterrupt:   # the demo's folder, threads and web companion are cleaned up on the way out
        print("\ntavli-board demo: stopped (Ctrl-C)", file=sys.stderr)
        return 130
    except Terminated:
        print("tavli-board demo: stopped (SIGTERM)", file=sys.stderr)
        return 128 + signal.SIGTERM
    except CompanionDidNotStart as error:
        print(f"tavli-board demo: {error}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _demo_journal() -> Iterator[Path | None]:
    """The demo's own journal, kept between runs beside the user's state (never the service's journal):
    `history --journal` reads it afterwards. A second demo running at once journals in its temporary
    folder instead (one writer to a journal)."""
    journal = state_home() / "demo" / "journal.sqlite3"
    try:
        journal.parent.mkdir(parents=True, exist_ok=True)
        lock = open(journal.with_name("journal.lock"), "w")
    except OSError as error:
        print(f"tavli-board demo: journaling in its temporary folder ({journal.parent}: {error.strerror})",
              file=sys.stderr)
        yield None
        return
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            print("tavli-board demo: another demo is journaling; this one journals in its temporary folder",
                  file=sys.stderr)
            yield None
            return
        yield journal


def _companion_reach(web_host: str) -> dict[str, str]:
    """Where the demo's companion listens, and the PIN its changes need: the demo's known PIN on this
    machine; on the local network, six digits made up for this run (printed on this terminal only)."""
    if web_host == "local":
        return {}
    return {"web_host": "0.0.0.0", "pin": f"{secrets.randbelow(10 ** 6):06d}"}


def _check_port_free(host: str, port: int) -> None:
    """A busy --web-port is a usage error before play starts (the companion could not serve there)."""
    try:
        from firmware_host.web.server import PortBusy, listen
    except ImportError:
        return   # no web extra: the companion's own process says so
    try:
        listen(host, port).close()
    except PortBusy as error:
        raise UsageError(f"--web-port {port}: {error}; choose another port, or 0 for no companion") from None


def run_state_diagram(args: argparse.Namespace) -> int:
    from firmware_host.controller.machine import DIAGRAMS, write_diagram

    if args.check:
        stale = False
        for name, source_of in DIAGRAMS.items():
            committed = args.output / f"{name}.gv"
            if not committed.is_file() or committed.read_text() != source_of():
                print(f"{committed} is out of date: run tavli-board state-diagram", file=sys.stderr)
                stale = True
        return 1 if stale else 0
    written = write_diagram(args.output)
    for path in written:
        print(f"wrote {path}")
    if len(written) == 1:
        print("the SVG needs Graphviz's dot program (Debian package graphviz); only the source was written",
              file=sys.stderr)
    return 0
