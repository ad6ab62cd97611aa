"""The bill of materials: the netlist's parts counted, the parts that carry no net of their own (load
cells, cables, the Pi's supply) added per location or per board, each with a supplier part number
and a unit cost; `hardware/docs/bom.md`.

The catalogue below is the reference build's choice. Prices are approximate single-unit list prices
in US dollars; check the supplier before ordering, and change a line here (not in bom.md, which is
generated) to swap a part.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from firmware_host.maker.netlist import Part
from firmware_host.sensing.stabiliser import CHECKERS_PER_SIDE
from firmware_host.wiring import BoardFacts

LEDS_PER_METRE = 60


@dataclass(frozen=True)
class Item:
    part: str
    supplier: str
    number: str        # the supplier's part number
    unit_usd: float


# kind (netlist.Part.kind, or an extra below) -> value (or "" for any) -> what to buy
CATALOGUE: dict[str, dict[str, Item]] = {
    "pi_header": {"": Item("Raspberry Pi 4 Model B, 2 GB (a Pi 3 B+ or Pi 5 works the same)", "Adafruit", "4292", 45.00)},
    "pi_supply": {"": Item("Raspberry Pi USB-C power supply 5.1 V 3 A (the Pi's own)", "Adafruit", "4298", 8.00)},
    "button": {"": Item("Momentary push button, 16 mm panel mount", "Adafruit", "1445", 1.95)},
    "resistor": {
        "330 Ω": Item("Resistor 330 Ω 1/4 W 5 % (LED data series)", "Yageo", "CFR-25JB-52-330R", 0.10),
        "1 kΩ": Item("Resistor 1 kΩ 1/4 W 5 % (buzzer transistor base)", "Yageo", "CFR-25JB-52-1K", 0.10),
        "4.7 kΩ": Item("Resistor 4.7 kΩ 1/4 W 5 % (I2C pull-ups: the Pico's bus and every multiplexer port)",
                       "Yageo", "CFR-25JB-52-4K7", 0.10),
        "10 kΩ": Item("Resistor 10 kΩ 1/4 W 5 % (buzzer transistor base pull-down)", "Yageo", "CFR-25JB-52-10K", 0.10),
    },
    "npn": {"": Item("NPN transistor 2N3904, TO-92 (buzzer driver)", "onsemi", "2N3904BU", 0.20)},
    "diode": {"": Item("Diode 1N4148 (flyback across the buzzer)", "onsemi", "1N4148", 0.10)},
    "buzzer": {"": Item("Active buzzer 5 V", "Adafruit", "1536", 0.95)},
    "buzzer_module": {"": Item("Active-low buzzer module", "any", "-", 1.50)},
    "level_shifter": {"": Item("74AHCT125 quad level shifter, DIP-14", "Adafruit", "1787", 1.50)},
    "supply": {"": Item("5 V 4 A switching supply for the LEDs", "Adafruit", "1466", 14.95)},
    "fuse": {"": Item("Fuse 5 × 20 mm, 3 A slow-blow (LED supply)", "Littelfuse", "0215003.MXP", 0.50)},
    "fuse_holder": {"": Item("Fuse holder 5 × 20 mm, panel mount", "Schurter", "0031.8201", 2.50)},
    "capacitor": {"": Item("Electrolytic capacitor 1000 µF 10 V (at the strip's input)", "Panasonic", "EEU-FR1A102", 0.60)},
    "led_strip": {"": Item("NeoPixel (WS2812B) strip, 60 LEDs/m, 1 m", "Adafruit", "1138", 24.95)},
    "pico": {"": Item("Raspberry Pi Pico (RP2040), the sensor MCU", "Raspberry Pi", "SC0915", 4.00)},
    "usb_cable": {"": Item("USB A to micro-B cable (Pi to Pico)", "Adafruit", "592", 2.95)},
    "mux": {"": Item("TCA9548A 1-to-8 I2C multiplexer breakout", "Adafruit", "2717", 6.95)},
    "carrier": {"": Item("Location sensor carrier: NAU7802 24-bit ADC breakout, STEMMA QT/Qwiic (reference design)",
                         "Adafruit", "4538", 5.95)},
    "load_cell": {"": Item("Load cell 500 g, straight bar (TAL221)", "SparkFun", "SEN-14728", 6.95)},
    "hall_sensor": {"": Item("TMAG5273A1 3D Hall sensor, SOT-23-6 (colour by magnet: beside the NAU7802 on each "
                             "carrier, I2C 0x35, with a 0.1 µF decoupling capacitor)", "Texas Instruments",
                             "TMAG5273A1QDBVR", 1.10)},
    "checker_magnet": {"": Item("Disc magnet 6 × 1 mm N35 (colour by magnet: one in every checker, north up in "
                                "white, south up in black)", "any", "-", 0.15)},
    "qwiic_cable": {"": Item("Qwiic cable, 4-pin JST SH, 200 mm (multiplexer port to carrier)", "SparkFun",
                             "PRT-14428", 1.50)},
}


def _item(kind: str, value: str) -> Item:
    choices = CATALOGUE[kind]
    return choices.get(value, choices.get(""))


def lines(facts: BoardFacts, parts: list[Part]) -> list[tuple[Item, int, str]]:
    """(item, quantity, where it goes) for everything to buy, in the order of the build."""
    counted = Counter((part.kind, part.value if part.kind == "resistor" else "") for part in parts)
    refs: dict[tuple[str, str], list[str]] = {}
    for part in parts:
        refs.setdefault((part.kind, part.value if part.kind == "resistor" else ""), []).append(part.ref)
    found = []
    for (kind, value), quantity in counted.items():
        if kind == "led_strip":
            quantity = math.ceil(facts.leds.layout.count / LEDS_PER_METRE)
            where = f"{facts.leds.layout.count} LEDs, cut to the layout"
        else:
            names = refs[(kind, value)]
            where = ", ".join(names) if len(names) <= 4 else f"{names[0]} .. {names[-1]}"
        found.append((_item(kind, value), quantity, where))
    channels = len(facts.sensing.sensors.channels.locations)
    found += [(_item("fuse_holder", ""), 1, "for F1"),
              (_item("load_cell", ""), channels, "one under each location's tray"),
              (_item("qwiic_cable", ""), channels, "one per carrier"),
              *_colour_by_magnet(facts, channels),
              (_item("usb_cable", ""), 1 if facts.sensing.sensors.mcu.link == "usb" else 0, "the sensor link"),
              (_item("pi_supply", ""), 1, "the Pi")]
    return [line for line in found if line[1]]


def _colour_by_magnet(facts: BoardFacts, channels: int) -> list[tuple[Item, int, str]]:
    """A Hall sensor per location and a magnet per checker where the board tells colour by magnet."""
    if facts.sensing.sensors.mcu.colour_by != "magnet":
        return []
    return [(_item("hall_sensor", ""), channels, "one on each location's carrier"),
            (_item("checker_magnet", ""), 2 * CHECKERS_PER_SIDE, "one in each checker")]


def table(facts: BoardFacts, parts: list[Part]) -> str:
    rows = lines(facts, parts)
    total = sum(item.unit_usd * quantity for item, quantity, _ in rows)
    text = [
        "# Bill of materials",
        "",
        f"Generated by `tavli-board maker-docs` from `{facts.board_file.rsplit('/', 1)[-1]}` and the netlist "
        "([netlist.json](netlist.json)); do not edit by hand. Quantities follow the board file (LEDs, sensor "
        "channels, multiplexers); the parts are `firmware_host/maker/bom.py`'s catalogue. Prices are approximate "
        "single-unit list prices in US dollars: check them, and the part numbers, with the supplier before ordering.",
        "",
        "| part | supplier | supplier part number | quantity | unit cost | total cost | where |",
        "|---|---|---|---|---|---|---|",
    ]
    for item, quantity, where in rows:
        text.append(f"| {item.part} | {item.supplier} | {item.number} | {quantity} | ${item.unit_usd:.2f} | "
                    f"${item.unit_usd * quantity:.2f} | {where} |")
    text += [f"| **total** | | | | | **${total:.2f}** | |", "",
             "Not listed: the board's woodwork (trays, frame, floor: [location.svg](location.svg)), 15 white and 15 "
             "black checkers (weighted as `[sensors.mcu]` says; with colour by magnet, resin ones of `checker_g` each), "
             "hook-up wire, a microSD card for the Pi.", ""]
    return "\n".join(text)
