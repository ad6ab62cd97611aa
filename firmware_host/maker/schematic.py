"""The schematic, drawn from the netlist: `hardware/docs/schematic.svg`.

Net-label style: every part is a block with its pins, and each pin carries the name of its net;
pins with the same net name are connected. The Pi side comes first, then the sensor side; a
location carrier's own pull-up pair is drawn inside its block.
"""
from __future__ import annotations

from firmware_host.maker.netlist import GND, QWIIC_PINS, Part
from firmware_host.wiring import Svg

PI_SIDE = ("pi_header", "button", "npn", "buzzer", "buzzer_module", "diode", "level_shifter", "supply", "fuse",
           "capacitor", "led_strip")
COLUMN_WIDTH, ROW_HEIGHT, PAGE_HEIGHT = 250, 14, 1500
FILLS = {"pi_header": "#e8f5e9", "pico": "#e3f2fd", "mux": "#fff8e1", "carrier": "#fffde7", "level_shifter": "#ede7f6",
         "led_strip": "#ede7f6", "supply": "#ffebee", "fuse": "#ffebee", "capacitor": "#ffebee"}
KIND_NAMES = {"pi_header": "Raspberry Pi", "pico": "Raspberry Pi Pico", "mux": "TCA9548A", "carrier": "Qwiic sensor carrier",
              "resistor": "", "npn": "NPN", "diode": "diode", "buzzer": "buzzer", "buzzer_module": "buzzer module",
              "level_shifter": "", "supply": "supply", "fuse": "fuse", "capacitor": "", "led_strip": "LED strip",
              "button": "", "load_cell": "load cell", "hall_carrier": "TMAG5273",
              "bulk_capacitor": ""}


def _pin_order(pin: str) -> tuple[int, str]:
    digits = "".join(character for character in pin if character.isdigit())
    return (int(digits) if digits and pin.isdigit() else 1000 + (int(digits) if digits else 0), pin)


def _carrier_resistors(parts: list[Part]) -> dict[str, list[Part]]:
    """carrier ref -> the pull-up resistors on its bus, which are drawn inside it."""
    carriers = {net: part.ref for part in parts if part.kind == "carrier"
                for net in part.pins.values() if net.startswith(("SDA_", "SCL_"))}
    owned: dict[str, list[Part]] = {}
    for part in parts:
        if part.kind == "resistor":
            carrier = next((carriers[net] for net in part.pins.values() if net in carriers), None)
            if carrier:
                owned.setdefault(carrier, []).append(part)
    return owned


def _block_lines(part: Part, resistors: list[Part]) -> list[str]:
    """A part's block: each pin and its net, then the pull-up resistors on its board."""
    names = QWIIC_PINS if part.kind in ("carrier", "hall_carrier") else {}
    lines = [f"{pin}{' ' + names[pin] if pin in names else ''}: {net}"
             for pin, net in sorted(part.pins.items(), key=lambda item: _pin_order(item[0]))]
    for resistor in resistors:
        signal = next(net for net in resistor.pins.values() if net.startswith(("SDA_", "SCL_")))
        lines.append(f"{resistor.ref} {resistor.value}: {signal.split('_')[0]} to 3V3")
    return lines


def _flowed(blocks: list[tuple[Part, list[str]]], first_sensor: str | None) -> tuple[list[tuple], int]:
    """The blocks flowed into columns, the sensor side starting a new column: each block's (x, y,
    part, lines, height), and the page's width."""
    placed, x, y = [], 20, 70
    for part, lines in blocks:
        height = 26 + ROW_HEIGHT * len(lines)
        if y + height > PAGE_HEIGHT - 20 or part.ref == first_sensor:
            x, y = x + COLUMN_WIDTH, 70
        placed.append((x, y, part, lines, height))
        y += height + 12
    return placed, x + COLUMN_WIDTH


def drawing(parts: list[Part], title: str) -> str:
    owned = _carrier_resistors(parts)
    inside = {resistor.ref for resistors in owned.values() for resistor in resistors}
    pi_side = [part for part in parts if part.kind in PI_SIDE or
               (part.kind == "resistor" and part.ref not in inside and not set(part.pins.values()) & {"SDA", "SCL"})]
    sensor_side = [part for part in parts if part not in pi_side and part.ref not in inside]
    blocks = [(part, _block_lines(part, owned.get(part.ref, []))) for part in pi_side + sensor_side]
    placed, width = _flowed(blocks, sensor_side[0].ref if sensor_side else None)
    svg = Svg(width, PAGE_HEIGHT)
    svg.text(20, 28, title, size=16, bold=True)
    svg.text(20, 50, "Pins with the same net name are connected. Generated from netlist.json; do not edit by hand.",
             size=12)
    for x, y, part, lines, height in placed:
        kind = KIND_NAMES.get(part.kind, part.kind)
        svg.items.append(f'<rect x="{x}" y="{y}" width="{COLUMN_WIDTH - 20}" height="{height}" rx="4" '
                         f'fill="{FILLS.get(part.kind, "#f4f4f4")}" stroke="#333"/>')
        svg.text(x + 8, y + 17, f"{part.ref}  {kind} {part.value}".replace("  ", " ", 1).strip(), size=12, bold=True)
        for row, line in enumerate(lines):
            net = line.split(": ", 1)[-1]
            colour = "#212121" if net == GND else "#1f5fbf"
            svg.line(x, y + 31 + ROW_HEIGHT * row, x - 8, y + 31 + ROW_HEIGHT * row, colour=colour)
            svg.text(x + 8, y + 35 + ROW_HEIGHT * row, line, size=11)
    return svg.render()
