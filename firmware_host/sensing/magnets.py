"""The checkers' magnets as the colour sensor sees them: the field of a disc magnet at a point and the
force between two of them, from the magnet's size and remanence (pure Python; the physical model in
firmware_host.sim.physics uses the point-dipole form of the same field, vectorised).

A disc is split into small volume elements, each a point dipole of its share of the moment
(m = Br V / mu0, uniform magnetisation): near the disc this converges on the exact field of a
uniformly magnetised cylinder where one dipole does not (a 4 x 1 mm disc 5.5 mm away on its axis:
one dipole 19 % high, the default split 0.1 %, the physical model's coarser one 0.3 %). Axes: z up (out of the tray), the sensor at the origin; an "axial" disc is
magnetised through its faces, a "diametric" one across its diameter (along x).

Colour is the magnet's axis, not its pole (hardware/README.md, "Colour"): white checkers hold an
axial disc, black ones a diametric one. Turning a checker over, or a magnet glued in backwards,
reverses the moment but keeps its axis, so neither can turn one colour into the other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

MU0 = 4e-7 * math.pi
GRAM_FORCE_N = 9.80665e-3
AXIAL, DIAMETRIC = "axial", "diametric"


@dataclass(frozen=True)
class DiscMagnet:
    diameter_mm: float
    thickness_mm: float
    remanence_t: float

    @property
    def moment_am2(self) -> float:
        volume_m3 = math.pi * (self.diameter_mm / 2e3) ** 2 * self.thickness_mm / 1e3
        return self.remanence_t * volume_m3 / MU0

    def elements(self, axis: str, rings: int = 6, layers: int = 3) -> list[tuple[tuple[float, float, float],
                                                                               tuple[float, float, float]]]:
        """(position mm from the disc's centre, moment A m^2) of its volume elements."""
        direction = (0.0, 0.0, 1.0) if axis == AXIAL else (1.0, 0.0, 0.0)
        radius = self.diameter_mm / 2
        cells = []
        for layer in range(layers):
            z = (layer + 0.5) / layers * self.thickness_mm - self.thickness_mm / 2
            for ring in range(rings):
                inner, outer = ring / rings * radius, (ring + 1) / rings * radius
                around = max(1, round(2 * math.pi * (inner + outer) / 2 / (radius / rings)))
                area = math.pi * (outer ** 2 - inner ** 2) / around
                r = (inner + outer) / 2
                for step in range(around):
                    angle = 2 * math.pi * (step + 0.5) / around
                    cells.append(((r * math.cos(angle), r * math.sin(angle), z), area))
        total = sum(area for _, area in cells)
        moment = self.moment_am2
        return [(position, tuple(component * moment * area / total for component in direction))
                for position, area in cells]


def dipole_field_mt(moment: tuple[float, float, float], offset_mm: tuple[float, float, float]) -> tuple[float, ...]:
    """The field (mT) of a point dipole `moment` (A m^2) at `offset_mm` from it."""
    x, y, z = (component / 1e3 for component in offset_mm)
    r2 = x * x + y * y + z * z
    r = math.sqrt(r2)
    m_dot_r = moment[0] * x + moment[1] * y + moment[2] * z
    scale = MU0 / (4 * math.pi) * 1e3
    return tuple(scale * (3 * m_dot_r * c / r ** 5 - m / r ** 3) for c, m in zip((x, y, z), moment))


def field_mt(magnet: DiscMagnet, axis: str, centre_mm: tuple[float, float, float]) -> tuple[float, float, float]:
    """The field (Bx, By, Bz) in mT at the origin of `magnet` centred at `centre_mm`, its moment along
    +z (axial) or +x (diametric)."""
    total = [0.0, 0.0, 0.0]
    for position, moment in magnet.elements(axis):
        offset = tuple(-(c + p) for c, p in zip(centre_mm, position))
        for index, component in enumerate(dipole_field_mt(moment, offset)):
            total[index] += component
    return tuple(total)


def force_gf(magnet: DiscMagnet, lower_axis: str, upper_axis: str, gap_mm: float, upper_sign: float) -> float:
    """The vertical force (gram-force, + pushes the upper one up) between two coaxial magnets `gap_mm`
    apart centre to centre, the upper one's moment times `upper_sign`: for axial discs -1 faces like poles
    (they repel), for diametric ones +1 lays them side by side in the same direction (they repel)."""
    lower = magnet.elements(lower_axis, rings=4, layers=2)
    upper = magnet.elements(upper_axis, rings=4, layers=2)

    def energy(height: float) -> float:
        total = 0.0
        for p_low, m_low in lower:
            for p_up, m_up in upper:
                offset = (p_up[0] - p_low[0], p_up[1] - p_low[1], height + p_up[2] - p_low[2])
                field = dipole_field_mt(m_low, offset)
                total -= sum(upper_sign * m * b / 1e3 for m, b in zip(m_up, field))
        return total

    step = 0.01
    force_n = -(energy(gap_mm + step) - energy(gap_mm - step)) / (2 * step / 1e3)
    return force_n / GRAM_FORCE_N
