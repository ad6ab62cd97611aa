"""The reference build's netlist, from the board file: every part, its pins, and the net on each pin.

The Pi side: the 40-pin header, the dice button, the buzzer's NPN driver (base resistor and
pull-down, a flyback diode across the buzzer), the 74AHCT125 level shifter with its unused gates
tied off, the series resistor, the LED supply's fuse and capacitor, the strip. The sensor side: the
Pico, its bus's pull-up pair, the TCA9548A multiplexers with their address straps, and per sensor
channel one location's sensor carrier (a NAU7802 breakout, its load cell's four wires on its bridge
pads) on a 4-pin Qwiic cable (GND, 3.3 V, SDA, SCL) with the pull-up pair that multiplexer port needs
(a TCA9548A port has none), and with colour by magnet the colour sensor's carrier (a TMAG5273 breakout,
its address in the part's value) on the same port. Every breakout carries its own 0.1 µF decoupling;
each multiplexer has a 10 µF bulk capacitor for the cables it feeds.

A net is named by what it carries (BUTTON, LED_DATA_3V3, SDA_POINT_7, +5V_LED ...); `nets()` turns the
parts' pins into net -> [(part, pin)]. The schematic and the BOM are drawn from this.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from firmware_host.wiring import PI_HEADER, PICO_3V3_OUT, PICO_GND, PICO_PINS, BoardFacts

GND, PI_5V, PI_3V3, LED_5V, SUPPLY_5V, SENSOR_3V3 = "GND", "+5V_PI", "+3V3_PI", "+5V_LED", "+5V_SUPPLY", "+3V3_SENSORS"
PULL_UP_OHMS = 4700
QWIIC_PINS = {"1": "GND", "2": "3V3", "3": "SDA", "4": "SCL"}   # JST SH 4-pin, the Qwiic order


@dataclass(frozen=True)
class Part:
    ref: str
    kind: str          # a key of bom.CATALOGUE
    value: str         # what it is here ("4.7 kΩ", "point:7", "0x71")
    pins: dict[str, str] = field(default_factory=dict)   # pin -> net


def location_net(location: str) -> str:
    """"point:7" -> "POINT_7"."""
    return location.upper().replace(":", "_")


class _Parts:
    def __init__(self):
        self.parts: list[Part] = []
        self._counts: dict[str, int] = {}

    def add(self, prefix: str, kind: str, value: str, pins: dict[str, str]) -> Part:
        self._counts[prefix] = self._counts.get(prefix, 0) + 1
        part = Part(f"{prefix}{self._counts[prefix]}", kind, value, pins)
        self.parts.append(part)
        return part

    def resistor(self, ohms: int, one: str, two: str) -> Part:
        value = f"{ohms / 1000:g} kΩ" if ohms >= 1000 else f"{ohms} Ω"
        return self.add("R", "resistor", value, {"1": one, "2": two})


def build(facts: BoardFacts) -> list[Part]:
    """Every part of the reference build, with the net on each of its pins."""
    parts = _Parts()
    pins, mcu = facts.pins, facts.sensing.sensors.mcu
    header = {"6": GND} if pins.button.pull_up else {"1": PI_3V3, "6": GND}
    if pins.buzzer.pin is not None:
        header["2"] = PI_5V   # the buzzer's supply
    header[str(PI_HEADER[pins.button.pin])] = "BUTTON"
    header[str(PI_HEADER[pins.led_data.bcm])] = "LED_DATA_3V3"
    if pins.buzzer.pin is not None:
        header[str(PI_HEADER[pins.buzzer.pin])] = "BUZZER"
    if mcu.link == "uart":
        header.update({str(PI_HEADER[14]): "PI_TXD", str(PI_HEADER[15]): "PI_RXD"})
    parts.add("J", "pi_header", "40-pin header", header)
    parts.add("SW", "button", "dice button", {"1": "BUTTON", "2": GND if pins.button.pull_up else PI_3V3})
    if pins.buzzer.pin is not None:
        if pins.buzzer.active_high:
            parts.resistor(1000, "BUZZER", "BUZZER_BASE")
            parts.resistor(10000, "BUZZER_BASE", GND)
            parts.add("Q", "npn", "2N3904", {"B": "BUZZER_BASE", "C": "BUZZER_LOW", "E": GND})
            parts.add("BZ", "buzzer", "5 V active buzzer", {"+": PI_5V, "-": "BUZZER_LOW"})
            parts.add("D", "diode", "1N4148", {"A": "BUZZER_LOW", "K": PI_5V})
        else:
            parts.add("BZ", "buzzer_module", "active-low buzzer module", {"IN": "BUZZER", "VCC": PI_5V, "GND": GND})
    # 74AHCT125: gate 1 shifts the data; gates 2-4 disabled (OE high) with their inputs grounded.
    parts.add("U", "level_shifter", "74AHCT125", {"1": GND, "2": "LED_DATA_3V3", "3": "LED_DATA_5V", "4": LED_5V,
                                                  "5": GND, "7": GND, "9": GND, "10": LED_5V, "12": GND,
                                                  "13": LED_5V, "14": LED_5V})
    parts.resistor(330, "LED_DATA_5V", "LED_DIN")
    parts.add("PS", "supply", f"5 V {facts.supply_a:g} A", {"+": SUPPLY_5V, "-": GND})
    parts.add("F", "fuse", f"{facts.fuse_a:g} A slow", {"1": SUPPLY_5V, "2": LED_5V})
    parts.add("C", "capacitor", "1000 µF 10 V", {"+": LED_5V, "-": GND})
    parts.add("LED", "led_strip", f"{facts.leds.layout.count} × WS2812B", {"DIN": "LED_DIN", "+5V": LED_5V, "GND": GND})
    # the sensor side
    pico = {str(PICO_PINS[mcu.i2c_sda_pin]): "SDA", str(PICO_PINS[mcu.i2c_scl_pin]): "SCL",
            str(PICO_3V3_OUT): SENSOR_3V3, str(PICO_GND): GND}
    if mcu.link == "uart":
        pico.update({str(PICO_PINS[mcu.uart_tx_pin]): "PI_RXD", str(PICO_PINS[mcu.uart_rx_pin]): "PI_TXD"})
    parts.add("U", "pico", "sensor MCU", pico)
    parts.resistor(PULL_UP_OHMS, "SDA", SENSOR_3V3)
    parts.resistor(PULL_UP_OHMS, "SCL", SENSOR_3V3)
    locations = facts.sensing.sensors.channels.locations
    for number, address in enumerate(mcu.mux_addresses):
        mux = {"VIN": SENSOR_3V3, "GND": GND, "SDA": "SDA", "SCL": "SCL", "RST": SENSOR_3V3}
        mux.update({f"A{bit}": SENSOR_3V3 if (address - 0x70) >> bit & 1 else GND for bit in range(3)})
        for port, location in enumerate(locations[number * 8:number * 8 + 8]):
            mux.update({f"SD{port}": f"SDA_{location_net(location)}", f"SC{port}": f"SCL_{location_net(location)}"})
        parts.add("U", "mux", f"0x{address:02X}", mux)
        parts.add("C", "bulk_capacitor", "10 µF", {"+": SENSOR_3V3, "-": GND})   # at the multiplexer, for its cables
    for location in locations:
        net = location_net(location)
        qwiic = {"1": GND, "2": SENSOR_3V3, "3": f"SDA_{net}", "4": f"SCL_{net}"}
        # the NAU7802 carrier: its Qwiic port, and the cell's bridge on its E+, E-, A-, A+ pads
        bridge = {pin: f"{pin}_{net}" for pin in ("E+", "E-", "A-", "A+")}
        parts.add("A", "carrier", location, {**qwiic, **bridge})
        parts.add("LC", "load_cell", location, {"red": bridge["E+"], "black": bridge["E-"], "white": bridge["A-"],
                                                "green": bridge["A+"]})
        if mcu.colour_by == "magnet":   # the colour sensor's carrier, chained on the NAU7802 carrier's second port
            parts.add("H", "hall_carrier", f"{location} 0x{mcu.hall_address:02X}", dict(qwiic))
        parts.resistor(PULL_UP_OHMS, f"SDA_{net}", SENSOR_3V3)
        parts.resistor(PULL_UP_OHMS, f"SCL_{net}", SENSOR_3V3)
    return parts.parts


def nets(parts: list[Part]) -> dict[str, list[tuple[str, str]]]:
    """Net name -> the (part, pin) pairs on it, in part order."""
    found: dict[str, list[tuple[str, str]]] = {}
    for part in parts:
        for pin, net in part.pins.items():
            found.setdefault(net, []).append((part.ref, pin))
    return found


def as_json(parts: list[Part]) -> dict:
    """The netlist file's content: parts (ref, kind, value, pins) and nets."""
    return {"parts": [{"ref": part.ref, "kind": part.kind, "value": part.value, "pins": part.pins} for part in parts],
            "nets": {net: [f"{ref}.{pin}" for ref, pin in members] for net, members in nets(parts).items()}}
