"""The bill of materials: the netlist's parts counted, the parts that carry no net of their own (load
cells, cables, the Pi's supply) added per location or per board, each with a supplier part number
and a unit cost; `hardware/docs/bom.md`.

The catalogue below is the reference build's choice. Prices are single-unit list prices in US dollars
with where each comes from (`price_from`); check the supplier before ordering, and change a line here
(not in bom.md, which is generated) to swap a part. Cable lengths are computed from the board's layout
(`mechanics.qwiic_cable_runs_mm`); the total is the sum of the lines.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from firmware_host.maker.mechanics import qwiic_cable_runs_mm
from firmware_host.maker.netlist import Part
from firmware_host.sensing.geometry import Mechanics
from firmware_host.sensing.stabiliser import CHECKERS_PER_SIDE
from firmware_host.wiring import BoardFacts

LEDS_PER_METRE = 60
UNCHECKED = "supplier's list, not re-checked"


@dataclass(frozen=True)
class Item:
    part: str
    supplier: str
    number: str        # the supplier's part number
    unit_usd: float
    price_from: str = UNCHECKED


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
    "load_cell": {"": Item("Load cell 500 g, straight bar (TAL221)", "SparkFun", "SEN-14728", 10.95,
                           "listings reported in issue 32's review: $10.95-15.50 (the lowest taken)")},
    "bulk_capacitor": {"": Item("Capacitor 10 µF 16 V electrolytic (at each multiplexer, for its cables)", "Panasonic",
                                "ECA-1CM100", 0.20)},
    "hall_carrier": {"": Item("TMAG5273 3D Hall sensor breakout, Qwiic, Mini, 0.5 × 1 in (colour: in a pocket under "
                              "each location's seat; the B1 variant, I2C 0x22, 0.1 µF decoupling on board)", "SparkFun",
                              "SEN-23881", 9.95, "AN ESTIMATE, not a listed price: no listing of SEN-23881 with a price was found "
                              "(searched: SparkFun's hookup guide, library and forum pages give none); $9.95 is "
                              "assumed from the price class of single-chip Qwiic breakouts; check before ordering")},
    "magnet_axial": {"": Item("Disc magnet N35, magnetised axially (through its faces): one in each white checker",
                              "any", "-", 0.15)},
    "magnet_diametric": {"": Item("Disc magnet N35, magnetised diametrically (across): one in each black checker",
                                  "any", "-", 0.30)},
    "overload_stop": {"": Item("Nylon screw M3 × 12 with two nuts (overload stop under a tray's outer end)", "any", "-",
                               0.10)},
    "qwiic_cable": {
        "50": Item("Qwiic cable, 4-pin JST SH, 50 mm", "SparkFun", "PRT-14426", 0.95),
        "100": Item("Qwiic cable, 4-pin JST SH, 100 mm", "SparkFun", "PRT-14427", 1.50),
        "200": Item("Qwiic cable, 4-pin JST SH, 200 mm", "SparkFun", "PRT-14428", 1.50),
        "500": Item("Qwiic cable, 4-pin JST SH, 500 mm", "SparkFun", "PRT-14429", 1.95),
    },
}


def _item(kind: str, value: str) -> Item:
    choices = CATALOGUE[kind]
    return choices.get(value, choices.get(""))


def cable_lengths_mm(runs: list[float]) -> list[int]:
    """The shortest catalogue cable that reaches each run."""
    lengths = sorted(int(length) for length in CATALOGUE["qwiic_cable"])
    if max(runs) > lengths[-1]:
        raise ValueError(f"a {max(runs):.0f} mm cable run is longer than the longest Qwiic cable ({lengths[-1]} mm)")
    return [next(length for length in lengths if length >= run) for run in runs]


def lines(facts: BoardFacts, parts: list[Part], mechanics: Mechanics) -> list[tuple[Item, int, str]]:
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
    locations = facts.sensing.sensors.channels.locations
    found += [(_item("fuse_holder", ""), 1, "for F1"),
              (_item("overload_stop", ""), len(locations), "one under each tray's outer end"),
              *_cables(mechanics, locations, facts.sensing.sensors.mcu.colour_by == "magnet"),
              *_magnets(facts, mechanics),
              (_item("usb_cable", ""), 1 if facts.sensing.sensors.mcu.link == "usb" else 0, "the sensor link"),
              (_item("pi_supply", ""), 1, "the Pi")]
    merged: dict[Item, tuple[int, list[str]]] = {}
    for item, quantity, where in found:
        if quantity:
            total, places = merged.get(item, (0, []))
            merged[item] = (total + quantity, places + [where])
    return [(item, quantity, "; ".join(places)) for item, (quantity, places) in merged.items()]


def _cables(mechanics: Mechanics, locations: tuple[str, ...], colour_sensor: bool) -> list[tuple[Item, int, str]]:
    """A cable from each multiplexer port to its carrier, long enough for its run; with colour by magnet one
    more from each NAU7802 carrier up to the colour sensor's carrier under the seat."""
    runs = Counter(cable_lengths_mm(qwiic_cable_runs_mm(mechanics, locations)))
    found = [(_item("qwiic_cable", str(length)), count, "multiplexer port to carrier") for length, count in
             sorted(runs.items())]
    if colour_sensor:
        rise = mechanics.spacer_mm + mechanics.cell_height_mm + mechanics.spacer_mm
        (length,) = cable_lengths_mm([abs(mechanics.checker_from_load_mm(0)) + rise + 60])
        found.append((_item("qwiic_cable", str(length)), len(locations), "NAU7802 carrier to the colour sensor's"))
    return found


def _magnets(facts: BoardFacts, mechanics: Mechanics) -> list[tuple[Item, int, str]]:
    """A magnet per checker where the board tells colour by magnet: its axis is the checker's colour."""
    if facts.sensing.sensors.mcu.colour_by != "magnet":
        return []
    size = f"{mechanics.magnet_diameter_mm:g} × {mechanics.magnet_thickness_mm:g} mm"
    return [(_item("magnet_axial", ""), CHECKERS_PER_SIDE, f"{size}, at a white checker's mid-height"),
            (_item("magnet_diametric", ""), CHECKERS_PER_SIDE, f"{size}, at a black checker's mid-height")]


def table(facts: BoardFacts, parts: list[Part], mechanics: Mechanics) -> str:
    rows = lines(facts, parts, mechanics)
    total = sum(item.unit_usd * quantity for item, quantity, _ in rows)
    text = [
        "# Bill of materials",
        "",
        f"Generated by `tavli-board maker-docs` from `{facts.board_file.rsplit('/', 1)[-1]}` and the netlist "
        "([netlist.json](netlist.json)); do not edit by hand. Quantities follow the board file (LEDs, sensor "
        "channels, multiplexers, cable runs from the layout); the parts are `firmware_host/maker/bom.py`'s catalogue. "
        "Prices are single-unit list prices in US dollars, each with where it comes from: check them, and the part "
        "numbers, with the supplier before ordering. The total is the sum of the lines.",
        "",
        "| part | supplier | supplier part number | quantity | unit cost | total cost | where | price from |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for item, quantity, where in rows:
        text.append(f"| {item.part} | {item.supplier} | {item.number} | {quantity} | ${item.unit_usd:.2f} | "
                    f"${item.unit_usd * quantity:.2f} | {where} | {item.price_from} |")
    text += [f"| **total** | | | | | **${total:.2f}** | | |", "",
             "Not listed: the board's woodwork (trays, frame, floor: [location.svg](location.svg)), 15 white and 15 "
             "black checkers (weighted as `[sensors.mcu]` says; with colour by magnet, resin ones of `checker_g` each), "
             "hook-up wire, a microSD card for the Pi.", ""]
    return "\n".join(text)
