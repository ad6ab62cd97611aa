"""One location's geometry, the board file's `[mechanics]` table as numbers: the one source of every
distance the sensors depend on. `firmware_host.maker.mechanics` reads the table into a `Mechanics`
(and draws it), and the physical model (firmware_host.sim.physics) takes its distances from the same
object: magnet to sensor, the seat, checker height and pitch, where the load lies on the cell.

A location (hardware/docs/location.svg): a tray resting on the free end of a bar load cell under the
tray's middle; the first checker's seat (a round recess `seat_diameter_mm` across, `seat_depth_mm` deep)
at the tray's outer end, which keeps the bottom checker within `seat_clearance_mm` of the sensor's axis;
the colour sensor (a TMAG5273 on its carrier) in a pocket under the seat, on the tray's underside,
`hall_cover_mm` below the seat's floor; each checker's magnet at its mid-height.
"""
from __future__ import annotations

from dataclasses import dataclass

from firmware_host.sensing.magnets import AXIAL, DiscMagnet, field_mt

CHECKERS_A_SIDE = 15
CHECKERS_IN_A_ROW = 5   # checkers lie in a row along the point before they stack


@dataclass(frozen=True)
class Mechanics:
    tray_length_mm: float
    tray_width_mm: float
    tray_thickness_mm: float
    tray_mass_g: float
    gap_mm: float
    led_channel_mm: float
    cell_length_mm: float
    cell_height_mm: float
    cell_capacity_g: float
    spacer_mm: float
    floor_thickness_mm: float
    overload_stop_gap_mm: float
    checker_diameter_mm: float
    checker_height_mm: float
    seat_diameter_mm: float
    seat_depth_mm: float
    hall_cover_mm: float
    magnet_diameter_mm: float
    magnet_thickness_mm: float
    magnet_remanence_t: float
    led_pitch_mm: float

    def full_load_g(self, heavier_checker_g: float) -> float:
        """What a sensor carries at most: the tray and every checker of the heavier colour."""
        return self.tray_mass_g + CHECKERS_A_SIDE * heavier_checker_g

    @property
    def point_pitch_mm(self) -> float:
        """From one point's centre line to the next: a tray, its gaps and an LED channel."""
        return self.tray_width_mm + 2 * self.gap_mm + self.led_channel_mm

    @property
    def magnet(self) -> DiscMagnet:
        return DiscMagnet(self.magnet_diameter_mm, self.magnet_thickness_mm, self.magnet_remanence_t)

    @property
    def seat_clearance_mm(self) -> float:
        """How far a checker in its seat can lie off the seat's centre (the recess is this much wider all round)."""
        return (self.seat_diameter_mm - self.checker_diameter_mm) / 2

    @property
    def hall_depth_mm(self) -> float:
        """From the colour sensor's die up to the bottom checker's magnet (at the checker's mid-height)."""
        return self.hall_cover_mm + self.checker_height_mm / 2

    def checker_from_load_mm(self, place: int) -> float:
        """Along the tray, from the cell's load point (the tray's middle) to the centre of the checker in
        the `place`-th place of the row (0: the seat, at the tray's outer end); negative toward that end."""
        seat = self.seat_diameter_mm / 2
        return seat + place * self.checker_diameter_mm - self.tray_length_mm / 2

    def centred_field_mt(self, axis: str) -> float:
        """The field magnitude at the sensor of a bottom checker centred on its seat: AXIAL (white) or
        DIAMETRIC (black)."""
        return abs(field_mt(self.magnet, axis, (0.0, 0.0, self.hall_depth_mm))[2 if axis == AXIAL else 0])
