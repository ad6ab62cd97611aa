"""The `[serial]` and `[sensors]` sections of the board's TOML file (hardware/board.toml).

Other sections belong to other subsystems and are left alone. Inside these two sections every key is
checked: an unknown key, a wrong type or a value out of range is a `BoardConfigError` naming the
file, the key and what is allowed. Keys left out take the defaults documented in board.toml.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from firmware_host.files import InputError, load_toml
from firmware_host.sensing.channels import ChannelMap, ChannelMapError

DEFAULT_BOARD_FILE = Path(__file__).resolve().parents[2] / "hardware" / "board.toml"

# The ranges the MCU firmware accepts in a CONFIGURE command (tavli_mcu.node checks the same ones).
SCAN_HZ_RANGE = (1, 100)
DEBOUNCE_SCANS_RANGE = (1, 10)
SNAPSHOT_INTERVAL_MS_RANGE = (20, 60000)   # or 0: snapshots only on change
HEARTBEAT_MS_RANGE = (50, 5000)


class BoardConfigError(ValueError):
    pass


@dataclass(frozen=True)
class SerialSettings:
    port: str = ""              # a device, or any pyserial URL (socket://host:port, loop://); "" finds the MCU by USB id
    baudrate: int = 115200
    usb_vid: int = 0x2E8A       # Raspberry Pi
    usb_pid: int = 0x0005       # MicroPython on an RP2040
    exclusive: bool = True
    reconnect_min_s: float = 0.25
    reconnect_max_s: float = 5.0
    ack_timeout_ms: int = 300
    command_tries: int = 3


@dataclass(frozen=True)
class McuSettings:
    """The sensor MCU's own hardware (the reference design); rendered into its board_config.py."""

    link: str = "usb"                 # "usb" (USB-CDC) or "uart"
    uart_id: int = 0
    uart_tx_pin: int = 0
    uart_rx_pin: int = 1
    i2c_id: int = 0
    i2c_sda_pin: int = 4
    i2c_scl_pin: int = 5
    i2c_hz: int = 400_000
    mux_addresses: tuple[int, ...] = (0x70, 0x71, 0x72, 0x73)
    # "magnet": count by weight (checker_g each) and the bottom checker's colour from its magnet's axis;
    # "mass": colour by mass (white_checker_g, black_checker_g). hardware/README.md compares the two.
    colour_by: str = "magnet"
    checker_g: float = 22.0
    count_window_g: float = 2.0       # a mass further than this from every count is no reading
    steady_g: float = 0.45            # ... and so is one that wavered more than this over steady_scans scans
    steady_scans: int = 8
    hall_address: int = 0x22          # TMAG5273 (B1, SparkFun's carrier) under each seat, on the location's multiplexer port
    hall_threshold_mt: float = 3.0    # a field weaker than this is no magnet
    white_field_min_mt: float = 9.0   # a white checker's (axial) field on its seat is at least this strong
    black_field_max_mt: float = 7.5   # and a black one's (diametric) at most this: off its seat they could look alike
    maintenance_pin: int = 22         # held to GND at power-up: main.py stays stopped (hardware/README.md)
    white_checker_g: float = 16.0
    black_checker_g: float = 17.0
    mass_tolerance_g: float = 0.35


@dataclass(frozen=True)
class SensorSettings:
    channels: ChannelMap
    mcu: McuSettings = McuSettings()
    scan_hz: int = 40
    debounce_scans: int = 3
    snapshot_interval_ms: int = 1000
    heartbeat_ms: int = 250
    silent_after_heartbeats: int = 4
    quiet_ms: int = 300
    grace_ms: int = 3000
    flicker_changes: int = 6
    flicker_window_ms: int = 1000

    @property
    def silence_timeout_s(self) -> float:
        return self.heartbeat_ms * self.silent_after_heartbeats / 1000


@dataclass(frozen=True)
class SensingConfig:
    serial: SerialSettings
    sensors: SensorSettings
    source: str


def _integer(low: int, high: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            return f"an integer {low}..{high}"
        return None
    return check


def _positive_number(value: Any) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return "a number of seconds > 0"
    return None


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else "a string"


def _snapshot_interval(value: Any) -> str | None:
    low, high = SNAPSHOT_INTERVAL_MS_RANGE
    if value == 0 and not isinstance(value, bool):
        return None
    return _integer(low, high)(value) and f"0 (only on change) or an integer {low}..{high}"


def _choice(*allowed: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in allowed else " or ".join(repr(choice) for choice in allowed)
    return check


def _i2c_addresses(value: Any) -> str | None:
    if (not isinstance(value, list) or not value
            or not all(isinstance(item, int) and 0x70 <= item <= 0x77 for item in value)):
        return "a list of TCA9548A addresses 0x70..0x77"
    return None


def _channel_list(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return "a list of location names, one per MCU channel"
    return None


SERIAL_KEYS: dict[str, Callable[[Any], str | None]] = {
    "port": _string,
    "baudrate": _integer(1200, 4_000_000),
    "usb_vid": _integer(0, 0xFFFF),
    "usb_pid": _integer(0, 0xFFFF),
    "exclusive": _boolean,
    "reconnect_min_s": _positive_number,
    "reconnect_max_s": _positive_number,
    "ack_timeout_ms": _integer(20, 10_000),
    "command_tries": _integer(1, 20),
}
MCU_KEYS: dict[str, Callable[[Any], str | None]] = {
    "link": _choice("usb", "uart"),
    "uart_id": _integer(0, 1),
    "uart_tx_pin": _integer(0, 29),
    "uart_rx_pin": _integer(0, 29),
    "i2c_id": _integer(0, 1),
    "i2c_sda_pin": _integer(0, 29),
    "i2c_scl_pin": _integer(0, 29),
    "i2c_hz": _integer(10_000, 1_000_000),
    "mux_addresses": _i2c_addresses,
    "colour_by": _choice("magnet", "mass"),
    "checker_g": _positive_number,
    "count_window_g": _positive_number,
    "steady_g": _positive_number,
    "steady_scans": _integer(1, 40),
    "hall_address": _integer(0x08, 0x77),
    "hall_threshold_mt": _positive_number,
    "white_field_min_mt": _positive_number,
    "black_field_max_mt": _positive_number,
    "maintenance_pin": _integer(0, 29),
    "white_checker_g": _positive_number,
    "black_checker_g": _positive_number,
    "mass_tolerance_g": _positive_number,
}
SENSOR_KEYS: dict[str, Callable[[Any], str | None]] = {
    "channels": _channel_list,
    "mcu": lambda value: None if isinstance(value, dict) else "a table ([sensors.mcu])",
    "scan_hz": _integer(*SCAN_HZ_RANGE),
    "debounce_scans": _integer(*DEBOUNCE_SCANS_RANGE),
    "snapshot_interval_ms": _snapshot_interval,
    "heartbeat_ms": _integer(*HEARTBEAT_MS_RANGE),
    "silent_after_heartbeats": _integer(2, 100),
    "quiet_ms": _integer(0, 60_000),
    "grace_ms": _integer(0, 600_000),
    "flicker_changes": _integer(2, 1000),
    "flicker_window_ms": _integer(100, 60_000),
}


def load_sensing_config(path: Path | str = DEFAULT_BOARD_FILE) -> SensingConfig:
    try:
        data = load_toml(path)
    except InputError as error:
        raise BoardConfigError(str(error)) from None
    return parse_sensing_config(data, str(path))


def parse_sensing_config(data: dict[str, Any], source: str) -> SensingConfig:
    serial_values = _checked_section(data.get("serial"), "serial", SERIAL_KEYS, source, required=())
    sensor_values = _checked_section(data.get("sensors"), "sensors", SENSOR_KEYS, source, required=("channels",))
    mcu_values = _checked_section(sensor_values.get("mcu"), "sensors.mcu", MCU_KEYS, source, required=())
    if "mux_addresses" in mcu_values:
        mcu_values["mux_addresses"] = tuple(mcu_values["mux_addresses"])
    sensor_values["mcu"] = McuSettings(**mcu_values)
    try:
        sensor_values["channels"] = ChannelMap(tuple(sensor_values["channels"]))
    except ChannelMapError as error:
        raise BoardConfigError(f"{source}: [sensors] channels: {error}") from None
    serial = SerialSettings(**serial_values)
    if serial.reconnect_max_s < serial.reconnect_min_s:
        raise BoardConfigError(f"{source}: [serial] reconnect_max_s ({serial.reconnect_max_s}) "
                               f"is below reconnect_min_s ({serial.reconnect_min_s})")
    sensors = SensorSettings(**sensor_values)
    _check_mcu(sensors, source)
    if sensors.grace_ms < sensors.quiet_ms:
        raise BoardConfigError(f"{source}: [sensors] grace_ms ({sensors.grace_ms}) must not be shorter "
                               f"than quiet_ms ({sensors.quiet_ms})")
    return SensingConfig(serial, sensors, source)


def _check_mcu(sensors: SensorSettings, source: str) -> None:
    mcu = sensors.mcu
    capacity = len(mcu.mux_addresses) * 8
    if sensors.channels.channel_count > capacity:
        raise BoardConfigError(f"{source}: [sensors] channels: {sensors.channels.channel_count} channels, but "
                               f"[sensors.mcu] mux_addresses give {capacity} ports (8 per multiplexer)")
    if mcu.colour_by == "magnet":
        if mcu.count_window_g >= mcu.checker_g / 2:
            raise BoardConfigError(f"{source}: [sensors.mcu] count_window_g ({mcu.count_window_g}) must be under "
                                   f"half of checker_g ({mcu.checker_g}), or two counts would overlap")
        if not mcu.hall_threshold_mt < mcu.black_field_max_mt < mcu.white_field_min_mt:
            raise BoardConfigError(f"{source}: [sensors.mcu] hall_threshold_mt ({mcu.hall_threshold_mt}), "
                                   f"black_field_max_mt ({mcu.black_field_max_mt}) and white_field_min_mt "
                                   f"({mcu.white_field_min_mt}) must rise in that order")
        return
    masses = sorted(white * mcu.white_checker_g + black * mcu.black_checker_g
                    for white in range(16) for black in range(16))
    closest = min(higher - lower for lower, higher in zip(masses, masses[1:]))
    if closest <= 2 * mcu.mass_tolerance_g:
        raise BoardConfigError(
            f"{source}: [sensors.mcu] white_checker_g = {mcu.white_checker_g} and black_checker_g = "
            f"{mcu.black_checker_g}: two layouts of up to 15 checkers a colour differ by only {closest:g} g, "
            f"which must exceed twice mass_tolerance_g ({mcu.mass_tolerance_g}); choose masses in a ratio "
            "such as 16:17 that no two counts up to 15 can match")


def _checked_section(section: Any, name: str, keys: dict[str, Callable[[Any], str | None]],
                     source: str, required: tuple[str, ...]) -> dict[str, Any]:
    if section is None:
        if required:
            raise BoardConfigError(f"{source}: no [{name}] section (it needs at least {', '.join(required)})")
        return {}
    if not isinstance(section, dict):
        raise BoardConfigError(f"{source}: [{name}] must be a table")
    for key, value in section.items():
        check = keys.get(key)
        if check is None:
            raise BoardConfigError(f"{source}: [{name}] unknown key {key!r}; allowed: {', '.join(keys)}")
        problem = check(value)
        if problem:
            raise BoardConfigError(f"{source}: [{name}] {key} = {value!r}: must be {problem}")
    for key in required:
        if key not in section:
            raise BoardConfigError(f"{source}: [{name}] missing key {key!r}")
    return dict(section)
