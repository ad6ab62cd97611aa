"""A physical model of weighed board locations: what a load cell and its NAU7802 really report.

The simulated MCU's perfect sensors say exactly how many checkers lie on a location; real ones weigh
them. This model turns what lies on each location (checkers of a real, imperfect set, a hand, a coin,
a checker across two strips) into the 24-bit ADC value the firmware reads, with the errors the
datasheets specify, and into the field (x, y, z) a Hall sensor under the location's first checker sees. Every
array is vectorised over locations (numpy), so the simulated MCU (28 locations, one scan at a time)
and bench/bench_sensors.py (a million locations at once) run the same model. All randomness comes
from the `numpy.random.Generator` passed in.

Figures, with their sources:

- Load cell: a 500 g aluminium bar cell of the TAL220/TAL221 family (HT Sensor Technology datasheets,
  sold by SparkFun as SEN-13329 and SEN-14727): rated output 1.0 mV/V, non-linearity 0.05 % FS,
  hysteresis 0.05 % FS, creep 0.1 % FS over 30 min (at rated load, so 0.1 % of the applied load),
  temperature effect on zero 0.05 % FS per 10 °C and on span 0.05 % per 10 °C. A datasheet gives an
  envelope: every simulated cell draws its own value inside it (sign included).
- ADC: NAU7802 (Nuvoton datasheet rev 1.7, §3 Features): 50 nV RMS input noise at 10 samples/s,
  gain 128; white noise scales with the square root of the rate, so 141 nV at 80 samples/s. Ratiometric
  (the bridge is excited by the ADC's own LDO, which is also its reference; the firmware sets it to
  3.0 V, 0.3 V below the 3.3 V supply as the datasheet asks): full scale is ±VREF/2/gain over 24
  bits, so a 1 mV/V 500 g cell gives 4295 counts per gram and the noise is 0.023 g RMS.
- Off-centre loading: a strip of 20-25 cm resting on one cell turns load position into a moment on
  the cell. Moment-compensated single-point cells are trimmed to about 0.02 % of the load per cm
  (the order of the OIML R60 eccentricity test limits); `off_centre_per_cm` holds that figure.
- Checkers: moulded (resin or melamine) checkers vary by about ±1 % in mass (typical shot-to-shot
  weight spread of injection moulding) and take up well under 0.1 % water between dry and humid air;
  wooden ones change mass with the wood's equilibrium moisture content, about 0.2 % of the wood's mass
  per % relative humidity (6 % moisture at 30 % RH, 12 % at 65 %, USDA Wood Handbook table 4-2).
- Hall sensing (the colour of the bottom checker): a disc magnet at each checker's mid-height, seen by
  a 3D Hall sensor under the location's seat as the sum of the disc's volume elements, each a point
  dipole (firmware_host.sensing.magnets), magnets ±5 % (N35 remanence tolerance), the sensor's noise
  0.15 mT RMS per axis (TMAG5273 averaging 16 conversions). Every distance (sensor to magnet, the seat,
  checker height) and the magnet come from the board file's `[mechanics]` (`HallFigures.for_mechanics`).
  A location's checkers lie as players lay them (`checker_places`): a row of five along the point from the
  seat, then a second layer from the seat, and so on; a pinning checker lies on the one it pins. So the
  sensor sees the seat's checker and those stacked on it (the sixth, the eleventh); the row's others, 38 mm
  and more away, add a few hundredths of a mT. A checker in the row lies up to 2 mm beyond touching the one
  before, anywhere across the tray; one on another within 3 mm of it; each either face up, turned any way.
- A hand: a finger resting on a point presses 5-300 g, wavering with a physiological tremor of
  8-12 Hz at 1-4 % of the force and drifting slowly by 5-10 % (periods of 1-4 s): over two minutes its
  force varies by 3.6-7.6 % (coefficient of variation; 5.6 % the median finger; the sources below give
  that total, the split between tremor and drift is the model's). That is as steady as
  the steadiest average measured, and steadier than a finger with touch alone: fingers holding a
  constant force of 2-6 N for up to 120 s varied by 10.5 % on average with only touch to go by, and by
  6 % with visual feedback as well ("Perception and control of finger forces", its abstract at
  https://discovery.researcher.life/article/perception-and-control-of-finger-forces/b58bea914bc232a59b5b433584b85f0a;
  by L. A. Jones, 1998, as far as we know); a finger resting on a stack has touch only. The error
  of a held force grows linearly with the force from a considerable intercept at zero, so relative to
  the force it is larger at a finger's light press on a stack, and the tremor peak stays near 8-10 Hz
  whatever the force (G. G. Sutton and K. Sykes, "The variation of hand tremor with force in healthy
  subjects", J. Physiol., 1967, doi:10.1113/jphysiol.1967.sp008276); the 8-12 Hz component grows with
  the neural drive (T. Novak and K. M. Newell, "Physiological tremor (8-12 Hz component) in isometric
  force control", Neurosci. Lett., 2017, doi:10.1016/j.neulet.2017.01.034). `hand_force_g`'s
  `unsteadiness` 0.1 (0.36-0.76 %) is therefore no human finger but a stress case: something nearly
  rigid resting part of its weight on a stack (bench/bench_sensors.py).
- A coin: 2.3 g (1 euro cent) to 13.2 g (5 Swiss francs), modelled without a field of its own: the 1, 2
  and 5 cent coins are copper-plated steel and bend a magnet's field, but at 2.3-3.9 g they are far from
  a checker's weight, and the heavier ones (copper-nickel, brass, Nordic gold) are not magnetic. Dice:
  one or two acrylic dice (1.19 g/cm3) of 16 or 19 mm, 4.7-15.6 g, or one or two 19 mm precision dice
  of cellulose acetate (1.3 g/cm3), 8.9 or 17.8 g (`DICE_G`): the electronic dice make them unnecessary,
  and a pair of 19 mm ones weighs 4 g or more short of a 22 g checker.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from firmware_host.sensing.geometry import CHECKERS_IN_A_ROW, Mechanics
from firmware_host.sensing.magnets import AXIAL, DIAMETRIC, DiscMagnet

SCAN_S = 1 / 40                  # the firmware's scan period at 40 Hz
CALIBRATION_MASS_G = 100.0       # hardware/README.md, "Calibration": span with a 100 g mass
CREEP_TIME_CONSTANT_S = 8 * 60   # creep of foil gauges on aluminium settles over minutes (first order)
COINS_G = (2.30, 3.06, 3.92, 5.74, 7.50, 8.50, 13.20)   # euro 1c, 2c, 5c, 20c, 1 euro, 2 euro; 5 CHF
# Dice left on a point: acrylic (1.19 g/cm3) cubes with rounded corners and drilled pips, about 5 % under a
# full cube, one or two of 16 mm or 19 mm; and precision (casino) dice, sharp 19 mm cubes of cellulose acetate
# (1.3 g/cm3) with filled pips, one or two.
DICE_G = (4.7, 7.8, 9.4, 15.6, 8.9, 17.8)


@dataclass(frozen=True)
class LoadCellFigures:
    """A bar load cell's datasheet figures (fractions of full scale unless named otherwise)."""

    capacity_g: float = 500.0
    rated_output_mv_per_v: float = 1.0
    nonlinearity_fs: float = 0.0005
    hysteresis_fs: float = 0.0005
    creep_per_30_min: float = 0.001          # of the applied load
    zero_tc_fs_per_10c: float = 0.0005
    span_tc_per_10c: float = 0.0005          # of the applied load
    off_centre_per_cm: float = 0.0002        # of the applied load, per cm of the load's offset

    def scaled(self, factor: float) -> LoadCellFigures:
        """Every error figure times `factor` (a cell better or worse than its datasheet)."""
        return replace(self, nonlinearity_fs=self.nonlinearity_fs * factor, hysteresis_fs=self.hysteresis_fs * factor,
                       creep_per_30_min=self.creep_per_30_min * factor,
                       zero_tc_fs_per_10c=self.zero_tc_fs_per_10c * factor,
                       span_tc_per_10c=self.span_tc_per_10c * factor, off_centre_per_cm=self.off_centre_per_cm * factor)


@dataclass(frozen=True)
class AdcFigures:
    """The NAU7802 as the firmware sets it up (tavli_mcu/loadcells.py): gain 128, 80 samples/s, its LDO
    at 3.0 V exciting the bridge and serving as the reference."""

    gain: int = 128
    noise_nv_rms_10sps: float = 50.0
    samples_per_s: int = 80
    excitation_v: float = 3.0

    @property
    def noise_v_rms(self) -> float:
        return self.noise_nv_rms_10sps * 1e-9 * math.sqrt(self.samples_per_s / 10)

    def counts_per_volt(self) -> float:
        return (1 << 24) * self.gain / self.excitation_v


@dataclass(frozen=True)
class CheckerSet:
    """How a maker's checkers weigh: a nominal mass per colour, their spread and what humidity does."""

    white_g: float = 16.0
    black_g: float = 16.0
    tolerance: float = 0.01                  # each checker within ± this fraction of its nominal mass
    moisture_per_rh: float = 0.00002         # mass fraction gained per % relative humidity (moulded resin)

    WOOD_MOISTURE_PER_RH = 0.002             # wood: ~0.2 % of its mass per % RH (see the module docstring)

    def masses(self, rng: np.random.Generator, shape: tuple[int, ...], colour_index: int,
               humidity_change_rh: float = 0.0) -> np.ndarray:
        """Masses of individual checkers of one colour (0 white, 1 black), uniform within the tolerance,
        after the air's humidity changed by `humidity_change_rh` % since they were made."""
        nominal = (self.white_g, self.black_g)[colour_index]
        spread = rng.uniform(-self.tolerance, self.tolerance, shape)
        return nominal * (1 + spread) * (1 + self.moisture_per_rh * humidity_change_rh)


@dataclass(frozen=True)
class HallFigures:
    """The colour sensor under a location's seat and the checkers' magnets: distances from the board
    file's `[mechanics]` (`for_mechanics`), tolerances and noise from the datasheets."""

    depth_mm: float                          # the sensor's die to the bottom magnet's centre
    checker_height_mm: float                 # magnet to magnet up a stack
    magnet: DiscMagnet
    placement_mm: float                      # the first checker's magnet within this of the sensor (its seat's
                                             # recess lets it lie no further off)
    row_pitch_mm: float                      # from one checker's place in the row along the point to the next
    row_across_mm: float                     # a checker in the row lies within this of the tray's centre line
    row_rise_mm: float                       # a checker off the seat lies this much higher (the seat's recess)
    stack_offset_mm: float = 3.0             # a checker on a stack lies within this of the one below it
    row_gap_mm: float = 2.0                  # a checker in the row lies up to this beyond touching the one before
    magnet_tolerance: float = 0.05           # N35 remanence, ±5 %
    noise_mt: float = 0.15                   # per axis, RMS (TMAG5273 averaging 16 conversions)

    @classmethod
    def for_mechanics(cls, mechanics: Mechanics, **changes) -> HallFigures:
        """`changes`: fields other than the board's (a checker off its seat: `placement_mm`)."""
        return replace(cls(mechanics.hall_depth_mm, mechanics.checker_height_mm, mechanics.magnet,
                           mechanics.seat_clearance_mm + MAGNET_CENTRING_MM, mechanics.checker_diameter_mm,
                           (mechanics.tray_width_mm - mechanics.checker_diameter_mm) / 2, mechanics.seat_depth_mm),
                       **changes)


def checker_places(levels: int, pinned: bool) -> tuple[np.ndarray, np.ndarray]:
    """(place in the row, layer) of each checker of a location, in the order they came: a row of
    CHECKERS_IN_A_ROW from the seat (place 0) inward, then a second layer from the seat, and so on. A pinning
    checker lies on the one it pins, on the seat; its side's next checkers go on in the row."""
    slots = [(place, layer) for layer in range(levels) for place in range(CHECKERS_IN_A_ROW)]
    if pinned:
        slots.remove((0, 1))
        slots.insert(1, (0, 1))
    places, layers = zip(*slots[:levels])
    return np.array(places), np.array(layers)


MAGNET_CENTRING_MM = 0.3     # a magnet in its drilled pocket lies within this of its checker's centre
POLARITY, AXIS = "polarity", "axis"   # colour by the magnet's pole (before issue 32) or by its axis


def _elements(magnet: DiscMagnet, axis: str) -> tuple[np.ndarray, np.ndarray]:
    """(positions mm, moments A m^2) of a disc's volume elements, for the vectorised field."""
    cells = magnet.elements(axis, rings=3, layers=1)
    return np.array([position for position, _ in cells]), np.array([moment for _, moment in cells])


def hall_field(rng: np.random.Generator, colours: np.ndarray, figures: HallFigures, scheme: str = AXIS,
               wrong_pole_rate: float = 0.0, placement_mm: np.ndarray | None = None) -> np.ndarray:
    """(count, 3) fields in mT, without the sensor's noise, under the first checker of each location.

    `colours` (count, k): a location's checkers in the order they lie (`checker_places`): the seat's first, then
    the row along the point, then the layers on it (0 white, 1 black, -1 none); a second checker of the other
    colour than the first pins it (lies on it).
    Colour by AXIS: white checkers hold an axial disc, black ones a diametric one, each lying either face
    up and turned any way. Colour by POLARITY: an axial disc in each, north up in white ones, south up in
    black ones, but a share `wrong_pole_rate` of the checkers lie the other pole up (turned over, or the
    magnet glued in backwards). `placement_mm` (count, 2): the first magnet's offset from the sensor
    (drawn within the seat if None); the row's checkers lie along +x from it, each up to `row_gap_mm` beyond
    touching the one before and anywhere across the tray; a checker on another lies within `stack_offset_mm`
    of it."""
    count, levels = colours.shape
    if placement_mm is None:
        radius = figures.placement_mm * np.sqrt(rng.random(count))
        angle = rng.uniform(0, 2 * np.pi, count)
        placement_mm = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    # Where each place of the row lies (place 0: the seat), then each layer on it.
    along = np.cumsum(figures.row_pitch_mm + rng.uniform(0, figures.row_gap_mm, (count, CHECKERS_IN_A_ROW)), axis=1)
    rows_xy = np.stack([along - along[:, :1], rng.uniform(-figures.row_across_mm, figures.row_across_mm,
                                                          (count, CHECKERS_IN_A_ROW))], axis=2)
    rows_xy[:, 0] = placement_mm
    layers_up = -(-levels // CHECKERS_IN_A_ROW) + 1    # and a pinning checker's on the seat
    step = rng.uniform(-1, 1, (count, layers_up, CHECKERS_IN_A_ROW, 2)) * figures.stack_offset_mm / np.sqrt(2)
    step[:, 0] = 0.0
    stacked_xy = rows_xy[:, None] + np.cumsum(step, axis=1)          # (count, layer, place, 2)
    pinned = (colours[:, 1] >= 0) & (colours[:, 1] != colours[:, 0]) if levels > 1 else np.zeros(count, dtype=bool)
    centres_xy = np.empty((count, levels, 2))
    heights = np.empty((count, levels))
    for is_pinned in (False, True):
        places, layers = checker_places(levels, is_pinned)
        chosen = pinned == is_pinned
        centres_xy[chosen] = stacked_xy[chosen][:, layers, places]
        heights[chosen] = (figures.depth_mm + figures.checker_height_mm * layers
                           + np.where(places > 0, figures.row_rise_mm, 0.0))[None, :]
    if scheme == AXIS:
        pole = rng.choice((-1.0, 1.0), (count, levels))
        diametric = colours == 1
    else:
        pole = np.where(colours == 0, 1.0, -1.0) * np.where(rng.random((count, levels)) < wrong_pole_rate, -1.0, 1.0)
        diametric = np.zeros_like(colours, dtype=bool)
    strength = pole * (1 + rng.uniform(-figures.magnet_tolerance, figures.magnet_tolerance, (count, levels)))
    strength = np.where(colours >= 0, strength, 0.0)
    turn = rng.uniform(0, 2 * np.pi, (count, levels))
    cos, sin = np.cos(turn)[..., None], np.sin(turn)[..., None]
    total = np.zeros((count, 3))
    for axis, chosen in ((AXIAL, ~diametric), (DIAMETRIC, diametric)):
        positions, moments = _elements(figures.magnet, axis)
        # each element turned about z with its checker, then placed at the checker's magnet
        px = cos * positions[None, None, :, 0] - sin * positions[None, None, :, 1] + centres_xy[..., 0, None]
        py = sin * positions[None, None, :, 0] + cos * positions[None, None, :, 1] + centres_xy[..., 1, None]
        pz = heights[..., None] + positions[None, None, :, 2]
        mx = cos * moments[None, None, :, 0] - sin * moments[None, None, :, 1]
        my = sin * moments[None, None, :, 0] + cos * moments[None, None, :, 1]
        mz = np.broadcast_to(moments[None, None, :, 2], mx.shape)
        weight = np.where(chosen, strength, 0.0)[..., None]
        x, y, z = -px / 1e3, -py / 1e3, -pz / 1e3          # from each element to the sensor, in m
        r2 = x * x + y * y + z * z
        m_dot_r = (mx * x + my * y + mz * z) * weight
        inverse3 = 1e-7 * 1e3 / (r2 * np.sqrt(r2))         # mu0 / 4 pi, in mT
        for index, (c, m) in enumerate(((x, mx), (y, my), (z, mz))):
            total[:, index] += (inverse3 * (3 * m_dot_r * c / r2 - m * weight)).sum(axis=(1, 2))
    return total


def sensor_noise(rng: np.random.Generator, figures: HallFigures, shape: tuple[int, ...]) -> np.ndarray:
    """The colour sensor's noise, mT, on each of its three axes."""
    return rng.normal(0, figures.noise_mt, (*shape, 3))


@dataclass
class Environment:
    """What the room does to the board, relative to when it was calibrated."""

    temperature_change_c: float = 0.0
    humidity_change_rh: float = 0.0


@dataclass
class WeighedLocations:
    """`count` load cells with their NAU7802s, each cell with its own errors drawn within the datasheet.

    `load(grams, offset_cm)` puts loads on the cells (one per location), `advance(seconds)` lets
    creep run, `raw()` is a conversion of every ADC. `calibrate()` does what calibrate.py does on the
    Pico (tare empty, span with 100 g, at the calibration temperature) and returns (zero, counts/g).
    """

    count: int
    rng: np.random.Generator
    cell: LoadCellFigures = field(default_factory=LoadCellFigures)
    adc: AdcFigures = field(default_factory=AdcFigures)
    environment: Environment = field(default_factory=Environment)

    def __post_init__(self) -> None:
        rng, n, cell = self.rng, self.count, self.cell
        self._nonlinearity = rng.uniform(-1, 1, n) * cell.nonlinearity_fs * cell.capacity_g
        self._hysteresis = rng.uniform(0, 1, n) * cell.hysteresis_fs * cell.capacity_g
        self._creep = rng.uniform(-1, 1, n) * cell.creep_per_30_min / (1 - math.exp(-1800 / CREEP_TIME_CONSTANT_S))
        self._zero_tc = rng.uniform(-1, 1, n) * cell.zero_tc_fs_per_10c * cell.capacity_g / 10
        self._span_tc = rng.uniform(-1, 1, n) * cell.span_tc_per_10c / 10
        self._off_centre = rng.uniform(-1, 1, n) * cell.off_centre_per_cm
        # The bridge's zero balance (up to ±10 % of its output) and its sensitivity (±15 %, TAL220 datasheet).
        volts_per_g = cell.rated_output_mv_per_v * 1e-3 * self.adc.excitation_v / cell.capacity_g
        self._counts_per_g = volts_per_g * self.adc.counts_per_volt() * rng.uniform(0.85, 1.15, n)
        self._zero_counts = rng.uniform(-0.1, 0.1, n) * cell.capacity_g * self._counts_per_g
        self._noise_g = self.adc.noise_v_rms / volts_per_g
        self._load = np.zeros(n)
        self._offset = np.zeros(n)
        self._creep_g = np.zeros(n)
        self._unloading = np.zeros(n, dtype=bool)

    def load(self, grams: np.ndarray, offset_cm: np.ndarray | None = None,
             unloading: np.ndarray | None = None) -> None:
        """The loads now on the cells; a lighter load than before is on the unloading branch of hysteresis
        (or as `unloading` says, for cells whose history is not simulated)."""
        grams = np.asarray(grams, dtype=float)
        changed = grams != self._load
        self._unloading = np.where(changed, grams < self._load, self._unloading) if unloading is None else unloading
        self._load = grams
        if offset_cm is not None:
            self._offset = np.asarray(offset_cm, dtype=float)

    def advance(self, seconds: float | np.ndarray) -> None:
        """Creep follows the load with its time constant; after unloading it recovers the same way."""
        settled = self._creep * self._load
        self._creep_g = settled + (self._creep_g - settled) * np.exp(-np.asarray(seconds) / CREEP_TIME_CONSTANT_S)

    def _response_g(self, grams: np.ndarray, temperature_change_c: float, unloading: np.ndarray,
                    creep_g: np.ndarray, offset_cm: np.ndarray) -> np.ndarray:
        """The cell's output in grams of its nominal sensitivity, without noise."""
        u = grams / self.cell.capacity_g
        bow = 4 * u * (1 - u)                # the end-point non-linearity and hysteresis peak mid-scale
        return (grams * (1 + self._span_tc * temperature_change_c + self._off_centre * offset_cm)
                + self._nonlinearity * bow + np.where(unloading, self._hysteresis * bow, 0.0)
                + creep_g + self._zero_tc * temperature_change_c)

    def raw(self) -> np.ndarray:
        """One conversion of every ADC: signed 24-bit counts."""
        noisy = self.raw_without_noise() + self.rng.normal(0, self._noise_g, self.count) * self._counts_per_g
        return np.clip(np.rint(noisy), -(1 << 23), (1 << 23) - 1)

    def raw_without_noise(self) -> np.ndarray:
        """The ADC value each cell settles at (what averaging many conversions finds)."""
        env = self.environment
        grams = self._response_g(self._load, env.temperature_change_c, self._unloading, self._creep_g, self._offset)
        return self._zero_counts + grams * self._counts_per_g

    def calibrate(self) -> tuple[np.ndarray, np.ndarray]:
        """(zero counts, counts per gram) as tare and span with 100 g at the calibration temperature find them
        (averaged over 40 conversions, so without noise)."""
        nothing = np.zeros(self.count)
        centred = np.zeros(self.count)
        empty = self._zero_counts + self._response_g(nothing, 0.0, nothing.astype(bool), nothing, centred) * self._counts_per_g
        span_mass = np.full(self.count, CALIBRATION_MASS_G)
        loaded = self._zero_counts + self._response_g(span_mass, 0.0, nothing.astype(bool), nothing,
                                                       centred) * self._counts_per_g
        return empty, (loaded - empty) / CALIBRATION_MASS_G

    @property
    def noise_g(self) -> float:
        return self._noise_g


def hand_force_g(rng: np.random.Generator, count: int, scans: int, scan_s: float = SCAN_S,
                 unsteadiness: float = 1.0) -> np.ndarray:
    """(count, scans) forces of fingers resting on locations (see the module docstring); `unsteadiness`
    scales the tremor and the drift (0.1: ten times steadier than the steadiest fingers measured)."""
    force = rng.uniform(5, 300, (count, 1))
    tremor_hz = rng.uniform(8, 12, (count, 1))
    phase = rng.uniform(0, 2 * math.pi, (count, 1))
    t = np.arange(scans) * scan_s
    tremor = unsteadiness * rng.uniform(0.01, 0.04, (count, 1)) * np.sin(2 * math.pi * tremor_hz * t + phase)
    drift = unsteadiness * rng.uniform(0.05, 0.10, (count, 1)) * np.sin(
        2 * math.pi * t / rng.uniform(1, 4, (count, 1)) + phase)
    return force * (1 + tremor + drift)
