"""The maker's documents: committed as the board file generates them, and the netlist checked against
the board file by reading both (the header and Pico pin numbers below are the parts' own datasheets',
written out here rather than taken from the generator)."""
import json
import tomllib

import pytest

from firmware_host import maker
from firmware_host.cli import main
from firmware_host.hw.boardfile import BoardFileError
from firmware_host.maker import bom, mechanics
from firmware_host.wiring import BoardFacts

PI_PIN = {17: "11", 27: "13", 10: "19", 14: "8", 15: "10", 22: "15", 5: "29"}   # BCM -> 40-pin header
PICO_PIN = {0: "1", 1: "2", 4: "6", 5: "7", 8: "11", 9: "12"}                  # GPn -> Pico pin


def test_the_committed_documents_match_the_board_file():
    assert maker.stale_files() == [], "run `tavli-board maker-docs` and commit hardware/docs"


class Netlist:
    def __init__(self, text: str):
        data = json.loads(text)
        self.parts = {part["ref"]: part for part in data["parts"]}
        self.nets = {net: set(members) for net, members in data["nets"].items()}

    def net(self, ref: str, pin: str) -> str:
        return self.parts[ref]["pins"][pin]

    def of_kind(self, kind: str) -> list[dict]:
        return [part for part in self.parts.values() if part["kind"] == kind]

    def on(self, net: str, kind: str) -> list[dict]:
        """The parts of `kind` with a pin on `net`."""
        return [part for part in self.of_kind(kind) if net in part["pins"].values()]

    def other_end(self, resistor: dict, net: str) -> str:
        (other,) = [each for each in resistor["pins"].values() if each != net]
        return other


def netlist_for(board: dict, write_board) -> tuple[Netlist, dict]:
    return Netlist(maker.generate(write_board(board))[maker.NETLIST]), board


@pytest.fixture(scope="module")
def shipped(shipped_board_file) -> tuple[Netlist, dict]:
    return Netlist((maker.DOCS_DIR / maker.NETLIST).read_text()), tomllib.loads(shipped_board_file.read_text())


def test_every_net_joins_two_pins_or_more_and_every_pin_is_on_one_net(shipped):
    netlist, _ = shipped
    assert all(len(members) >= 2 for members in netlist.nets.values()), \
        [net for net, members in netlist.nets.items() if len(members) < 2]
    pins = [member for members in netlist.nets.values() for member in members]
    assert len(pins) == len(set(pins)) == sum(len(part["pins"]) for part in netlist.parts.values())


def test_the_pi_side_follows_the_board_files_pins(shipped):
    netlist, board = shipped
    (header,) = netlist.of_kind("pi_header")
    button = netlist.net(header["ref"], PI_PIN[board["button"]["pin"]])
    (switch,) = netlist.on(button, "button")
    assert "GND" in switch["pins"].values()                             # pull_up: the button pulls to ground
    # the buzzer pin drives a 1 kΩ into the NPN's base; the buzzer and its flyback diode hang on the collector
    buzzer = netlist.net(header["ref"], PI_PIN[board["buzzer"]["pin"]])
    (base_resistor,) = netlist.on(buzzer, "resistor")
    assert base_resistor["value"] == "1 kΩ"
    (npn,) = netlist.of_kind("npn")
    assert npn["pins"]["B"] == netlist.other_end(base_resistor, buzzer) and npn["pins"]["E"] == "GND"
    (diode,) = netlist.of_kind("diode")
    (sounder,) = netlist.of_kind("buzzer")
    assert diode["pins"]["A"] == sounder["pins"]["-"] == npn["pins"]["C"]
    assert diode["pins"]["K"] == sounder["pins"]["+"] == netlist.net(header["ref"], "2")   # the Pi's 5 V
    # LED data on GPIO10 (driver "auto": SPI0 MOSI or the Pi 5's PIO) into the level shifter's gate 1
    data = netlist.net(header["ref"], PI_PIN[10])
    (shifter,) = netlist.on(data, "level_shifter")
    assert shifter["pins"]["2"] == data and shifter["pins"]["1"] == "GND" and shifter["pins"]["7"] == "GND"
    (series,) = netlist.on(shifter["pins"]["3"], "resistor")
    (strip,) = netlist.of_kind("led_strip")
    assert series["value"] == "330 Ω" and strip["pins"]["DIN"] == netlist.other_end(series, shifter["pins"]["3"])
    assert shifter["pins"]["14"] == strip["pins"]["+5V"]
    for gate_input, enable in (("5", "4"), ("9", "10"), ("12", "13")):   # unused gates: inputs low, outputs off
        assert shifter["pins"][gate_input] == "GND" and shifter["pins"][enable] == strip["pins"]["+5V"]


def test_the_sensor_side_follows_the_board_files_channels_and_multiplexers(shipped):
    netlist, board = shipped
    mcu, channels = board["sensors"]["mcu"], board["sensors"]["channels"]
    (pico,) = netlist.of_kind("pico")
    sda, scl = netlist.net(pico["ref"], PICO_PIN[mcu["i2c_sda_pin"]]), netlist.net(pico["ref"], PICO_PIN[mcu["i2c_scl_pin"]])
    supply = netlist.net(pico["ref"], "36")   # 3V3 OUT
    muxes = {int(part["value"], 16): part for part in netlist.of_kind("mux")}
    assert sorted(muxes) == mcu["mux_addresses"]
    for address, mux in muxes.items():
        assert (mux["pins"]["SDA"], mux["pins"]["SCL"]) == (sda, scl)
        strapped = sum(1 << bit for bit in range(3) if mux["pins"][f"A{bit}"] == supply)
        assert 0x70 + strapped == address
    carriers = {part["value"]: part for part in netlist.of_kind("carrier")}
    assert sorted(carriers) == sorted(channels)
    for channel, location in enumerate(channels):
        carrier = carriers[location]["pins"]
        mux = muxes[mcu["mux_addresses"][channel // 8]]["pins"]
        assert (carrier["1"], carrier["2"]) == ("GND", supply)                           # Qwiic: GND, 3.3 V,
        assert (carrier["3"], carrier["4"]) == (mux[f"SD{channel % 8}"], mux[f"SC{channel % 8}"])   # SDA, SCL
        for signal in (carrier["3"], carrier["4"]):
            (pull_up,) = netlist.on(signal, "resistor")
            assert pull_up["value"] == "4.7 kΩ" and netlist.other_end(pull_up, signal) == supply
    pull_ups = [part for part in netlist.of_kind("resistor") if part["value"] == "4.7 kΩ"]
    assert len(pull_ups) == 2 * (len(channels) + 1)    # every multiplexer port and the Pico's own bus


def test_a_uart_link_and_other_pins_change_the_netlist(board, write_board):
    board["sensors"]["mcu"]["link"] = "uart"
    board["button"]["pin"] = 22
    board["buzzer"]["pin"] = 5
    board["sensors"]["mcu"]["mux_addresses"] = [0x70, 0x75, 0x72, 0x73]
    netlist, _ = netlist_for(board, write_board)
    (header,) = netlist.of_kind("pi_header")
    (pico,) = netlist.of_kind("pico")
    assert netlist.net(header["ref"], PI_PIN[14]) == netlist.net(pico["ref"], PICO_PIN[1])   # Pi TXD -> Pico RX
    assert netlist.net(header["ref"], PI_PIN[15]) == netlist.net(pico["ref"], PICO_PIN[0])   # Pi RXD <- Pico TX
    assert netlist.on(netlist.net(header["ref"], PI_PIN[22]), "button")
    assert netlist.on(netlist.net(header["ref"], PI_PIN[5]), "resistor")[0]["value"] == "1 kΩ"
    (mux,) = [part for part in netlist.of_kind("mux") if part["value"] == "0x75"]
    assert [mux["pins"][f"A{bit}"] for bit in range(3)] == ["+3V3_SENSORS", "GND", "+3V3_SENSORS"]


def test_a_silent_board_with_a_button_to_3v3_leaves_no_net_dangling(board, write_board):
    del board["buzzer"]
    board["button"]["pull_up"] = False
    netlist, _ = netlist_for(board, write_board)
    assert not netlist.of_kind("buzzer") and not netlist.of_kind("npn")
    assert all(len(members) >= 2 for members in netlist.nets.values())
    (switch,) = netlist.of_kind("button")
    assert switch["pins"]["2"] == netlist.net("J1", "1")   # the Pi's 3.3 V


def test_the_bom_counts_what_the_board_file_asks_for(board, write_board):
    board["leds"]["count"] = 200
    bom = maker.generate(write_board(board))[maker.BOM]
    lines = [line.split(" | ") for line in bom.splitlines() if line.startswith("| ") and " | $" in line]
    rows = {row[2]: row for row in lines if row[2] != "-"}
    assert rows["2717"][3] == "4" and rows["4538"][3] == "28" and rows["SEN-14728"][3] == "28"
    assert rows["CFR-25JB-52-4K7"][3] == "58"          # 29 pull-up pairs
    assert rows["1138"][3] == "4"                       # 200 LEDs at 60 a metre
    assert rows["SEN-23881"][3] == "28"                 # a colour sensor's carrier per location
    # every line's total is its quantity times its unit cost, and the total is their sum
    assert all(f"{int(row[3]) * float(row[4].lstrip('$')):.2f}" == row[5].lstrip("$") for row in lines)
    total = sum(float(row[5].lstrip("$")) for row in lines)
    assert f"**${total:.2f}**" in bom


def test_every_qwiic_cable_reaches_from_its_multiplexer_to_its_carrier(shipped_board_file):
    # at 63.5 mm a point, a multiplexer amid its 8 locations is up to 4 points away from the farthest
    facts = BoardFacts.load(shipped_board_file)
    dimensions = mechanics.load_mechanics(shipped_board_file, facts.sensing, facts.leds.layout)
    runs = mechanics.qwiic_cable_runs_mm(dimensions, facts.sensing.sensors.channels.locations)
    assert max(runs) > 4 * dimensions.point_pitch_mm > 200          # a 200 mm cable cannot serve every port
    bought = bom.cable_lengths_mm(runs)
    assert all(length >= run for length, run in zip(bought, runs))
    table = maker.generate(shipped_board_file)[maker.BOM]
    assert f"| {sum(1 for length in bought if length == 500)} |" in next(
        line for line in table.splitlines() if "PRT-14429" in line)


@pytest.mark.parametrize("colour_by, halls, magnets", [("magnet", "28", "30"), ("mass", None, None)])
def test_colour_by_magnet_buys_a_hall_sensor_per_location_and_a_magnet_per_checker(board, write_board, colour_by,
                                                                                 halls, magnets):
    board["sensors"]["mcu"]["colour_by"] = colour_by
    bom = maker.generate(write_board(board))[maker.BOM]
    rows = [line.split(" | ") for line in bom.splitlines() if line.startswith("| ") and " | $" in line]
    assert next((row[3] for row in rows if row[2] == "SEN-23881"), None) == halls
    magnet_rows = [row[3] for row in rows if row[0].startswith("| Disc magnet")]
    assert (str(sum(map(int, magnet_rows))) if magnet_rows else None) == magnets


def test_the_location_drawing_is_dimensioned_from_the_board_file(board, write_board):
    board["mechanics"]["tray_length_mm"] = 210
    drawing = maker.generate(write_board(board))[maker.LOCATION]
    assert "tray 210 mm, 4 mm thick" in drawing and "Full load 375 g (tray 45 g + 15 × 22 g) on a 500 g cell" in drawing
    assert "a point&#x27;s 6 LEDs every 16.7 mm" in drawing


@pytest.mark.parametrize("key, value, message", [
    ("tray_length_mm", 150, "mechanics.tray_length_mm: 150 mm holds fewer than 5 checkers in a row; allowed: at least 190 mm"),
    ("tray_width_mm", 30, "mechanics.tray_width_mm: 30 mm is narrower than a checker"),
    ("cell_capacity_g", 250, "mechanics.cell_capacity_g: 250 g is less than the full load, 375 g"),
    ("led_pitch_mm", 40, "mechanics.led_pitch_mm: a location's 8 LEDs at 40 mm are longer than its tray"),
    ("seat_diameter_mm", 38, "mechanics.seat_diameter_mm: a 38 mm seat does not take a 38 mm checker"),
    ("seat_depth_mm", 2, "mechanics.seat_depth_mm: a 2 mm recess leaves 2 mm of a 4 mm tray under the seat; "
                         "allowed: at most 1.5 mm"),
])
def test_a_board_that_cannot_be_built_is_refused(board, write_board, key, value, message):
    board["mechanics"][key] = value
    path = write_board(board)
    facts = BoardFacts.load(path)
    with pytest.raises(BoardFileError, match=message.replace("(", "\\(").replace(")", "\\)")):
        mechanics.load_mechanics(path, facts.sensing, facts.leds.layout)


def test_the_command_writes_checks_and_names_a_bad_board_file(tmp_path, board, write_board, capsys):
    assert main(["maker-docs", "--output", str(tmp_path / "docs")]) == 0
    assert main(["maker-docs", "--check", "--output", str(tmp_path / "docs")]) == 0
    (tmp_path / "docs" / "bom.md").write_text("edited by hand")
    assert main(["maker-docs", "--check", "--output", str(tmp_path / "docs")]) == 1
    assert "out of date" in capsys.readouterr().err
    del board["mechanics"]
    assert main(["maker-docs", "--board", str(write_board(board)), "--output", str(tmp_path / "x")]) == 2
    assert "mechanics" in capsys.readouterr().err


def test_the_drawing_and_the_physical_model_take_the_colour_sensors_place_from_the_board_file(board, write_board):
    from firmware_host.sim.physics import HallFigures   # numpy: the `physics` extra

    board["mechanics"]["hall_cover_mm"] = 2.5            # a thicker skin over the sensor's pocket
    path = write_board(board)
    facts = BoardFacts.load(path)
    dimensions = mechanics.load_mechanics(path, facts.sensing, facts.leds.layout)
    assert HallFigures.for_mechanics(dimensions).depth_mm == 2.5 + board["mechanics"]["checker_height_mm"] / 2
    drawing = maker.generate(path)[maker.LOCATION]
    assert "6.5 mm below the bottom magnet" in drawing
    assert f"white (axial) {dimensions.centred_field_mt('axial'):.1f} mT" in drawing
    # a 4 x 1 mm N35 disc 6.5 mm above the sensor, on its axis: Br/2 ((z + t/2)/sqrt(R^2 + (z + t/2)^2) - ...)
    assert dimensions.centred_field_mt("axial") == pytest.approx(
        1200 / 2 * (7 / (4 + 49) ** 0.5 - 6 / (4 + 36) ** 0.5), rel=0.02)


def test_the_seat_is_a_recess_of_the_board_files_size_in_the_drawing_the_guide_and_the_model(board, write_board):
    from firmware_host.sim.physics import MAGNET_CENTRING_MM, HallFigures   # numpy: the `physics` extra

    board["mechanics"]["seat_diameter_mm"] = 41.0        # 1.5 mm wider than a 38 mm checker all round
    board["mechanics"]["seat_depth_mm"] = 1.2
    path = write_board(board)
    facts = BoardFacts.load(path)
    dimensions = mechanics.load_mechanics(path, facts.sensing, facts.leds.layout)
    # the model's first checker lies no further off the sensor than the recess lets it
    assert HallFigures.for_mechanics(dimensions).placement_mm == pytest.approx(1.5 + MAGNET_CENTRING_MM)
    drawing = maker.generate(path)[maker.LOCATION]
    assert "the seat a recess 41 mm across, 1.2 mm deep" in drawing
    assert dimensions.checker_from_load_mm(0) == 41.0 / 2 - board["mechanics"]["tray_length_mm"] / 2


def test_every_length_the_assembly_guide_states_is_the_board_files(shipped_board_file):
    import re
    from pathlib import Path

    facts = BoardFacts.load(shipped_board_file)
    dimensions = mechanics.load_mechanics(shipped_board_file, facts.sensing, facts.leds.layout)
    known = {round(value, 1) for value in vars(dimensions).values()} | {
        round(dimensions.hall_depth_mm, 1), round(dimensions.seat_clearance_mm, 1)}
    guide = (Path(maker.DOCS_DIR).parent / "ASSEMBLY.md").read_text()
    stated = {float(number) for number in re.findall(r"(\d+(?:\.\d+)?) mm\b", guide)}
    assert stated and stated <= known, sorted(stated - known)


def test_every_load_cell_is_wired_to_its_own_carrier_and_every_colour_sensor_shares_its_port(shipped):
    netlist, board = shipped
    locations = board["sensors"]["channels"]
    cells = {part["value"]: part for part in netlist.of_kind("load_cell")}
    carriers = {part["value"]: part for part in netlist.of_kind("carrier")}
    halls = {part["value"].split()[0]: part for part in netlist.of_kind("hall_carrier")}
    assert set(cells) == set(carriers) == set(halls) == set(locations)
    # a TAL221's wires: red E+, black E-, white A-, green A+ (its datasheet's colour code)
    for location in locations:
        cell, carrier, hall = cells[location], carriers[location], halls[location]
        for wire, pad in (("red", "E+"), ("black", "E-"), ("white", "A-"), ("green", "A+")):
            net = cell["pins"][wire]
            assert carrier["pins"][pad] == net and netlist.nets[net] == {f"{cell['ref']}.{wire}", f"{carrier['ref']}.{pad}"}
        assert hall["pins"] == {pin: carrier["pins"][pin] for pin in ("1", "2", "3", "4")}   # the same Qwiic port
        assert hall["value"].endswith(f"0x{board['sensors']['mcu']['hall_address']:02X}")
    # a bulk capacitor at each multiplexer, across the sensors' supply
    assert len(netlist.of_kind("bulk_capacitor")) == len(netlist.of_kind("mux"))
