"""`tavli-board club`: boards that talk. On a board: `club key` prints the key it signs with, for the
club's director to register. On the club's machine: `club hub` takes every board's view and journal
from the broker and serves the club's pages (the café screen, history, ladder, tournaments);
`club matches`, `club seat` and `club ladder` read and complete the hub's records."""
from __future__ import annotations

import argparse
import contextlib
import json
import signal
from pathlib import Path
from typing import Any, Iterator

from firmware_host.commands import UsageError, add_config_argument, config_from_args
from firmware_host.commands.demo import add_match_arguments, match_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    club = subparsers.add_parser("club", help="boards that talk: a board's key, the club's hub, its matches and ladder")
    actions = club.add_subparsers(dest="club_action", metavar="ACTION", required=True)
    key = actions.add_parser("key", help="print this board's public key (made on first use) for the club's hub")
    add_config_argument(key)
    key.set_defaults(handler=run_key)
    hub = actions.add_parser("hub", help="take every board's signed view and journal from the club's broker and serve "
                                         "the café screen, history, ladder and tournaments, until stopped "
                                         "(firmware_host/hub/config.py: the file's format; docs/club.md)")
    hub.add_argument("--config", type=Path, required=True, metavar="FILE", help="the hub's configuration")
    hub.set_defaults(handler=run_hub)
    for name, text in (("matches", "every match the boards journaled, newest first, as JSON"),
                       ("ladder", "the ladder's ratings per game family (FIBS formula), as JSON")):
        reader = actions.add_parser(name, help=text)
        reader.add_argument("--config", type=Path, required=True, metavar="FILE", help="the hub's configuration")
        reader.set_defaults(handler=run_read, what=name)
    seat = actions.add_parser("seat", help="name who played a board's match (the ladder rates seated matches)")
    seat.add_argument("--config", type=Path, required=True, metavar="FILE", help="the hub's configuration")
    for name in ("board", "stream", "match"):
        seat.add_argument(name, type=int if name == "match" else str, help=f"the match's {name}, as `club matches` lists it")
    seat.add_argument("white")
    seat.add_argument("black")
    seat.set_defaults(handler=run_seat)
    demo = actions.add_parser("demo", help="a club on this machine: a broker, the hub and simulated boards, two of "
                                           "them playing one match over a remote seat")
    add_match_arguments(demo, match="portes", target=1)
    demo.add_argument("--boards", type=int, default=4, help="simulated boards, 2 to 12 (default: %(default)s)")
    demo.add_argument("--broker", choices=("auto", "mosquitto", "embedded"), default="auto",
                      help="Mosquitto where installed, else the embedded amqtt broker (default: %(default)s)")
    demo.set_defaults(handler=run_demo)
    broker = actions.add_parser("broker-config", help="write the club's Mosquitto configuration: an account and "
                                                       "password per board and for the hub, what each may publish, TLS")
    broker.add_argument("--config", type=Path, required=True, metavar="FILE", help="the hub's configuration")
    broker.add_argument("--out", type=Path, required=True, metavar="FOLDER", help="where to write the broker's files")
    broker.add_argument("--certfile", type=Path, metavar="PEM", help="the broker's TLS certificate (with tls = true)")
    broker.add_argument("--keyfile", type=Path, metavar="PEM", help="its private key")
    broker.add_argument("--bind", metavar="ADDRESS", help="listen on this address only (default: every address)")
    broker.set_defaults(handler=run_broker_config)


def _hub_config(path: Path):
    from firmware_host.hub.config import HubConfigError, load_hub_config
    try:
        return load_hub_config(path)
    except HubConfigError as error:
        raise UsageError(f"the hub's configuration is not usable:\n{error}") from None


def _hub_key(config):
    """The hub's signing key (made on first use): it signs the hub's acknowledgements."""
    from firmware_host.service.club import board_key
    try:
        return board_key(config.key_file)
    except (OSError, ValueError) as error:
        raise UsageError(f"the hub's key at {config.key_file} cannot be read or made: {error}") from None


def run_key(args: argparse.Namespace) -> int:
    from firmware_host.club.envelope import public_key_text
    from firmware_host.service.club import board_key

    config = config_from_args(args)
    try:
        key = board_key(config.club.signing_key_path)
    except (OSError, ValueError) as error:
        raise UsageError(f"the board's key at {config.club.signing_key_path} cannot be read or made: {error}") from None
    print(f'{config.club.board} = "{public_key_text(key)}"')
    return 0


def run_hub(args: argparse.Namespace) -> int:
    from firmware_host.hub.config import HubConfigError
    from firmware_host.hub.listener import HubListener
    from firmware_host.hub.store import HubStore
    from firmware_host.service.addresses import lan_urls
    try:
        from firmware_host.hub.web import create_hub_app
        from firmware_host.web.server import PortBusy, listen, serve
    except ImportError as error:
        raise UsageError(f"the hub's pages need the `web` extra (pip install 'tavli-board[web]'): {error}") from None

    config = _hub_config(args.config)
    key = _hub_key(config)
    try:
        sock = listen(config.web_host, config.web_port)
    except PortBusy as error:
        raise UsageError(f"the hub's pages ([web] of {args.config}): {error}") from None
    # A stop before the server takes the signals ends the hub as well; uvicorn hands the signal it took
    # back to this handler once it has stopped: either way an orderly exit, status 0.
    signal.signal(signal.SIGTERM, _stop_hub)
    store = HubStore(config.database)
    listener = HubListener(store, config.club, config.boards, key)
    app = create_hub_app(config, store, listener)   # before the listener starts: it misses no change
    try:
        listener.start(config.host, config.port, username=config.username, password=config.password(), tls=config.tls,
                       ca_file=None if config.ca_file is None else str(config.ca_file))
    except (HubConfigError, OSError) as error:   # the password's file, or the CA's (ssl.SSLError is an OSError)
        store.close()
        sock.close()
        raise UsageError(str(error) if isinstance(error, HubConfigError) else
                         f"broker.ca_file: {config.ca_file} cannot be used: {error}") from None
    print(f"tavli-board club hub: club {config.club}, {len(config.boards)} boards, broker {config.host}:{config.port}, "
          f"records in {config.database}", flush=True)
    # On the café's network: the addresses a TV or a phone opens; else this machine's own.
    urls = lan_urls(config.web_host, config.web_port) or [f"http://{config.web_host}:{config.web_port}/"]
    print(f"the café screen: {' or '.join(urls)}", flush=True)
    try:
        serve(app, sock)   # until SIGINT or SIGTERM
    finally:
        listener.close()
        store.close()
    return 0


def _stop_hub(*_) -> None:
    raise SystemExit(0)


@contextlib.contextmanager
def _hub_records(path: Path) -> Iterator[tuple[Any, Any]]:
    """The hub's configuration and its records, closed on the way out."""
    from firmware_host.hub.store import HubStore

    config = _hub_config(path)
    store = HubStore(config.database)
    try:
        yield config, store
    finally:
        store.close()


def run_read(args: argparse.Namespace) -> int:
    with _hub_records(args.config) as (_, store):
        print(json.dumps(store.matches() if args.what == "matches" else store.ladder().to_json(), indent=2))
    return 0


def run_seat(args: argparse.Namespace) -> int:
    from firmware_host.hub.store import MatchKey

    with _hub_records(args.config) as (config, store):
        known = {(match["board"], match["stream"], match["match"]) for match in store.matches()}
        if (args.board, args.stream, args.match) not in known:
            raise UsageError(f"no match {args.match} of {args.board} ({args.stream}) in {config.database}; "
                             "`tavli-board club matches` lists them")
        try:
            store.seat(MatchKey(args.board, args.stream, args.match), args.white, args.black)
        except ValueError as error:
            raise UsageError(str(error)) from None
    print(f"{args.board}'s match {args.match}: white {args.white}, black {args.black}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from firmware_host.demo.club import ClubDemoSettings, run_club_demo

    match = match_from_args(args)
    if not 2 <= args.boards <= 12:
        raise UsageError(f"--boards {args.boards} is not allowed: from 2 to 12 (two play the remote match)")
    return run_club_demo(ClubDemoSettings(match, boards=args.boards, seed=args.seed, speed=args.speed,
                                          broker=args.broker))


def run_broker_config(args: argparse.Namespace) -> int:
    from firmware_host.club.envelope import public_key_text
    from firmware_host.hub.broker import BrokerConfigError, Tls, write_broker_files

    if (args.certfile is None) != (args.keyfile is None):
        raise UsageError("--certfile and --keyfile go together: the broker's certificate and its key")
    tls = None if args.certfile is None else Tls(args.certfile, args.keyfile)
    config = _hub_config(args.config)
    try:
        files = write_broker_files(config, args.out, tls=tls, bind=args.bind)
    except BrokerConfigError as error:
        raise UsageError(f"the broker's files cannot be written:\n{error}") from None
    hub_key = public_key_text(_hub_key(config))
    print(f"wrote {files.config}, {files.passwords} ({2 * len(files.board_passwords) + 1} accounts) and {files.acl}")
    print(f"the hub's password: {files.hub_password}")
    print(f"the hub's key: {config.key_file}; every board's [club] takes its public key: hub_key = \"{hub_key}\"")
    for board, path in files.board_passwords.items():
        print(f"{board}'s password: {path} (copy it to the board: [club] username = \"{board}\", password_file)")
    print(f"start the broker: mosquitto -c {files.config}")
    return 0
