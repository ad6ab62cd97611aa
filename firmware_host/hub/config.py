"""The hub's configuration: one TOML file, checked whole before anything starts.

    club = "kefalonia"                              # the club's name: the first level of every topic
    database = "/var/lib/tavli-board/hub.sqlite3"   # the hub's records (a relative path: beside this file)
    key_file = "/var/lib/tavli-board/hub.key"       # the key the hub signs its acknowledgements with, made on
                                                    # first use (default: hub.key beside this file); every
                                                    # board's [club] hub_key is its public key
    [broker]
    host = "localhost"                              # the club's MQTT broker
    port = 1883                                     # 8883 with tls = true
    username = "hub"                                # optional; the password in password_file
    password_file = "/etc/tavli-board/hub-password"
    tls = false
    ca_file = "/etc/ssl/certs/club-ca.pem"          # optional, with tls
    [boards]                                        # every board of the club, by the key it signs with
    table-1 = "base64 Ed25519 public key (`tavli-board club key` on that board)"
    [web]                                           # the hub's pages: the café screen, history, ladder, tournaments
    host = "127.0.0.1"                              # 0.0.0.0: the café's network (a TV, the players' phones)
    port = 8090
    pin = "scrypt$..."                              # the director's PIN, as `tavli-board web-pin` prints it;
                                                    # none: tournaments cannot be created or changed
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from firmware_host.club.envelope import EnvelopeRefused, public_key_from_text
from firmware_host.config import NAME_PATTERN, credential_problems, is_pin_hash
from firmware_host.files import InputError, load_toml


class HubConfigError(ValueError):
    """A hub configuration that cannot be used: every problem, one line each."""


@dataclass(frozen=True)
class HubConfig:
    club: str
    database: Path
    host: str
    port: int
    username: str | None
    password_file: Path | None
    tls: bool
    ca_file: Path | None
    boards: Mapping[str, Ed25519PublicKey]
    web_host: str = "127.0.0.1"
    web_port: int = 8090
    pin: str | None = None      # the director's, hashed
    key_file: Path = Path("hub.key")   # the hub's signing key (made on first use)

    def password(self) -> str | None:
        if self.password_file is None:
            return None
        try:
            return self.password_file.read_text().strip()
        except OSError as error:
            raise HubConfigError(f"broker.password_file: {self.password_file} cannot be read: {error.strerror}") from None


ALLOWED = {"": ("club", "database", "key_file", "broker", "boards", "web"), "web.": ("host", "port", "pin"),
           "broker.": ("host", "port", "username", "password_file", "tls", "ca_file")}


def load_hub_config(path: Path) -> HubConfig:
    try:
        document = load_toml(path)
    except InputError as error:
        raise HubConfigError(str(error)) from None
    problems: list[str] = []

    def take(table: dict, key: str, kind: type, default=None, where: str = ""):
        value = table.get(key, default)
        wrong_kind = not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool)
        if key in table and wrong_kind:
            problems.append(f"{path}: {where}{key}: {value!r} is not valid; allowed: a {kind.__name__}")
            return default
        return value

    def port_in(table: dict, default: int, where: str) -> int:
        port = take(table, "port", int, default, where)
        if not 1 <= port <= 65535:
            problems.append(f"{path}: {where}port: {port} is not valid; allowed: 1 to 65535")
        return port

    def beside(value: str | None) -> Path | None:   # a relative path is taken from the file's folder
        return None if value is None else path.parent / Path(value).expanduser()

    broker, boards, web = (document.get(name, {}) for name in ("broker", "boards", "web"))
    if not isinstance(broker, dict) or not isinstance(boards, dict) or not isinstance(web, dict):
        raise HubConfigError(f"{path}: [broker], [boards] and [web] are tables")
    for where, table in (("", document), ("web.", web), ("broker.", broker)):
        problems += [f"{path}: {where}{key}: unknown key; allowed: {', '.join(ALLOWED[where])}"
                     for key in sorted(set(table) - set(ALLOWED[where]))]
    club = take(document, "club", str, "club")
    if not NAME_PATTERN.fullmatch(club or ""):
        problems.append(f"{path}: club: {club!r} is not valid; allowed: 1 to 40 letters, digits, - and _")
    keys = _board_keys(path, boards, problems)
    tls = take(broker, "tls", bool, False, "broker.")
    pin = take(web, "pin", str, None, "web.")
    if pin is not None and not is_pin_hash(pin):
        problems.append(f"{path}: web.pin: is not a hashed PIN; allowed: the line `tavli-board web-pin` prints")
    problems += [f"{path}: {key}: {problem}; allowed: {allowed}" for key, problem, allowed in
                 credential_problems(broker.get("username"), broker.get("password_file"), tls, broker.get("ca_file"), "broker")]
    optional_paths = {key: beside(take(broker, key, str, None, "broker.")) for key in ("password_file", "ca_file")}
    config = HubConfig(club=club, database=beside(take(document, "database", str, "hub.sqlite3")),
                       host=take(broker, "host", str, "localhost", "broker."), port=port_in(broker, 8883 if tls else 1883, "broker."),
                       username=take(broker, "username", str, None, "broker."),
                       password_file=optional_paths["password_file"], tls=tls, ca_file=optional_paths["ca_file"],
                       boards=keys, web_host=take(web, "host", str, "127.0.0.1", "web."),
                       web_port=port_in(web, 8090, "web."), pin=pin,
                       key_file=beside(take(document, "key_file", str, "hub.key")))
    if problems:
        raise HubConfigError("\n".join(problems))
    return config


def _board_keys(path: Path, boards: dict, problems: list[str]) -> dict[str, Ed25519PublicKey]:
    """[boards]: each board's name and the public key its messages are signed with."""
    keys = {}
    for name, text in boards.items():
        try:
            if not NAME_PATTERN.fullmatch(name) or not isinstance(text, str):
                raise EnvelopeRefused("a board's name and its key as text")
            keys[name] = public_key_from_text(text)
        except EnvelopeRefused as error:
            problems.append(f"{path}: boards.{name[:40]}: {error}")
    if not keys:
        problems.append(f"{path}: boards: no board; allowed: NAME = \"the key `tavli-board club key` prints\"")
    return keys
