"""The reference build's wiring, generated from the board file: a pin table (Markdown) and a diagram (SVG).

`tavli-board wiring` writes docs/wiring/pins.md and docs/wiring/wiring.svg from hardware/board.toml;
`--check` compares instead of writing (a test does the same), so the committed docs never drift
from the board file. Everything pin-specific comes from the board file through its loaders (pin
map, LED layout, sensing); what is fixed by the parts themselves (the Pi's 40-pin header, the
Pico's pinout, the 74AHCT125's pins) and the power sizing rules are here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from pathlib import Path

from firmware_host.hw.pinmap import PinMap, load_pin_map
from firmware_host.leds.layout import LedConfig, load_led_config
from firmware_host.leds.render import MA_PER_LED_FULL_WHITE, MA_PER_LED_IDLE
from firmware_host.sensing.config import DEFAULT_BOARD_FILE, SensingConfig, load_sensing_config

DOCS_DIR = Path(__file__).resolve().parents[1] / "docs" / "wiring"
PIN_TABLE, DIAGRAM = "pins.md", "wiring.svg"

# The Pi's 40-pin header: BCM number -> physical pin.
PI_HEADER = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31, 13: 33,
             19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32,
             16: 36, 20: 38, 21: 40}
PI_GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
# The Pico's GPn -> physical pin: grounds at pins 3, 8, 13 ... (every fifth pin from 3) sit between
# the GPIOs, so GP0 is pin 1, GP2 pin 4, GP4 pin 6; GP26-28 come after RUN (pin 30).
PICO_PINS = {**{gp: gp + 1 + (gp + 2) // 4 for gp in range(0, 23)}, 26: 31, 27: 32, 28: 34}
PICO_3V3_OUT, PICO_GND = 36, 38
FUSE_RATINGS_A = (1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 15, 20, 25, 30)
SUPPLY_RATINGS_A = (2, 3, 4, 5, 6, 8, 10, 12.5, 15, 20, 25, 30, 40)
# The renderer caps the strip's whole draw (idle current included) at leds.max_current_ma. A fuse
# carries at most about two thirds of its rating for hours without ageing, and the supply is rated
# above the fuse, so a fault blows the fuse instead of browning out the supply.
FUSE_MARGIN = 1.5
BUZZER_DRIVER = ("NPN transistor (2N3904 or BC337): base through 1 kΩ from the pin, 10 kΩ base to GND, "
                 "emitter to GND, collector to the buzzer's −; buzzer + to +5 V; 1N4148 across the buzzer "
                 "(cathode to +5 V)")
CAPACITOR = "1000 µF, 10 V electrolytic"
SERIES_RESISTOR = "330 Ω"


@dataclass(frozen=True)
class BoardFacts:
    board_file: str
    pins: PinMap
    leds: LedConfig
    sensing: SensingConfig

    @classmethod
    def load(cls, board_file: Path) -> BoardFacts:
        return cls(str(board_file), load_pin_map(board_file), load_led_config(board_file),
                   load_sensing_config(board_file))

    @property
    def fuse_a(self) -> float:
        needed = self.leds.max_current_ma / 1000 * FUSE_MARGIN
        return next((rating for rating in FUSE_RATINGS_A if rating >= needed), math.ceil(needed))

    @property
    def supply_a(self) -> float:
        """The LED supply's rating: the next size above the fuse."""
        return next((rating for rating in SUPPLY_RATINGS_A if rating > self.fuse_a), math.ceil(self.fuse_a * 1.25))

    @property
    def idle_a(self) -> float:
        return self.leds.layout.count * MA_PER_LED_IDLE / 1000

    @property
    def full_white_a(self) -> float:
        return round(self.leds.layout.count * (MA_PER_LED_FULL_WHITE + MA_PER_LED_IDLE) / 1000, 3)


def _pi(bcm: int) -> str:
    return f"pin {PI_HEADER[bcm]} (GPIO{bcm})"


def _pico(gp: int) -> str:
    return f"pin {PICO_PINS[gp]} (GP{gp})"


def _amps(value: float) -> str:
    return f"{value:g} A"


def pi_rows(facts: BoardFacts) -> list[tuple[str, str, str, str]]:
    """(Pi header pin, signal, goes to, board file key) for every Pi pin the build uses."""
    button, buzzer, led = facts.pins.button, facts.pins.buzzer, facts.pins.led_data
    rows = [(_pi(button.pin), "dice button", "push button, other leg to " +
             ("GND (pin 9)" if button.pull_up else "3V3 (pin 1)"), "button.pin, button.pull_up")]
    if buzzer.pin is not None:
        rows.append((_pi(buzzer.pin), "buzzer", "5 V active buzzer through an " + BUZZER_DRIVER if buzzer.active_high
                     else "the enable input of an active-low buzzer module (its own driver, 3.3 V logic)",
                     "buzzer.pin, buzzer.active_high"))
    data_key = {"auto": "leds.driver \"auto\": SPI0 MOSI on a Pi 1-4, the PIO on a Pi 5 (no root either way)",
                "neopixel_spi": "leds.driver \"neopixel_spi\" (SPI0 MOSI)",
                "neopixel": "leds.pin (root on a Pi 1-4)"}[led.driver]
    rows.append((_pi(led.bcm), "LED data (3.3 V)", "74AHCT125 pin 2 (1A)", data_key))
    mcu = facts.sensing.sensors.mcu
    if mcu.link == "uart":
        rows += [(_pi(14), "UART TXD", f"Pico {_pico(mcu.uart_rx_pin)} (UART RX)", "sensors.mcu.uart_rx_pin"),
                 (_pi(15), "UART RXD", f"Pico {_pico(mcu.uart_tx_pin)} (UART TX)", "sensors.mcu.uart_tx_pin")]
    else:
        serial = facts.sensing.serial
        rows.append(("USB port", "sensor link", f"Pico micro-USB (USB {serial.usb_vid:04x}:{serial.usb_pid:04x}, "
                                                "/dev/tavli-sensors by the udev rule); powers the Pico",
                     "sensors.mcu.link, serial.usb_vid, serial.usb_pid"))
    rows.append(("pin 6 (GND)", "common ground", "LED supply −, 74AHCT125 pin 7" +
                 (", Pico GND" if mcu.link == "uart" else ""), ""))
    return rows


def mcu_rows(facts: BoardFacts) -> list[tuple[str, str, str, str]]:
    mcu = facts.sensing.sensors.mcu
    muxes = ", ".join(f"0x{address:02X}" for address in mcu.mux_addresses)
    return [
        (_pico(mcu.i2c_sda_pin), f"I2C{mcu.i2c_id} SDA", f"SDA of every TCA9548A ({muxes})", "sensors.mcu.i2c_sda_pin"),
        (_pico(mcu.i2c_scl_pin), f"I2C{mcu.i2c_id} SCL", f"SCL of every TCA9548A, {mcu.i2c_hz // 1000} kHz",
         "sensors.mcu.i2c_scl_pin, i2c_hz"),
        (f"pin {PICO_3V3_OUT} (3V3 OUT)", "3.3 V", "TCA9548A VIN, every location's sensor carrier; 4.7 kΩ pull-ups on "
                                                    "SDA and SCL", ""),
        (f"pin {PICO_GND} (GND)", "ground", "TCA9548A GND, every location's sensor carrier", ""),
    ]


def channel_rows(facts: BoardFacts) -> list[tuple[str, str, str]]:
    """(channel, multiplexer and port, location) for every sensor channel."""
    mcu = facts.sensing.sensors.mcu
    return [(str(channel), f"0x{mcu.mux_addresses[channel // 8]:02X} port {channel % 8}", location)
            for channel, location in enumerate(facts.sensing.sensors.channels.locations)]


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def pin_table(facts: BoardFacts) -> str:
    leds, mcu = facts.leds, facts.sensing.sensors.mcu
    lines = [
        "# Wiring of the reference build",
        "",
        f"Generated by `tavli-board wiring` from `{Path(facts.board_file).name}`; do not edit by hand (a test "
        "compares this file with what the board file generates). The diagram is [wiring.svg](wiring.svg).",
        "",
        "## Raspberry Pi",
        "",
        *_table(("Pi", "signal", "goes to", "board file key"), pi_rows(facts)),
        "",
        f"## Sensor MCU (Raspberry Pi Pico, link over {mcu.link.upper()})",
        "",
        *_table(("Pico", "signal", "goes to", "board file key"), mcu_rows(facts)),
        "",
        "Each multiplexer port goes to one location's sensor carrier over a 4-pin Qwiic cable (GND, 3.3 V, SDA, "
        "SCL). A TCA9548A port is a separate bus with no pull-ups of its own: each port needs a 4.7 kΩ pair to "
        f"3.3 V (on the carrier), {len(facts.sensing.sensors.channels.locations) + 1} pairs in all with the Pico's:",
        "",
        *_table(("channel", "multiplexer port", "location"), channel_rows(facts)),
        "",
        "## LED strip and its power",
        "",
        f"- Strip: {leds.layout.count} WS2812 LEDs, {leds.pixel_order} order, data in at LED 0.",
        "- Level shifter 74AHCT125 (the Pi's 3.3 V data up to the strip's 5 V): pin 14 (VCC) to +5 V, pin 7 "
        f"to GND, pin 1 (1OE) to GND, pin 2 (1A) from the Pi's {_pi(facts.pins.led_data.bcm)}, pin 3 (1Y) "
        f"through {SERIES_RESISTOR} to the strip's DIN.",
        f"- Current: the renderer caps the strip's whole draw at {leds.max_current_ma:g} mA (`leds.max_current_ma`), "
        f"the {_amps(facts.idle_a)} its {leds.layout.count} LEDs draw when dark (1 mA each) included; all of them at "
        f"full white would draw {_amps(facts.full_white_a)}.",
        f"- Fuse {_amps(facts.fuse_a)} (slow) in the +5 V line between the supply and the strip "
        f"({FUSE_MARGIN:g} × the cap, next standard rating).",
        f"- 5 V supply for the strip rated {_amps(facts.supply_a)} (above the fuse, so a fault blows the fuse).",
        f"- Capacitor {CAPACITOR} across +5 V and GND at the strip's input.",
        "- The strip's GND, the level shifter's GND and the Pi's GND are joined; the Pi has its own supply.",
        "",
    ]
    return "\n".join(lines)


# -- the diagram ---------------------------------------------------------------------------------


class Svg:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.items: list[str] = []

    def box(self, x: int, y: int, w: int, h: int, title: str, lines: list[str] = (), fill: str = "#f4f4f4") -> None:
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" stroke="#333"/>')
        self.text(x + 8, y + 18, title, bold=True)
        for number, line in enumerate(lines):
            self.text(x + 8, y + 36 + 15 * number, line, size=11)

    def text(self, x: float, y: float, text: str, size: int = 13, bold: bool = False, anchor: str = "start") -> None:
        weight = ' font-weight="bold"' if bold else ""
        self.items.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}"{weight} text-anchor="{anchor}">{escape(text)}</text>')

    def wire(self, points: list[tuple[int, int]], label: str = "", colour: str = "#1f5fbf") -> None:
        path = " ".join(f"{x},{y}" for x, y in points)
        self.items.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        if label:   # over the last segment, the one that reaches the part
            (x1, y1), (x2, y2) = points[-2], points[-1]
            self.text((x1 + x2) // 2, (y1 + y2) // 2 - 5, label, size=10, anchor="middle")

    def rect(self, x: float, y: float, w: float, h: float, fill: str = "none", stroke: str = "#333") -> None:
        self.items.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" stroke="{stroke}"/>')

    def circle(self, x: float, y: float, r: float, fill: str = "none", stroke: str = "#333") -> None:
        self.items.append(f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" stroke="{stroke}"/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = "#333", dashed: bool = False) -> None:
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        self.items.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}"{dash}/>')

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="sans-serif">')
        background = f'<rect width="{self.width}" height="{self.height}" fill="white"/>'
        return "\n".join([head, background, *self.items, "</svg>", ""])


def diagram(facts: BoardFacts) -> str:
    svg = Svg(1060, 720)
    pins, leds, mcu = facts.pins, facts.leds, facts.sensing.sensors.mcu
    svg.text(530, 28, "tavli-board reference wiring (generated from the board file)", size=16, bold=True,
             anchor="middle")
    pi_lines = [f"{row[0]}: {row[1]}" for row in pi_rows(facts)]
    pi_bottom = 60 + 40 + 15 * len(pi_lines)
    svg.box(30, 60, 300, pi_bottom - 60, "Raspberry Pi", pi_lines, "#e8f5e9")
    svg.box(30, 470, 300, 110, "Sensor MCU: Raspberry Pi Pico", [f"{row[0]}: {row[1]}" for row in mcu_rows(facts)],
            "#e3f2fd")
    # the link
    link = "USB cable (powers the Pico)" if mcu.link == "usb" else \
        f"UART: Pi TXD → {_pico(mcu.uart_rx_pin)}, Pi RXD ← {_pico(mcu.uart_tx_pin)}, GND"
    svg.wire([(180, pi_bottom), (180, 470)], colour="#555")
    svg.text(190, 440, link, size=11)
    # multiplexers and sensors
    channels = facts.sensing.sensors.channels.locations
    for number, address in enumerate(mcu.mux_addresses):
        served = [location for location in channels[number * 8:number * 8 + 8]]
        x = 380 + number * 165
        first, last = (served[0], served[-1]) if served else ("-", "-")
        svg.box(x, 540, 150, 70, f"TCA9548A 0x{address:02X}", [f"ports 0-{max(len(served) - 1, 0)}",
                                                               f"{first} .. {last}"], "#fff8e1")
        svg.wire([(330, 505), (x + 75, 505), (x + 75, 540)], colour="#8d6e00")
        svg.wire([(x + 75, 610), (x + 75, 640)], colour="#8d6e00")
    svg.text(380, 495, f"I2C{mcu.i2c_id}: SDA {_pico(mcu.i2c_sda_pin)}, SCL {_pico(mcu.i2c_scl_pin)}, 3.3 V, GND",
             size=11)
    svg.box(380, 640, 645, 45, f"{len(channels)} location sensor carriers, one per multiplexer port (4.7 kΩ pull-up pair each)", [
        "see the channel table in pins.md"], "#fffde7")
    # button and buzzer
    button_y = 70
    svg.box(420, button_y, 170, 50, "Dice button", ["to GND" if pins.button.pull_up else "to 3V3"], "#fce4ec")
    svg.wire([(330, button_y + 25), (420, button_y + 25)], _pi(pins.button.pin))
    if pins.buzzer.pin is not None:
        svg.box(420, 140, 170, 50, "Active buzzer (5 V)", ["NPN low-side, 1N4148 flyback"], "#fce4ec")
        svg.wire([(330, 165), (420, 165)], _pi(pins.buzzer.pin))
    # LEDs and power
    shifter_y = 230
    svg.box(420, shifter_y, 170, 95, "74AHCT125", ["1A pin 2 ← Pi data", f"1Y pin 3 → {SERIES_RESISTOR} → DIN",
                                                   "1OE pin 1, GND pin 7: GND", "VCC pin 14: +5 V"], "#ede7f6")
    # down from the Pi's edge, below the button and buzzer wires, then across to the shifter's input
    svg.wire([(280, pi_bottom), (280, shifter_y + 40), (420, shifter_y + 40)], _pi(pins.led_data.bcm))
    svg.box(760, shifter_y, 270, 80, "LED strip (WS2812)", [f"{leds.layout.count} LEDs, {leds.pixel_order}",
                                                             f"capped at {leds.max_current_ma:g} mA",
                                                             f"full white: {_amps(facts.full_white_a)}"], "#ede7f6")
    svg.wire([(590, shifter_y + 40), (760, shifter_y + 40)], f"DIN via {SERIES_RESISTOR}", colour="#6a1b9a")
    svg.box(760, 70, 270, 60, "5 V supply for the LEDs", [f"rated {_amps(facts.supply_a)}"], "#ffebee")
    svg.wire([(790, 130), (790, shifter_y)], colour="#c62828")
    svg.text(800, 160, f"+5 V through a {_amps(facts.fuse_a)} slow fuse", size=11)
    svg.text(800, 180, f"{CAPACITOR}", size=11)
    svg.text(800, 195, "across +5 V and GND at the strip", size=11)
    svg.wire([(1010, 130), (1010, shifter_y)], colour="#212121")
    svg.text(1000, 215, "GND", size=11, anchor="end")
    svg.wire([(760, 115), (700, 115), (700, 210), (505, 210), (505, shifter_y)], colour="#c62828")
    svg.text(600, 205, "+5 V to the level shifter", size=10, anchor="middle")
    svg.wire([(1010, shifter_y + 80), (1010, 380), (180, 380), (180, pi_bottom)], colour="#212121")
    svg.text(570, 375, "common GND: strip, level shifter, Pi pin 6", size=10, anchor="middle")
    return svg.render()


def generate(board_file: Path = DEFAULT_BOARD_FILE) -> dict[str, str]:
    """File name -> contents of the wiring docs for the board file."""
    facts = BoardFacts.load(board_file)
    return {PIN_TABLE: pin_table(facts), DIAGRAM: diagram(facts)}


def stale_in(folder: Path, files: dict[str, str]) -> list[str]:
    """The files (name -> contents) that differ from, or are missing in, `folder`."""
    return [name for name, text in files.items()
            if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text]


def write_into(folder: Path, files: dict[str, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def stale_files(folder: Path, board_file: Path = DEFAULT_BOARD_FILE) -> list[str]:
    """The wiring docs in `folder` that differ from (or are missing from) what `board_file` generates."""
    return stale_in(folder, generate(board_file))


def write(folder: Path, board_file: Path = DEFAULT_BOARD_FILE) -> list[Path]:
    return write_into(folder, generate(board_file))
