"""Commands of the web companion: `web` (the companion's pages, in a process of its own) and `web-pin`
(the hashed line for `[web] pin`)."""
from __future__ import annotations

import argparse
import dataclasses
import getpass
import sys

from firmware_host.commands import UsageError, add_config_argument, config_from_args

MIN_PIN = 4


def register(subparsers: argparse._SubParsersAction) -> None:
    web = subparsers.add_parser(
        "web", help="the web companion: the live board, the referee's reasons, the match, history, settings and "
                    "status in a browser (talks to `tavli-board run` over its socket)",
        description="Serves the companion's pages on [web] host and port of the configuration; the referee "
                    "service must run with the same configuration (its socket is [web] socket).")
    add_config_argument(web)
    web.add_argument("--host", help="listen here instead of the configuration's [web] host")
    web.add_argument("--port", type=int, help="listen on this port instead of the configuration's [web] port")
    web.set_defaults(handler=run_web)

    pin = subparsers.add_parser(
        "web-pin", help="hash a PIN for the web companion's settings: prints the line for [web] of the config",
        description="Reads the PIN (twice on a terminal; one line from a pipe) and prints `pin = \"scrypt$...\"`; "
                    "the PIN itself is stored nowhere.")
    pin.set_defaults(handler=run_web_pin)


def run_web(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.port is not None and not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not valid: from 1 to 65535")
    try:
        from firmware_host.web.app import create_app
        from firmware_host.web.server import PortBusy, listen, serve
    except ImportError as error:
        raise UsageError(f"the web companion needs the `web` extra (pip install 'tavli-board[web]'): {error}") from None
    host, port = args.host or config.web.host, args.port or config.web.port
    # The Host check answers to the name it listens on: the one given here, where given.
    config = dataclasses.replace(config, web=dataclasses.replace(config.web, host=host, port=port))
    try:
        sock = listen(host, port)
    except PortBusy as error:
        raise UsageError(str(error)) from None
    print(f"tavli-board web: http://{host}:{port}/ (the service's socket: {config.web.socket})", flush=True)
    serve(create_app(config), sock)
    return 0


def run_web_pin(args: argparse.Namespace) -> int:
    from firmware_host.config import hash_pin

    if sys.stdin.isatty():
        pin = getpass.getpass("PIN: ")
        if getpass.getpass("again: ") != pin:
            raise UsageError("the two PINs differ; nothing printed")
    else:
        pin = sys.stdin.readline().rstrip("\n")
    if len(pin) < MIN_PIN:
        raise UsageError(f"a PIN needs at least {MIN_PIN} characters")
    print(f'pin = "{hash_pin(pin)}"')
    return 0
