"""The club's Mosquitto, locked: an account for the hub and one per board, each board writing only
under its own topic, and TLS where the club has a certificate. Written from the hub's configuration
(its club, its boards, its account, its port and whether it uses TLS), so there is one list of boards.

`write_broker_files` writes into one folder:

    mosquitto.conf         the listener (TLS with a certificate), no anonymous client, the two files below
    passwords              every account, hashed as mosquitto_passwd does (PBKDF2-SHA512, Mosquitto 2.0)
    acl                    what each account may read and write
    boards/BOARD.password  each board's password, for that board's [club] password_file (made once, kept)

and the hub's password into its own `password_file` when that file does not exist yet. Run it again
after registering a board: the passwords already made are kept, a new board gets one.

What each account may do (tavli/CLUB/... is every topic of the club):

    the hub        reads tavli/CLUB/#, writes tavli/CLUB/hub/ack/# (its acknowledgements) and nothing else
    a board        writes tavli/CLUB/BOARD/# (its view, journal and presence), reads tavli/CLUB/# (the hub's
                   acknowledgements, and the other board of a remote match); its messages are signed too
                   (firmware_host/club/envelope.py), so a leaked account still cannot speak for another board
    BOARD-remote   the board's second connection, its remote match's seat (the same password): writes
                   tavli/CLUB/BOARD/remote/#, reads tavli/CLUB/+/remote/BOARD

The broker names every connection by its account (`use_username_as_clientid`): no account can take
over another's connection by connecting with its client id (MQTT drops the older of two connections
with one id), so a board has an account per connection.
"""
from __future__ import annotations

import base64
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from firmware_host.club.envelope import HUB
from firmware_host.config import NAME_PATTERN, REMOTE_SEAT_ROLE
from firmware_host.hub.config import HubConfig

# mosquitto_passwd's own choice for its "$7$" lines (checked against Mosquitto 2.0.11's tool).
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12
MAX_QUEUED_MESSAGES = 20_000   # about 20 MB of records at most, held for a hub that lags


class BrokerConfigError(ValueError):
    """What keeps the broker's files from being written: every problem, one line each."""


@dataclass(frozen=True)
class Tls:
    certfile: Path   # the broker's certificate (PEM), signed by the CA the boards' ca_file names
    keyfile: Path    # its private key (PEM)


@dataclass(frozen=True)
class BrokerFiles:
    config: Path
    passwords: Path
    acl: Path
    board_passwords: dict[str, Path]
    hub_password: Path


def password_line(username: str, password: str, salt: bytes | None = None) -> str:
    """One line of Mosquitto's password file: the password's PBKDF2-SHA512 hash, as mosquitto_passwd writes it."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS)
    return f"{username}:$7${PBKDF2_ITERATIONS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_text(club: str, hub_user: str, boards: list[str]) -> str:
    lines = ["# Written by `tavli-board club broker-config`; made again from the hub's configuration.",
             "# The hub: reads the whole club, writes only its acknowledgements.",
             f"user {hub_user}", f"topic read tavli/{club}/#", f"topic write tavli/{club}/{HUB}/ack/#"]
    for board in boards:
        lines += ["", f"# {board}: writes under its own topic only; reads the club's (its acknowledgements, a remote match).",
                  f"user {board}", f"topic write tavli/{club}/{board}/#", f"topic read tavli/{club}/#",
                  f"# {board}'s remote match's seat: its messages to the other board, and the other board's to it.",
                  f"user {board}{REMOTE_SEAT_ROLE}", f"topic write tavli/{club}/{board}/remote/#",
                  f"topic read tavli/{club}/+/remote/{board}"]
    return "\n".join(lines) + "\n"


def config_text(hub: HubConfig, folder: Path, tls: Tls | None, bind: str | None) -> str:
    listener = f"listener {hub.port}" + (f" {bind}" if bind else "")
    lines = [f"# Written by `tavli-board club broker-config` for the club {hub.club}: run `mosquitto -c` on this file,",
             "# or copy it into /etc/mosquitto/conf.d/ (Debian's mosquitto.conf keeps its persistence and log).",
             listener]
    if tls is not None:
        lines += [f"certfile {tls.certfile.resolve()}", f"keyfile {tls.keyfile.resolve()}"]
    lines += ["# A client's id is its account: no account can connect with another's id and drop its connection.",
              "use_username_as_clientid true",
              "allow_anonymous false", f"password_file {(folder / 'passwords').resolve()}",
              f"acl_file {(folder / 'acl').resolve()}",
              "# The hub is sent every board's records; while it lags (just started, or busy), the broker keeps",
              "# this many for it, not Mosquitto's 1,000 (a board sends again what was dropped, at a cost).",
              f"max_queued_messages {MAX_QUEUED_MESSAGES}"]
    return "\n".join(lines) + "\n"


def _board_accounts(boards) -> set[str]:
    """Every board's accounts on the broker: its own name, and its remote seat's."""
    return {account for board in boards for account in (board, board + REMOTE_SEAT_ROLE)}


def _problems(hub: HubConfig, tls: Tls | None) -> list[str]:
    problems = []
    if hub.username is None or hub.password_file is None:
        problems.append("broker.username and broker.password_file: the hub's account on the broker is needed "
                        "(such as username = \"hub\", password_file = \"hub-password\")")
    elif not NAME_PATTERN.fullmatch(hub.username):
        problems.append(f"broker.username: {hub.username[:60]!r} is not valid; allowed: 1 to 40 letters, digits, - and _")
    elif hub.username in _board_accounts(hub.boards):
        problems.append(f"broker.username: {hub.username!r} is a board's account; the hub needs an account of its own")
    if HUB in hub.boards:
        problems.append(f"boards.{HUB}: no board may be named {HUB!r} (the hub's own topics)")
    problems += [f"boards.{board}: no board may be named {board!r}: it is the account of "
                 f"{board.removesuffix(REMOTE_SEAT_ROLE)}'s remote seat" for board in sorted(hub.boards)
                 if board.endswith(REMOTE_SEAT_ROLE) and board.removesuffix(REMOTE_SEAT_ROLE) in hub.boards]
    if hub.tls and tls is None:
        problems.append("broker.tls is true: give the broker's certificate and key (--certfile, --keyfile)")
    if tls is not None and not hub.tls:
        problems.append("a certificate was given but broker.tls is false: set tls = true (and port = 8883) in [broker]")
    if tls is not None:
        problems += _pem_problems(tls)
    return problems


def _pem_problems(tls: Tls) -> list[str]:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    problems = []
    for option, path, load in (("--certfile", tls.certfile, x509.load_pem_x509_certificate),
                               ("--keyfile", tls.keyfile, lambda data: load_pem_private_key(data, password=None))):
        try:
            load(path.read_bytes())
        except OSError as error:
            problems.append(f"{option} {path}: cannot be read: {error.strerror}")
        except (ValueError, TypeError) as error:   # not PEM, or a key with a passphrase
            problems.append(f"{option} {path}: not a PEM {'certificate' if option == '--certfile' else 'key without a passphrase'}: {error}")
    return problems


def _secret(path: Path) -> str:
    """The password in `path`, or a new one written there (readable by its owner only)."""
    if path.exists():
        return path.read_text().strip()
    password = secrets.token_urlsafe(24)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_private(path, password + "\n")
    return password


def _write_private(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.replace(temporary, path)


def write_broker_files(hub: HubConfig, folder: Path, *, tls: Tls | None = None, bind: str | None = None) -> BrokerFiles:
    problems = _problems(hub, tls)
    if problems:
        raise BrokerConfigError("\n".join(problems))
    boards = sorted(hub.boards)
    try:
        (folder / "boards").mkdir(parents=True, exist_ok=True)
        board_passwords = {board: folder / "boards" / f"{board}.password" for board in boards}
        accounts = {hub.username: _secret(hub.password_file)}
        for board, path in board_passwords.items():   # a board's two connections log in with its one password
            accounts[board] = accounts[board + REMOTE_SEAT_ROLE] = _secret(path)
        _write_private(folder / "passwords", "".join(password_line(user, password) + "\n"
                                                     for user, password in accounts.items()))
        _write_private(folder / "acl", acl_text(hub.club, hub.username, boards))
        (folder / "mosquitto.conf").write_text(config_text(hub, folder, tls, bind))
    except OSError as error:
        raise BrokerConfigError(f"{error.filename}: cannot be written or read: {error.strerror}") from None
    return BrokerFiles(folder / "mosquitto.conf", folder / "passwords", folder / "acl", board_passwords, hub.password_file)
