"""The service's configuration: one TOML file, read with tomllib and checked whole before anything starts.

On the Pi it is /etc/tavli-board/config.toml (systemd/config.toml is the one install.sh puts there);
with no file the built-in defaults give the simulated board. Every key is optional:

```toml
hardware = "real"            # or "simulated" (the default): sim MCU on a pty, mock pins, captured LEDs
board_file = "/opt/tavli-board/hardware/board.toml"   # the board's hardware facts (default: the shipped one)

[match]                      # firmware_host.rules.match.MatchRules
sequence = "tavli"           # a preset ("tavli", "tabla"), one game ("fevga") or a list of games
target = 5
opening_roll = "reroll"      # tie_advances_rotation, tie_next_starter, resign_points likewise
white = "person"             # a seat is a "person" (the default) or the "bot" (docs/bot.md); black likewise

[referee]
hints = false                # referee mode offers the bot's best play for the mover (off: tournaments stay clean)

[house_rules]                # options of firmware_host.rules.GAME_OPTIONS for every game they apply to
higher_die_rule = true
[house_rules.plakoto]        # ... and for one game, over the line above
mother_rule = false

[serial]                     # these four tables override the same keys of the board file
port = "/dev/tavli-sensors"  # port, baudrate, usb_vid, usb_pid
[sensors]                    # timings: quiet_ms, grace_ms
[button]                     # pin, hold_ms
[leds]                       # driver, pin, count, brightness, palette

[journal]
path = "/var/lib/tavli-board/journal.sqlite3"

[logging]
level = "info"               # debug, info, warning, error
file = "/var/log/tavli-board/tavli-board.log"
max_kb = 1024                # the log rotates at this size ...
backups = 5                  # ... keeping this many old files
raw_frames_dir = "/run/tavli-board"   # the last minute of the sensor link's bytes, for bug reports

[web]                        # the web companion (`tavli-board web`, docs/companion-protocol.md)
socket = "/run/tavli-board/companion.sock"   # where the service publishes its snapshots
host = "127.0.0.1"           # where `tavli-board web` listens ("0.0.0.0": the whole network)
port = 8080
pin = "scrypt$16384$8$1$<salt>$<hash>"        # `tavli-board web-pin` makes it; none: settings cannot be changed
```

Hardware facts (pins, LED indices, the channel map) live in the board file (architecture principle
4); the config may override only the installation settings listed above. Those overrides are laid
over the board file and the result goes through the board file's own loaders (sensing, pin map, LED
layout), so they are checked exactly as the board file is, including how they fit the rest of it
(an LED count that leaves layout indices past the end of the strip, a button pin the buzzer uses).
House rules go through `Rules.for_variant` and the match through `MatchRules`.

Every problem names the file, the key and what is allowed; all of them are reported together
(within one table, only the first unknown key), and nothing is returned half-configured.
"""
from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping


from firmware_host.hw.boardfile import BoardFileError, Table, read_board_file
from firmware_host.hw.pinmap import PinMap, parse_pin_map
from firmware_host.leds.layout import LedConfig, parse_led_config
from firmware_host.rules import GAME_OPTIONS, VARIANTS, Color, Rules, RulesError
from firmware_host.rules.variants import option_name
from firmware_host.rules.match import OPENING_ROLLS, RESIGN_POINTS, TIE_STARTERS, MatchRules, sequence_of
from firmware_host.sensing.config import DEFAULT_BOARD_FILE, BoardConfigError, SensingConfig, parse_sensing_config

DEFAULT_CONFIG_FILE = Path("/etc/tavli-board/config.toml")
BUILT_IN = "built-in default"
HARDWARE_MODES = ("simulated", "real")
LOG_LEVELS = ("debug", "info", "warning", "error")

# The board-file keys an installation may override, by table: the settings of issue 6 (port or
# VID/PID, baud, button pin, LED pin/driver/count/brightness/palette) and the timings.
BOARD_OVERRIDES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "serial": ("port", "baudrate", "usb_vid", "usb_pid"),
    "sensors": ("quiet_ms", "grace_ms"),
    "button": ("pin", "hold_ms"),
    "leds": ("driver", "pin", "count", "brightness", "palette"),
})
_MATCH_KEYS = ("sequence", "target", "opening_roll", "tie_advances_rotation", "tie_next_starter", "resign_points")
# Who sits at each side of the board: [match] white / black.
SEATS = ("person", "bot")
_TOP_LEVEL = ("hardware", "board_file", "match", "house_rules", *BOARD_OVERRIDES, "journal", "logging", "hil", "web",
              "referee", "club")
_WEB_KEYS = ("socket", "host", "port", "pin", "hosts")


def state_home() -> Path:
    """Where the service keeps its state by default (the journal, the board's club key): XDG's state folder."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "tavli-board"


def _runtime_home() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    # Not tempfile.gettempdir(): it writes a probe file, which fails on a full disk before anything
    # could say so; the folder is only named here.
    temporary = os.environ.get("TMPDIR") or "/tmp"
    return Path(runtime) / "tavli-board" if runtime else Path(temporary) / f"tavli-board-{os.getuid()}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a configuration: where, what, and what would be right."""

    file: str
    key: str         # "section.key"; "" when the problem text names it
    problem: str
    allowed: str | None = None

    def __str__(self) -> str:
        text = f"{self.file}: {self.key}: {self.problem}" if self.key else f"{self.file}: {self.problem}"
        return text + (f"; allowed: {self.allowed}" if self.allowed else "")


class ConfigError(ValueError):
    """The configuration cannot be used; `problems` lists everything found wrong, one per line."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


@dataclass(frozen=True)
class LogSettings:
    file: Path
    level: str = "info"
    max_bytes: int = 1024 * 1024
    backups: int = 5
    raw_frames_dir: Path = field(default_factory=_runtime_home)


# The web companion's PIN, stored hashed: "scrypt$N$r$p$salt$hash" (hex), never the PIN itself.
_PIN_SCHEME, _PIN_COST = "scrypt", (16384, 8, 1)


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """The line `[web] pin` holds for `pin` (a fresh random salt unless one is given)."""
    salt = salt if salt is not None else os.urandom(16)
    n, r, p = _PIN_COST
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"{_PIN_SCHEME}${n}${r}${p}${salt.hex()}${digest.hex()}"


def _pin_parts(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    try:
        if len(parts) != 6 or parts[0] != _PIN_SCHEME:
            return None
        n, r, p = (int(part) for part in parts[1:4])
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return None
    if not (2 <= n <= 2 ** 20 and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16 and salt and len(digest) == 32):
        return None
    return n, r, p, salt, digest


def is_pin_hash(stored: str) -> bool:
    """Whether `stored` is a line `tavli-board web-pin` could have printed (the PIN hashed)."""
    return _pin_parts(stored) is not None


def pin_matches(stored: str, pin: str) -> bool:
    """Whether `pin` is the one hashed in `stored` (compared in constant time)."""
    parts = _pin_parts(stored)
    if parts is None:
        return False
    n, r, p, salt, digest = parts
    return hmac.compare_digest(hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=32), digest)


@dataclass(frozen=True)
class WebSettings:
    """[web]: the companion's socket and address; `pin`: the hashed PIN (None: settings are read-only);
    `hosts`: names it answers to besides localhost, this machine's name and addresses ("*": any)."""

    socket: Path
    host: str = "127.0.0.1"
    port: int = 8080
    pin: str | None = None
    hosts: tuple[str, ...] = ()


# [club]: boards that talk to a club's MQTT broker (firmware_host/service/club.py); off without a broker.
_CLUB_KEYS = ("broker", "port", "club", "board", "username", "password_file", "tls", "ca_file", "key_file",
              "hub_key", "opponent", "opponent_key", "seat")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")   # a club's or a board's name: one MQTT topic level
# A board's second connection, a remote match's seat: its client id and its broker account are the
# board's with this after (the club's broker names every connection by its account, so each needs its own).
REMOTE_SEAT_ROLE = "-remote"


@dataclass(frozen=True)
class ClubSettings:
    """[club]: where the board publishes its view, plays, faults and results, and as whom."""

    broker: str | None = None        # host name or address of the club's MQTT broker; None: no club
    port: int = 1883                 # 8883 is MQTT over TLS
    club: str = "club"               # the club's name: the first level of every topic
    board: str = "board"             # this board's name in the club
    username: str | None = None
    password_file: Path | None = None   # the broker password, in a file readable by the service only
    tls: bool = False
    ca_file: Path | None = None      # the broker's certificate authority (TLS); None: the system's
    key_file: Path | None = None     # the board's signing key; None: club-board.key in the state folder
    hub_key: str | None = None       # the key the club's hub signs its acknowledgements with (broker-config prints it)
    # A remote match (firmware_host/service/remote_seat.py): the board across the broker whose player
    # has the other colour, the key it signs with (`tavli-board club key` there), and this board's colour.
    opponent: str | None = None
    opponent_key: str | None = None
    seat: Color | None = None

    @property
    def signing_key_path(self) -> Path:
        return self.key_file or state_home() / "club-board.key"

    @property
    def remote_seats(self) -> frozenset[Color]:
        """The colour whose plays come from the opponent board (none without a remote match)."""
        return frozenset() if self.seat is None else frozenset({self.seat.opponent})


@dataclass(frozen=True)
class Setting:
    """One effective value for `config show`, and where it came from."""

    key: str
    value: Any
    origin: str


@dataclass(frozen=True)
class HouseRules:
    """House-rule options from the config: for every game (`general`) and per game (`per_game`)."""

    general: Mapping[str, Any] = field(default_factory=dict)
    per_game: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def options_for(self, variant: str) -> dict[str, Any]:
        """The configured options that apply to `variant`; a per-game value wins over a general one."""
        options = {name: value for name, value in self.general.items() if GAME_OPTIONS[name].applies_to(variant)}
        options.update(self.per_game.get(variant, {}))
        return options

    def origin(self, variant: str, option: str, source: str) -> str:
        if option in self.per_game.get(variant, {}):
            return f"{source} [house_rules.{variant}]"
        if option in self.general:
            return f"{source} [house_rules]"
        return f"rules default for {variant}"


@dataclass(frozen=True)
class Config:
    """The checked configuration of one run of the service. Build it with `load_config`."""

    source: str                  # the config file, or BUILT_IN
    hardware: str                # "simulated" or "real"
    board_file: Path
    sensing: SensingConfig       # [serial] and [sensors], overrides applied
    pins: PinMap                 # [button], [buzzer] and the LED data line, overrides applied
    leds: LedConfig              # [leds], overrides applied
    match_rules: MatchRules
    house_rules: HouseRules
    journal_path: Path
    logging: LogSettings
    origins: Mapping[str, str]   # "section.key" -> the file it came from, for the keys set in a file
    report_leds: bool = False    # [hil]: send the LED status over the sensor link, for a HIL rig (docs/hil.md)
    web: WebSettings = field(default_factory=lambda: WebSettings(_runtime_home() / "companion.sock"))
    bots: frozenset[Color] = frozenset()   # [match] white / black = "bot": the seats the bot plays
    hints: bool = False          # [referee] hints: referee mode offers the bot's best play
    club: ClubSettings = field(default_factory=ClubSettings)

    @property
    def simulated(self) -> bool:
        return self.hardware == "simulated"

    def rules_for(self, variant: str) -> Rules:
        """The resolved rules of one game of `variant` under this configuration's house rules."""
        return Rules.for_variant(variant, self.house_rules.options_for(variant))

    def settings(self) -> list[Setting]:
        """Every effective value an installation can set, with its origin (for `config show`)."""
        def origin(key: str, fallback: str = BUILT_IN) -> str:
            return self.origins.get(key, fallback)

        board = f"board file {self.board_file}"
        serial, sensors, button, leds = self.sensing.serial, self.sensing.sensors, self.pins.button, self.leds
        values: list[tuple[str, Any, str]] = [
            ("hardware", self.hardware, origin("hardware")),
            ("board_file", str(self.board_file), origin("board_file")),
            ("serial.port", serial.port, origin("serial.port", board)),
            ("serial.baudrate", serial.baudrate, origin("serial.baudrate", board)),
            ("serial.usb_vid", f"0x{serial.usb_vid:04x}", origin("serial.usb_vid", board)),
            ("serial.usb_pid", f"0x{serial.usb_pid:04x}", origin("serial.usb_pid", board)),
            ("sensors.quiet_ms", sensors.quiet_ms, origin("sensors.quiet_ms", board)),
            ("sensors.grace_ms", sensors.grace_ms, origin("sensors.grace_ms", board)),
            ("sensors.mcu.link", sensors.mcu.link, board),   # install.sh sets the Pi's UART up by it
            ("button.pin", button.pin, origin("button.pin", board)),
            ("button.hold_ms", round(button.hold_s * 1000), origin("button.hold_ms", board)),
            ("leds.driver", leds.data_line.driver, origin("leds.driver", board)),
            ("leds.pin", leds.data_line.pin, origin("leds.pin", board)),
            ("leds.count", leds.layout.count, origin("leds.count", board)),
            ("leds.brightness", leds.brightness, origin("leds.brightness", board)),
            ("leds.palette", leds.palette, origin("leds.palette", board)),
        ]
        values += [(f"match.{key}", _plain(getattr(self.match_rules, key)), origin(f"match.{key}", "rules default"))
                   for key in _MATCH_KEYS]
        values += [(f"match.{color.value}", "bot" if color in self.bots else "person", origin(f"match.{color.value}"))
                   for color in (Color.WHITE, Color.BLACK)]
        for variant in self._configured_variants():
            rules = self.rules_for(variant)
            values += [(f"house_rules.{variant}.{name}", _plain(value), self.house_rules.origin(variant, name, self.source))
                       for name, value in rules.options.items()]
        values += [
            ("journal.path", str(self.journal_path), origin("journal.path")),
            ("logging.level", self.logging.level, origin("logging.level")),
            ("logging.file", str(self.logging.file), origin("logging.file")),
            ("logging.max_kb", self.logging.max_bytes // 1024, origin("logging.max_kb")),
            ("logging.backups", self.logging.backups, origin("logging.backups")),
            ("logging.raw_frames_dir", str(self.logging.raw_frames_dir), origin("logging.raw_frames_dir")),
            ("referee.hints", self.hints, origin("referee.hints")),
            ("hil.report_leds", self.report_leds, origin("hil.report_leds")),
            ("web.socket", str(self.web.socket), origin("web.socket")),
            ("web.host", self.web.host, origin("web.host")),
            ("web.port", self.web.port, origin("web.port")),
            ("web.pin", "set (hashed)" if self.web.pin else "not set", origin("web.pin")),
            ("web.hosts", list(self.web.hosts), origin("web.hosts")),
            ("club.broker", self.club.broker or "none (no club)", origin("club.broker")),
            ("club.port", self.club.port, origin("club.port")),
            ("club.club", self.club.club, origin("club.club")),
            ("club.board", self.club.board, origin("club.board")),
            ("club.username", self.club.username or "none", origin("club.username")),
            ("club.password_file", str(self.club.password_file or "none"), origin("club.password_file")),
            ("club.tls", self.club.tls, origin("club.tls")),
            ("club.ca_file", str(self.club.ca_file or "the system's"), origin("club.ca_file")),
            ("club.key_file", str(self.club.key_file or "club-board.key in the state folder"), origin("club.key_file")),
            ("club.hub_key", "set" if self.club.hub_key else "none", origin("club.hub_key")),
            ("club.opponent", self.club.opponent or "none (no remote match)", origin("club.opponent")),
            ("club.opponent_key", "set" if self.club.opponent_key else "none", origin("club.opponent_key")),
            ("club.seat", self.club.seat.value if self.club.seat else "none", origin("club.seat")),
        ]
        return [Setting(key, value, where) for key, value, where in values]

    def _configured_variants(self) -> list[str]:
        """The games of the match sequence, then any other game with house rules of its own."""
        variants = list(dict.fromkeys(self.match_rules.sequence))
        return variants + [variant for variant in self.house_rules.per_game if variant not in variants]


def _plain(value: Any) -> Any:
    """A value as TOML would write it (tuples and frozensets as sorted lists)."""
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return value


class _Collector:
    """Gathers problems so that one run reports all of them."""

    def __init__(self, source: str):
        self.source = source
        self.problems: list[Problem] = []

    def add(self, key: str, problem: str, allowed: str | None = None, file: str | None = None) -> None:
        self.problems.append(Problem(file or self.source, key, problem, allowed))

    def board_error(self, error: BoardFileError, *, file: str | None = None, key: str | None = None) -> None:
        """A `BoardFileError` as a problem, by default in the file and at the key it names."""
        problem = str(error).removeprefix(f"{error.path}: {error.key}: ")
        problem, _, allowed = problem.partition("; allowed: ")
        self.add(key or error.key, problem, allowed or None, file or error.path)

    def read(self, getter: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a `Table` getter; a wrong value is recorded and None returned."""
        try:
            return getter(*args, **kwargs)
        except BoardFileError as error:
            self.board_error(error)
            return None

    def section(self, document: dict[str, Any], name: str, known: Iterable[str],
                unknown: str = "unknown key") -> Table | None:
        """The optional table `name`, its unknown keys reported (all of them); None if it is no table."""
        data = document.get(name, {})
        if not isinstance(data, dict):
            self.add(name, f"{data!r} is not valid", f"a table, [{name}]")
            return None
        known = tuple(known)
        for key in data:
            if key not in known:
                self.add(f"{name}.{key}", unknown, ", ".join(known))
        return Table(self.source, name, data)


def load_config(path: Path | str | None = None) -> Config:
    """Read and check the config file at `path` (None: the built-in defaults, the simulated board).

    Raises `ConfigError` listing every problem found, in this file or in the board file it names.
    """
    if path is None:
        return parse_config({}, BUILT_IN)
    try:
        document = read_board_file(path)
    except BoardFileError as error:
        problems = _Collector(str(path))
        problems.board_error(error)
        raise ConfigError(problems.problems) from None
    return parse_config(document, str(path), relative_to=path)


def parse_config(document: dict[str, Any], source: str, relative_to: Path | str | None = None) -> Config:
    """Check a config already parsed from TOML (`source` names it in problems; relative paths in it
    are taken from the folder of `relative_to`, else from the working directory).

    Raises `ConfigError` listing every problem found, in the document or in the board file it names.
    """
    problems = _Collector(source)
    for key in document:
        if key not in _TOP_LEVEL:
            problems.add(key, "unknown key", ", ".join(_TOP_LEVEL))

    hardware = document.get("hardware", "simulated")
    if hardware not in HARDWARE_MODES:
        problems.add("hardware", f"{hardware!r} is not valid", " or ".join(f'"{mode}"' for mode in HARDWARE_MODES))
    board_file = _board_file(problems, document.get("board_file"), relative_to)
    match_table = problems.section(document, "match", (*_MATCH_KEYS, *(color.value for color in (Color.WHITE, Color.BLACK))))
    match_rules = _match_rules(problems, match_table)
    bots = _bot_seats(problems, match_table)
    referee = problems.section(document, "referee", ("hints",))
    hints = bool(problems.read(referee.boolean, "hints", default=False)) if referee is not None else False
    house_rules = _house_rules(problems, document.get("house_rules", {}))
    journal_path = _journal_path(problems, problems.section(document, "journal", ("path",)), relative_to)
    log_settings = _log_settings(problems, problems.section(document, "logging", _LOGGING_KEYS), relative_to)
    hil = problems.section(document, "hil", ("report_leds",))
    report_leds = bool(problems.read(hil.boolean, "report_leds", default=False)) if hil is not None else False
    web = _web_settings(problems, problems.section(document, "web", _WEB_KEYS), relative_to)
    club = _club_settings(problems, problems.section(document, "club", _CLUB_KEYS), relative_to)
    for color in club.remote_seats & bots:
        problems.add(f"match.{color.value}", '"bot" is not valid here: the opponent board plays this colour',
                     f'"person", or [club] seat = "{color.value}"')
    overrides = {}
    for name, keys in BOARD_OVERRIDES.items():
        table = problems.section(document, name, keys, "not settable here: hardware facts are set in the board file")
        settable = {key: value for key, value in (table.data if table else {}).items() if key in keys}
        if settable:
            overrides[name] = settable
    hardware_parts = _board(problems, board_file, overrides) if board_file is not None else None
    if problems.problems:
        raise ConfigError(problems.problems)
    sensing, pins, leds = hardware_parts
    return Config(source, hardware, board_file, sensing, pins, leds, match_rules, house_rules, journal_path,
                  log_settings, MappingProxyType(_origins(document, source)), report_leds, web, bots, hints, club)


def _origins(document: dict[str, Any], source: str) -> dict[str, str]:
    """"section.key" (or "key" at the top) -> `source`, for every plain value the file sets."""
    origins = {}
    for name, value in document.items():
        if isinstance(value, dict):
            origins.update({f"{name}.{key}": source for key, item in value.items() if not isinstance(item, dict)})
        else:
            origins[name] = source
    return origins


def _resolve(value: str, relative_to: Path | str | None) -> Path:
    """A path from the config; a relative one is taken from the config file's folder."""
    resolved = Path(value).expanduser()
    if not resolved.is_absolute() and relative_to is not None:
        resolved = Path(relative_to).resolve().parent / resolved
    return resolved


def _board_file(problems: _Collector, value: Any, relative_to: Path | str | None) -> Path | None:
    if value is None:
        return DEFAULT_BOARD_FILE
    if not isinstance(value, str) or not value:
        problems.add("board_file", f"{value!r} is not valid", "a file path (relative to the config file's folder)")
        return None
    return _resolve(value, relative_to)


def _table_path(problems: _Collector, table: Table, key: str, default: Path, relative_to: Path | str | None) -> Path:
    value = problems.read(table.string, key, default=None)
    return default if value is None else _resolve(value, relative_to)


def _journal_path(problems: _Collector, table: Table | None, relative_to: Path | str | None) -> Path:
    default = state_home() / "journal.sqlite3"
    return default if table is None else _table_path(problems, table, "path", default, relative_to)


_LOGGING_KEYS = ("level", "file", "max_kb", "backups", "raw_frames_dir")


def _log_settings(problems: _Collector, table: Table | None, relative_to: Path | str | None) -> LogSettings:
    defaults = LogSettings(file=state_home() / "tavli-board.log", raw_frames_dir=_runtime_home())
    if table is None:
        return defaults
    max_kb = problems.read(table.integer, "max_kb", default=defaults.max_bytes // 1024, minimum=16, maximum=1024 * 1024)
    return LogSettings(
        file=_table_path(problems, table, "file", defaults.file, relative_to),
        level=problems.read(table.choice, "level", LOG_LEVELS, default=defaults.level) or defaults.level,
        max_bytes=1024 * (max_kb or 0),
        backups=problems.read(table.integer, "backups", default=defaults.backups, minimum=1, maximum=100) or 0,
        raw_frames_dir=_table_path(problems, table, "raw_frames_dir", defaults.raw_frames_dir, relative_to),
    )


def _web_settings(problems: _Collector, table: Table | None, relative_to: Path | str | None) -> WebSettings:
    defaults = WebSettings(_runtime_home() / "companion.sock")
    if table is None:
        return defaults
    pin = problems.read(table.string, "pin", default=None)
    if pin is not None and not is_pin_hash(pin):
        problems.add("web.pin", "is not a hashed PIN", "the line `tavli-board web-pin` prints")
        pin = None
    hosts = table.data.get("hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(name, str) and _HOST_NAME.fullmatch(name) for name in hosts):
        problems.add("web.hosts", f"{hosts!r} is not valid",
                     'a list of host names or addresses without a port, such as ["tavli.lan", "192.168.1.20"], or ["*"]')
        hosts = []
    return WebSettings(
        socket=_table_path(problems, table, "socket", defaults.socket, relative_to),
        host=problems.read(table.string, "host", default=defaults.host) or defaults.host,
        port=problems.read(table.integer, "port", default=defaults.port, minimum=1, maximum=65535) or defaults.port,
        pin=pin, hosts=tuple(name.lower() for name in hosts))


# A name or an IPv4 address (letters, digits, dots, hyphens), an IPv6 address (hex digits and colons), or "*".
_HOST_NAME = re.compile(r"\*|[A-Za-z0-9.-]{1,253}|[0-9A-Fa-f:.]{2,45}")


def credential_problems(username: Any, password_file: Any, tls: bool, ca_file: Any,
                        section: str = "club") -> list[tuple[str, str, str]]:
    """The broker's account and TLS settings that cannot work together, as (key, problem, allowed):
    the club's board ([club]) and its hub ([broker] of the hub's file) take the same four."""
    problems = []
    if (username is None) != (password_file is None):
        given, missing = ("username", "password_file") if password_file is None else ("password_file", "username")
        problems.append((f"{section}.{missing}", f"is missing (with {given})",
                         "username and password_file together: the broker's account and a file holding its password"))
    if ca_file is not None and not tls:
        problems.append((f"{section}.ca_file", "is set but tls is false", "tls = true with a ca_file (the broker's CA)"))
    return problems


def _club_settings(problems: _Collector, table: Table | None, relative_to: Path | str | None) -> ClubSettings:
    defaults = ClubSettings()
    if table is None or not table.data:
        return defaults
    names = {}
    for key in ("club", "board"):
        name = problems.read(table.string, key, default=getattr(defaults, key))
        if name is not None and not NAME_PATTERN.fullmatch(name):
            problems.add(f"club.{key}", f"{name[:60]!r} is not valid", "1 to 40 letters, digits, - and _, "
                         "starting with a letter or digit (one level of an MQTT topic)")
        names[key] = name or getattr(defaults, key)
    if table.data.get("broker") is not None and "board" not in table.data:
        problems.add("club.board", "is missing", "this board's name in the club, such as \"table-3\"")
    optional_path = {key: _table_path(problems, table, key, Path(), relative_to) if key in table.data else None
                     for key in ("password_file", "ca_file", "key_file")}
    tls = bool(problems.read(table.boolean, "tls", default=False))
    opponent, opponent_key, seat = _remote_match(problems, table, names["board"])
    hub_key = problems.read(table.string, "hub_key", default=None)
    if hub_key is not None and not _is_ed25519_public_key(hub_key):
        problems.add("club.hub_key", f"{hub_key[:60]!r} is not valid",
                     "the hub's key, as `tavli-board club broker-config` prints it (base64, 32 bytes)")
        hub_key = None
    for problem in credential_problems(table.data.get("username"), table.data.get("password_file"), tls,
                                       table.data.get("ca_file")):
        problems.add(*problem)
    return ClubSettings(
        broker=problems.read(table.string, "broker", default=None) or None,
        port=problems.read(table.integer, "port", default=8883 if tls else 1883, minimum=1, maximum=65535) or 1883,
        club=names["club"], board=names["board"],
        username=problems.read(table.string, "username", default=None),
        password_file=optional_path["password_file"], tls=tls, ca_file=optional_path["ca_file"],
        key_file=optional_path["key_file"], hub_key=hub_key, opponent=opponent, opponent_key=opponent_key, seat=seat)


_REMOTE_KEYS = ("opponent", "opponent_key", "seat")


def _remote_match(problems: _Collector, table: Table, board: str) -> tuple[str | None, str | None, Color | None]:
    """[club] opponent, opponent_key and seat: all three or none (a remote match needs each)."""
    given = [key for key in _REMOTE_KEYS if key in table.data]
    if not given:
        return None, None, None
    for key in _REMOTE_KEYS:
        if key not in given:
            problems.add(f"club.{key}", "is missing", "a remote match sets opponent, opponent_key and seat together")
    opponent = problems.read(table.string, "opponent", default=None)
    if opponent is not None and (not NAME_PATTERN.fullmatch(opponent) or opponent == board):
        problems.add("club.opponent", f"{opponent[:60]!r} is not valid",
                     "the other board's name in the club (1 to 40 letters, digits, - and _), not this board's")
        opponent = None
    opponent_key = problems.read(table.string, "opponent_key", default=None)
    if opponent_key is not None and not _is_ed25519_public_key(opponent_key):
        problems.add("club.opponent_key", f"{opponent_key[:60]!r} is not valid",
                     "the key `tavli-board club key` prints on the opponent board (base64, 32 bytes)")
        opponent_key = None
    seat = problems.read(table.choice, "seat", tuple(color.value for color in (Color.WHITE, Color.BLACK)), default=None)
    if "broker" not in table.data and given:
        problems.add("club.broker", "is missing", "a remote match is played through the club's broker")
    return opponent, opponent_key, None if seat is None else Color(seat)


def _is_ed25519_public_key(text: str) -> bool:
    try:
        return len(base64.b64decode(text, validate=True)) == 32
    except (binascii.Error, ValueError):
        return False


def _match_rules(problems: _Collector, table: Table | None) -> MatchRules | None:
    """[match] through `MatchRules`: types are checked here, the meaning by the rules package."""
    if table is None:
        return None
    values: dict[str, Any] = {}
    sequence = table.data.get("sequence")
    if sequence is not None:
        if isinstance(sequence, str) or isinstance(sequence, list) and all(isinstance(game, str) for game in sequence):
            try:
                values["sequence"] = sequence_of(sequence)
            except RulesError as error:
                problems.add("match.sequence", str(error))
        else:
            problems.add("match.sequence", f"{sequence!r} is not valid",
                         'a preset (tavli, tabla), one game, or a list of games such as ["portes", "fevga"]')
    readers = {
        "target": lambda: table.integer("target", default=None, minimum=1, maximum=99),
        "opening_roll": lambda: table.choice("opening_roll", OPENING_ROLLS, default=None),
        "tie_advances_rotation": lambda: table.boolean("tie_advances_rotation", default=None),
        "tie_next_starter": lambda: table.choice("tie_next_starter", TIE_STARTERS, default=None),
        "resign_points": lambda: table.choice("resign_points", RESIGN_POINTS, default=None),
    }
    for key, read in readers.items():
        value = problems.read(read)
        if value is not None:
            values[key] = value
    try:
        return MatchRules(**values)
    except RulesError as error:
        problems.add("match", str(error))
        return None


def _bot_seats(problems: _Collector, table: Table | None) -> frozenset[Color]:
    """[match] white / black: the seats the bot plays."""
    if table is None:
        return frozenset()
    return frozenset(color for color in (Color.WHITE, Color.BLACK)
                     if problems.read(table.choice, color.value, SEATS, default="person") == "bot")


def _house_rules(problems: _Collector, data: Any) -> HouseRules:
    """[house_rules]: general options (checked by the option's own parser) and per-game tables
    (checked by `Rules.for_variant`, which also refuses an option the game does not have)."""
    if not isinstance(data, dict):
        problems.add("house_rules", f"{data!r} is not valid", "a table, [house_rules]")
        return HouseRules()
    general: dict[str, Any] = {}
    per_game: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            if key not in VARIANTS:
                problems.add(f"house_rules.{key}", "not a game", ", ".join(VARIANTS))
                continue
            per_game[key] = {}
            for name, raw in value.items():
                try:
                    rules = Rules.for_variant(key, {name: raw})
                    canonical = option_name(name, key)
                except RulesError as error:
                    problems.add(f"house_rules.{key}.{name}", str(error))
                    continue
                per_game[key][canonical] = rules.options[canonical]
            continue
        option = GAME_OPTIONS.get(key.lower())
        if option is None:
            problems.add(f"house_rules.{key}", "unknown house rule", ", ".join(GAME_OPTIONS))
            continue
        try:
            general[option.name] = option.parse(value)
        except ValueError as error:
            problems.add(f"house_rules.{key}", f"{value!r} is not valid: {error}")
    return HouseRules(MappingProxyType(general),
                      MappingProxyType({game: MappingProxyType(options) for game, options in per_game.items()}))


def _board(problems: _Collector, board_file: Path, overrides: dict[str, dict[str, Any]]):
    """(sensing, pins, leds) of the board file with the config's overrides laid over it.

    The board file is first loaded alone, so that its own mistakes are blamed on it; then, with the
    overrides, by the same loaders, so that what goes wrong then is blamed on the config.
    """
    try:
        document = read_board_file(board_file)
    except BoardFileError as error:
        problems.board_error(error)
        return None
    try:
        sensing = parse_sensing_config(document, str(board_file))
        pins, leds = parse_pin_map(document, board_file), parse_led_config(document, board_file)
    except BoardConfigError as error:
        problems.add("", str(error).removeprefix(f"{board_file}: "), file=str(board_file))
        return None
    except BoardFileError as error:
        problems.board_error(error)
        return None
    if not overrides:
        return sensing, pins, leds
    merged = copy.deepcopy(document)
    for table, values in overrides.items():
        merged.setdefault(table, {}).update(values)
    if overrides.get("leds", {}).get("driver") in ("auto", "neopixel_spi") and "pin" not in overrides["leds"]:
        merged["leds"].pop("pin", None)  # these always send on GPIO10: the board file's pin no longer applies
    try:
        sensing = parse_sensing_config(merged, problems.source)
    except BoardConfigError as error:
        problems.add("", str(error).removeprefix(f"{problems.source}: "))
    loaded = []
    for parse, tables in ((parse_pin_map, ("button", "leds")), (parse_led_config, ("leds",))):
        try:
            loaded.append(parse(merged, problems.source))
        except BoardFileError as error:
            overridden = [f"{table}.{key}" for table in tables for key in overrides.get(table, ())]
            if error.key in overridden:
                problems.board_error(error)
            else:  # an override clashes with the rest of the board file
                problem = str(error).removeprefix(f"{error.path}: ")
                problems.add(", ".join(overridden), f"with these settings the board file {board_file} "
                             f"no longer fits: {problem}")
    return (sensing, *loaded) if len(loaded) == 2 else None
