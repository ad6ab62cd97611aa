"""The pin map: which GPIO pins the dice button, the buzzer and the LED data line use.

Read from the board file's `[button]` and `[buzzer]` tables and the `driver` and `pin` keys of
`[leds]` (the rest of `[leds]` is the LED layout, read by `firmware_host.leds.layout`). Pins of the
button and buzzer are BCM numbers; the LED data pin is a Blinka board pin name such as "D18".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_host.hw.boardfile import BoardFileError, Table, read_board_file

# BCM numbers of the 40-pin header's GPIOs.
_FIRST_BCM, _LAST_BCM = 0, 27

# "auto" (the default) needs no root on any Pi, with the data on GPIO10 either way: SPI0's MOSI
# (neopixel_spi) on a Pi 1-4, the RP1's PIO (neopixel) on a Pi 5. "neopixel_spi" forces SPI;
# "neopixel" drives any pin: through the PIO on a Pi 5, through rpi_ws281x on a Pi 1-4, which needs
# root and is not in the 'pi' extra.
LED_DRIVERS = ("auto", "neopixel", "neopixel_spi")
SPI_MOSI_BCM = 10
_FIXED_PIN = {"auto": SPI_MOSI_BCM, "neopixel_spi": SPI_MOSI_BCM}


@dataclass(frozen=True)
class ButtonConfig:
    """The dice button: a push button from a GPIO pin to ground (or to 3.3 V with pull_up false)."""

    pin: int
    pull_up: bool = True
    debounce_s: float = 0.02
    hold_s: float = 2.0  # a press this long is a hold (referee mode), not a roll
    stuck_s: float = 30.0  # a press this long is a stuck button, reported once


@dataclass(frozen=True)
class BuzzerConfig:
    """An optional active buzzer; with no pin every beep is silently skipped."""

    pin: int | None = None
    active_high: bool = True
    beep_s: float = 0.08


@dataclass(frozen=True)
class LedDataLine:
    """How the LED strip's data line is driven."""

    driver: str  # one of LED_DRIVERS
    pin: str | None  # Blinka board pin name for "neopixel"; None for "auto" and "neopixel_spi" (GPIO10)

    @property
    def bcm(self) -> int | None:
        """The BCM number of the data pin, when the pin name says it (D<n>) or the driver fixes it."""
        if self.driver in _FIXED_PIN:
            return _FIXED_PIN[self.driver]
        match = re.fullmatch(r"D(\d+)", self.pin or "")
        return int(match.group(1)) if match else None

    def on(self, pi5: bool) -> LedDataLine:
        """The line as driven on a Pi 5 (`pi5`) or a Pi 1-4: "auto" becomes a concrete driver."""
        if self.driver != "auto":
            return self
        return LedDataLine("neopixel", f"D{SPI_MOSI_BCM}") if pi5 else LedDataLine("neopixel_spi", None)


@dataclass(frozen=True)
class PinMap:
    button: ButtonConfig
    buzzer: BuzzerConfig
    led_data: LedDataLine


def _milliseconds(table: Table, key: str, default_s: float, *, minimum: int, maximum: int) -> float:
    return table.integer(key, default=round(default_s * 1000), minimum=minimum, maximum=maximum) / 1000


def _read_button(path: Path | str, document: dict) -> ButtonConfig:
    table = Table.of(path, document, "button")
    pin = table.integer("pin", minimum=_FIRST_BCM, maximum=_LAST_BCM)
    pull_up = table.boolean("pull_up", default=ButtonConfig.pull_up)
    debounce_s = _milliseconds(table, "debounce_ms", ButtonConfig.debounce_s, minimum=1, maximum=200)
    hold_s = _milliseconds(table, "hold_ms", ButtonConfig.hold_s, minimum=300, maximum=10_000)
    stuck_s = _milliseconds(table, "stuck_ms", ButtonConfig.stuck_s, minimum=5_000, maximum=600_000)
    table.finish()
    if stuck_s <= hold_s:
        raise table.error("stuck_ms", f"{stuck_s * 1000:.0f} is not longer than hold_ms ({hold_s * 1000:.0f})", "more than hold_ms")
    return ButtonConfig(pin=pin, pull_up=pull_up, debounce_s=debounce_s, hold_s=hold_s, stuck_s=stuck_s)


def _read_buzzer(path: Path | str, document: dict) -> BuzzerConfig:
    table = Table.of(path, document, "buzzer", required=False)
    config = BuzzerConfig(
        pin=table.integer("pin", default=None, minimum=_FIRST_BCM, maximum=_LAST_BCM),
        active_high=table.boolean("active_high", default=BuzzerConfig.active_high),
        beep_s=_milliseconds(table, "beep_ms", BuzzerConfig.beep_s, minimum=10, maximum=2_000),
    )
    table.finish()
    return config


def read_led_data_line(table: Table) -> LedDataLine:
    """The `driver` and `pin` keys of the `[leds]` table, which the LED layout loader shares."""
    driver = table.choice("driver", LED_DRIVERS, default="auto")
    if driver in _FIXED_PIN:
        if "pin" in table.data:
            raise table.error("pin", f"driver {driver!r} always sends on GPIO10 (SPI0 MOSI)", "no pin key")
        return LedDataLine(driver, None)
    return LedDataLine(driver, table.string("pin"))


def load_pin_map(path: Path | str) -> PinMap:
    """Read and check the pin map of the board file at `path`; a pin used twice is an error."""
    return parse_pin_map(read_board_file(path), Path(path))


def parse_pin_map(document: dict[str, Any], path: Path | str) -> PinMap:
    """The pin map of a parsed board file; errors name `path` (the file it came from, or the one
    whose settings were merged into it)."""
    button = _read_button(path, document)
    buzzer = _read_buzzer(path, document)
    # [leds] is only partly read here; its other keys are the layout's, checked by its loader.
    led_data = read_led_data_line(Table.of(path, document, "leds"))
    users = {"button.pin": button.pin, "buzzer.pin": buzzer.pin, "leds.pin": led_data.bcm}
    seen: dict[int, str] = {}
    for key, pin in users.items():
        if pin is None:
            continue
        if pin in seen:
            raise BoardFileError(path, key, f"BCM {pin} is already used by {seen[pin]}", "a free GPIO")
        seen[pin] = key
    return PinMap(button=button, buzzer=buzzer, led_data=led_data)
