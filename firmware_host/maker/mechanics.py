"""One location's mechanics, from the board file's `[mechanics]` table: a checked set of dimensions and
a drawing (a side section and a top view, dimensioned), `hardware/docs/location.svg`.

Every location is built alike: a tray that rests on its sensor only (a bar load cell fixed to the
floor at one end, the tray on spacers at the other, so the cell can bend), the location's sensor
carrier beside the cell, and its LEDs (a cut segment of the strip, wired on to the next location's
in the order of `[leds.locations]`) in a channel of the frame along the tray's long edge, under a
diffuser. The loader refuses dimensions a board cannot be built with: a tray too short for five
checkers in a row or too narrow for one, a seat that does not take a checker or too deep for the colour
sensor's pocket under it, a location's LEDs longer than its tray, and a full stack (15 of the heavier
colour) plus the tray over the cell's capacity.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_host.hw.boardfile import Table, read_board_file
from firmware_host.leds.layout import LedLayout
from firmware_host.sensing.config import SensingConfig
from firmware_host.sensing.geometry import CHECKERS_A_SIDE, CHECKERS_IN_A_ROW, Mechanics
from firmware_host.sensing.magnets import AXIAL, DIAMETRIC, force_gf
from firmware_host.wiring import Svg


def load_mechanics(path: Path | str, sensing: SensingConfig, leds: LedLayout) -> Mechanics:
    """The `[mechanics]` table of the board file at `path`, checked against the checkers and the LEDs."""
    return parse_mechanics(read_board_file(path), Path(path), sensing, leds)


def board_mechanics(config) -> Mechanics:
    """The mechanics of a loaded `firmware_host.config.Config`'s board file."""
    return load_mechanics(config.board_file, config.sensing, config.leds.layout)


def parse_mechanics(document: dict[str, Any], path: Path | str, sensing: SensingConfig, leds: LedLayout) -> Mechanics:
    table = Table.of(path, document, "mechanics")
    mechanics = Mechanics(**{name: table.number(name, minimum=0.1, maximum=2000.0)
                             for name in Mechanics.__dataclass_fields__})
    table.finish()
    row = CHECKERS_IN_A_ROW * mechanics.checker_diameter_mm
    if mechanics.tray_length_mm < row:
        raise table.error("tray_length_mm", f"{mechanics.tray_length_mm:g} mm holds fewer than {CHECKERS_IN_A_ROW} "
                                            "checkers in a row", f"at least {row:g} mm")
    if mechanics.tray_width_mm < mechanics.checker_diameter_mm:
        raise table.error("tray_width_mm", f"{mechanics.tray_width_mm:g} mm is narrower than a checker",
                          f"at least {mechanics.checker_diameter_mm:g} mm")
    most = max(len(indices) for indices in leds.locations.values())
    if most * mechanics.led_pitch_mm > mechanics.tray_length_mm:
        raise table.error("led_pitch_mm", f"a location's {most} LEDs at {mechanics.led_pitch_mm:g} mm are longer than "
                                          "its tray", f"at most {mechanics.tray_length_mm / most:g} mm")
    if mechanics.seat_diameter_mm <= mechanics.checker_diameter_mm:
        raise table.error("seat_diameter_mm", f"a {mechanics.seat_diameter_mm:g} mm seat does not take a "
                                              f"{mechanics.checker_diameter_mm:g} mm checker",
                          f"more than {mechanics.checker_diameter_mm:g} mm")
    skin = mechanics.tray_thickness_mm - mechanics.seat_depth_mm
    if skin < SEAT_FLOOR_MIN_MM:
        raise table.error("seat_depth_mm", f"a {mechanics.seat_depth_mm:g} mm recess leaves {skin:g} mm of a "
                                           f"{mechanics.tray_thickness_mm:g} mm tray under the seat",
                          f"at most {mechanics.tray_thickness_mm - SEAT_FLOOR_MIN_MM:g} mm")
    load = mechanics.full_load_g(heaviest_checker_g(sensing))
    if load > mechanics.cell_capacity_g:
        raise table.error("cell_capacity_g", f"{mechanics.cell_capacity_g:g} g is less than the full load, {load:g} g "
                                             f"(the tray and {CHECKERS_A_SIDE} checkers)", f"at least {load:g} g")
    return mechanics


# Under the seat the tray keeps this much: its skin over the colour sensor's pocket (0.8 mm) and a pocket
# for the carrier's chip (1.7 mm: a SOT-23-6 is at most 1.45 mm high).
SEAT_FLOOR_MIN_MM = 2.5
def heaviest_checker_g(sensing: SensingConfig) -> float:
    """The heaviest checker of the set the board's sensing scheme asks for."""
    mcu = sensing.sensors.mcu
    return mcu.checker_g if mcu.colour_by == "magnet" else max(mcu.white_checker_g, mcu.black_checker_g)


ROW_GAP_MM = 70          # between the near and the far row of trays, across the board's middle
TRAY_COLUMN_GAP_MM = 22  # between point 24's (or 1's) column and the bear-off trays
BEAR_OFF_WIDTH_MM = 134
CABLE_SLACK_MM = 60      # a cable's drop from the multiplexer to the floor and up to the carrier, and its bends


def carrier_position_mm(mechanics: Mechanics, location: str) -> tuple[float, float]:
    """Where a location's NAU7802 carrier lies on the board's floor seen from above (x along the board from
    point 12's edge, y across it from the far row's edge): beside its cell, under the tray's middle."""
    pitch, far, near = mechanics.point_pitch_mm, mechanics.tray_length_mm / 2, 1.5 * mechanics.tray_length_mm + ROW_GAP_MM
    kind, _, name = location.partition(":")
    if kind == "point":
        number = int(name)
        column = 12 - number if number <= 12 else number - 13
        return column * pitch + (pitch if column >= 6 else 0) + pitch / 2, near if number <= 12 else far
    row = near if name == "white" else far
    if kind == "bar":
        return 6 * pitch + pitch / 2, row
    return 13 * pitch + TRAY_COLUMN_GAP_MM + BEAR_OFF_WIDTH_MM / 2, row


def qwiic_cable_runs_mm(mechanics: Mechanics, locations: tuple[str, ...], ports_per_mux: int = 8) -> list[float]:
    """Each location's cable run from its multiplexer, which sits amid the locations it serves (at their
    centroid): along and across the floor, plus the slack."""
    runs = []
    for first in range(0, len(locations), ports_per_mux):
        served = [carrier_position_mm(mechanics, location) for location in locations[first:first + ports_per_mux]]
        mux_x = sum(x for x, _ in served) / len(served)
        mux_y = sum(y for _, y in served) / len(served)
        runs += [abs(x - mux_x) + abs(y - mux_y) + CABLE_SLACK_MM for x, y in served]
    return runs


def magnet_push_gf(mechanics: Mechanics) -> float:
    """The most one checker's magnet pushes the one stacked on it up: two axial discs with like poles facing
    (either checker turned over) or two diametric ones side by side in the same direction."""
    return max(force_gf(mechanics.magnet, axis, axis, mechanics.checker_height_mm, sign)
               for axis in (AXIAL, DIAMETRIC) for sign in (1.0, -1.0))


def _dimension(svg: Svg, x1: float, y: float, x2: float, label: str) -> None:
    """A horizontal dimension line with end ticks and its label above."""
    svg.line(x1, y, x2, y)
    for x in (x1, x2):
        svg.line(x, y - 4, x, y + 4)
    svg.text((x1 + x2) / 2, y - 5, label, size=11, anchor="middle")


def _vertical_dimension(svg: Svg, x: float, y1: float, y2: float, label: str, *, label_left: bool = False) -> None:
    svg.line(x, y1, x, y2)
    for y in (y1, y2):
        svg.line(x - 4, y, x + 4, y)
    if label_left:   # where the right side is the drawing itself
        svg.text(x - 7, (y1 + y2) / 2 + 4, label, size=11, anchor="end")
    else:
        svg.text(x + 7, (y1 + y2) / 2 + 4, label, size=11)


def drawing(mechanics: Mechanics, sensing: SensingConfig, leds: LedLayout) -> str:
    """The side section and top view of one location, to scale (2 px per mm), dimensioned."""
    m, scale, left = mechanics, 2.0, 70.0
    mcu = sensing.sensors.mcu
    heavier = heaviest_checker_g(sensing)
    point_leds = len(leds.locations["1"])
    tray_px = m.tray_length_mm * scale
    svg = Svg(int(left * 2 + tray_px + 260), 720)
    svg.text(20, 28, "One location, to scale: generated from [mechanics] of the board file", size=15, bold=True)
    svg.text(20, 46, "Every point, bar half and tray is built alike; the sensors are those of the location's carrier.",
             size=11)
    # -- side section
    svg.text(left, 80, "Side section", bold=True)
    floor_y = 250.0
    floor_top = floor_y - m.floor_thickness_mm * scale
    svg.rect(left - 20, floor_top, tray_px + 2 * m.gap_mm * scale + 40, m.floor_thickness_mm * scale, fill="#d7ccc8")
    svg.text(left - 20, floor_y + 16, f"floor {m.floor_thickness_mm:g} mm", size=11)
    # the cell: its free end on a spacer under the tray's middle (the load point), its fixed end on a spacer inward
    block = 20 * scale
    tray_x = left + m.gap_mm * scale
    cell_x = tray_x + m.tray_length_mm / 2 * scale - block / 2
    spacer, cell_px = m.spacer_mm * scale, m.cell_length_mm * scale
    cell_bottom = floor_top - spacer
    cell_top = cell_bottom - m.cell_height_mm * scale
    svg.rect(cell_x + cell_px - block, cell_bottom, block, spacer, fill="#9e9e9e")
    svg.rect(cell_x, cell_top, cell_px, m.cell_height_mm * scale, fill="#b0bec5")
    svg.rect(cell_x, cell_top - spacer, block, spacer, fill="#9e9e9e")
    svg.text(cell_x + cell_px / 2, cell_top + m.cell_height_mm * scale / 2 + 4, f"load cell {m.cell_capacity_g:g} g",
             size=11, anchor="middle")
    tray_bottom = cell_top - spacer
    tray_top = tray_bottom - m.tray_thickness_mm * scale
    svg.rect(tray_x, tray_top, tray_px, m.tray_thickness_mm * scale, fill="#ffe0b2")
    checker = m.checker_diameter_mm * scale
    seat_x = tray_x + (m.tray_length_mm / 2 + m.checker_from_load_mm(0)) * scale
    # the seat: a recess in the tray's top, the first checker (and the one stacked on it) sunk into it
    seat_floor = tray_top + m.seat_depth_mm * scale
    svg.rect(seat_x - m.seat_diameter_mm * scale / 2, tray_top, m.seat_diameter_mm * scale, m.seat_depth_mm * scale,
             fill="#ffffff")
    for number in range(CHECKERS_IN_A_ROW):
        bottom = seat_floor if number == 0 else tray_top
        svg.rect(seat_x + (number - 0.5) * checker + 2, bottom - m.checker_height_mm * scale, checker - 4,
                 m.checker_height_mm * scale, fill="#616161" if number % 2 == 0 else "#fafafa")
    svg.rect(seat_x - checker / 2 + 2, seat_floor - 2 * m.checker_height_mm * scale, checker - 4,
             m.checker_height_mm * scale, fill="#fafafa")
    magnet_y = seat_floor - m.checker_height_mm * scale / 2
    svg.rect(seat_x - m.magnet_diameter_mm * scale / 2, magnet_y - m.magnet_thickness_mm * scale / 2,
             m.magnet_diameter_mm * scale, m.magnet_thickness_mm * scale, fill="#c62828")
    # the colour sensor's carrier in a pocket under the seat, riding with the tray
    sensor_y = magnet_y + m.hall_depth_mm * scale
    svg.rect(seat_x - 12 * scale, tray_bottom, 24 * scale, 1.6 * scale, fill="#a5d6a7")
    svg.rect(seat_x - 2, sensor_y - 2, 4, 4, fill="#1b5e20")
    _vertical_dimension(svg, seat_x - 36, magnet_y, sensor_y, f"{m.hall_depth_mm:g} mm", label_left=True)
    # the overload stop under the tray's outer end
    stop_x = tray_x + 6 * scale
    svg.rect(stop_x, tray_bottom + m.overload_stop_gap_mm * scale, 3 * scale,
             floor_top - tray_bottom - m.overload_stop_gap_mm * scale, fill="#78909c")
    svg.text(stop_x, floor_y + 50, f"overload stop (left), {m.overload_stop_gap_mm:g} mm under the tray", size=11)
    carrier_x = cell_x + cell_px + 24
    svg.rect(carrier_x, floor_top - 8, 70, 8, fill="#a5d6a7")
    svg.text(carrier_x, floor_y + 16, "NAU7802 carrier", size=11)
    _dimension(svg, tray_x, tray_top - 2 * m.checker_height_mm * scale - 14, tray_x + tray_px,
               f"tray {m.tray_length_mm:g} mm, {m.tray_thickness_mm:g} mm thick")
    _dimension(svg, cell_x, floor_y + 36, cell_x + cell_px, f"cell {m.cell_length_mm:g} mm, its free end under the "
                                                           "tray's middle")
    _vertical_dimension(svg, tray_x + tray_px + 2 * m.gap_mm * scale + 28, tray_top, floor_top,
                        f"{(floor_top - tray_top) / scale:g} mm")
    svg.text(left, floor_y + 66, f"The tray touches nothing but its cell: {m.gap_mm:g} mm gap all round; "
                                 f"{m.spacer_mm:g} mm spacers let the cell bend.", size=11)
    svg.text(left, floor_y + 82, f"Colour sensor (TMAG5273 carrier, I2C 0x{mcu.hall_address:02X}) in a pocket under the first "
                                 f"checker's seat,", size=11)
    svg.text(left, floor_y + 98, f"{m.hall_depth_mm:g} mm below the bottom magnet ({m.magnet_diameter_mm:g} × "
                                 f"{m.magnet_thickness_mm:g} mm N35); the seat a recess {m.seat_diameter_mm:g} mm across, "
                                 f"{m.seat_depth_mm:g} mm deep.", size=11)
    svg.text(left, floor_y + 114, f"Field there: white (axial) {m.centred_field_mt(AXIAL):.1f} mT, black (diametric) "
                                  f"{m.centred_field_mt(DIAMETRIC):.1f} mT; no magnet below {mcu.hall_threshold_mt:g} mT.",
             size=11)
    # -- top view: the tray, a row of checkers, the LED channel along its long edge
    top_y = 440.0
    svg.text(left, top_y - 24, "Top view", bold=True)
    width_px = m.tray_width_mm * scale
    svg.rect(tray_x, top_y, tray_px, width_px, fill="#ffe0b2")
    svg.circle(tray_x + m.seat_diameter_mm / 2 * scale, top_y + width_px / 2, m.seat_diameter_mm / 2 * scale,
               fill="#ffffff")
    for number in range(CHECKERS_IN_A_ROW):
        svg.circle(tray_x + (m.tray_length_mm / 2 + m.checker_from_load_mm(number)) * scale, top_y + width_px / 2,
                   checker / 2,
                   fill="#616161" if number % 2 == 0 else "#fafafa")
    channel_y = top_y + width_px + m.gap_mm * scale
    svg.rect(tray_x, channel_y, tray_px, m.led_channel_mm * scale, fill="#f3e5f5")
    for number in range(point_leds):
        svg.rect(tray_x + (number + 0.5) * m.led_pitch_mm * scale - 5, channel_y + m.led_channel_mm * scale / 2 - 5,
                 10, 10, fill="#ce93d8")
    svg.text(tray_x, channel_y + m.led_channel_mm * scale + 16,
             f"LED channel {m.led_channel_mm:g} mm: a point's {point_leds} LEDs every {m.led_pitch_mm:g} mm, from the "
             "board's edge inward", size=11)
    _vertical_dimension(svg, tray_x + tray_px + 20, top_y, top_y + width_px, f"{m.tray_width_mm:g} mm")
    svg.text(left, 660, f"Point pitch {m.point_pitch_mm:g} mm (tray, gaps, LED channel). Full load "
                        f"{m.full_load_g(heavier):g} g (tray {m.tray_mass_g:g} g + {CHECKERS_A_SIDE} × {heavier:g} g) on a "
                        f"{m.cell_capacity_g:g} g cell.", size=12)
    svg.text(left, 680, f"Checkers {m.checker_diameter_mm:g} mm across, {m.checker_height_mm:g} mm high. Like poles "
                        "facing in a stack push the upper checker", size=12)
    svg.text(left, 698, f"up by {magnet_push_gf(m):.1f} gf at most ({magnet_push_gf(m) / mcu.checker_g:.0%} of a "
                        "checker's weight).", size=12)
    return svg.render()


def layout_drawing(mechanics: Mechanics, leds: LedLayout) -> str:
    """The whole board from above, for assembly: where each location lies, its LED indices, and the
    order the strip's segments are wired in (the order of `[leds.locations]`, then dice, turn, score)."""
    pitch, scale = mechanics.point_pitch_mm, 0.9
    point_w, point_h = pitch * scale, mechanics.tray_length_mm * scale
    left, top, bar_w = 40.0, 90.0, pitch * scale
    svg = Svg(int(left * 2 + 13 * point_w + 160), int(top + 2 * point_h + 190))
    svg.text(20, 28, "The board from above: locations, their LEDs and the strip's order (generated from the board "
                     "file)", size=15, bold=True)
    svg.text(20, 48, "Each box is a tray with its LED channel; \"LEDs a-b\" are its strip indices. Wire each segment's "
                     "DOUT to the next segment's DIN, in rising index order.", size=11)

    def point_x(number: int) -> float:
        """Near row: 1 at the right to 12 at the left; far row: 13 at the left to 24 at the right; the bar
        between 6/7 and 18/19."""
        column = 12 - number if number <= 12 else number - 13
        return left + column * point_w + (bar_w if column >= 6 else 0)

    def leds_text(location: str) -> str:
        indices = leds.locations[location]
        return f"{indices[0]}-{indices[-1]}"

    far_y, near_y = top, top + point_h + 60
    for number in range(1, 25):
        y = near_y if number <= 12 else far_y
        x = point_x(number)
        svg.rect(x + 2, y, point_w - 4, point_h, fill="#ffe0b2")
        svg.text(x + point_w / 2, y + (point_h + 16 if number <= 12 else -6), str(number), size=12, bold=True,
                 anchor="middle")
        svg.text(x + point_w / 2, y + point_h / 2 - 6, "LEDs", size=10, anchor="middle")
        svg.text(x + point_w / 2, y + point_h / 2 + 8, leds_text(str(number)), size=10, anchor="middle")
    bar_x = left + 6 * point_w
    for location, y in (("bar:black", far_y), ("bar:white", near_y)):
        svg.rect(bar_x + 4, y, bar_w - 8, point_h, fill="#d7ccc8")
        svg.text(bar_x + bar_w / 2, y + point_h / 2 - 12, location.replace(":", " "), size=9, anchor="middle")
        svg.text(bar_x + bar_w / 2, y + point_h / 2 + 2, "LEDs", size=9, anchor="middle")
        svg.text(bar_x + bar_w / 2, y + point_h / 2 + 14, leds_text(location), size=9, anchor="middle")
    tray_x = left + 12 * point_w + bar_w + 20
    for location, y in (("off:black", far_y), ("off:white", near_y)):
        svg.rect(tray_x, y, 120, point_h, fill="#cfd8dc")
        svg.text(tray_x + 60, y + point_h / 2 - 8, location, size=10, anchor="middle")
        svg.text(tray_x + 60, y + point_h / 2 + 8, "LEDs " + leds_text(location), size=10, anchor="middle")
    extras = [f"dice {number}: LEDs {die[0]}-{die[-1]}" for number, die in enumerate(leds.dice, start=1)]
    extras += [f"turn {side}: LED {', '.join(map(str, indices))}" for side, indices in leds.turn.items()]
    extras += [f"score {side}: LEDs {indices[0]}-{indices[-1]}" for side, indices in leds.score.items()]
    svg.text(left, near_y + point_h + 62, "Along the board's side:", size=11, bold=True)
    for row, extra in enumerate(extras):
        svg.text(left + 160 + (row % 2) * 260, near_y + point_h + 62 + (row // 2) * 16, extra, size=11)
    svg.line(point_x(1) + point_w / 2, near_y + point_h + 26, point_x(12) + point_w / 2, near_y + point_h + 26,
             colour="#6a1b9a")
    svg.text(point_x(6), near_y + point_h + 42, "strip order: 1 → 12, then 13 → 24, bar, trays, dice, turn, score",
             size=10, anchor="middle")
    return svg.render()
