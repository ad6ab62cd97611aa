"""A physical model of weighed board locations: what a load cell and its NAU7802 really report.

The simulated MCU's perfect sensors say exactly how many checkers lie on a location; real ones weigh
them. This model turns what lies on each location (checkers of a real, imperfect set, a hand, a coin,
a checker across two strips) into the 24-bit ADC value the firmware reads, with the errors the
datasheets specify, and into the field a Hall sensor under the location's first checker sees. Every
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
- Hall sensing (the colour of the bottom checker): a disc magnet in each checker, polarity by colour,
  seen by a linear Hall sensor under the first checker of the location as a point dipole; fields are
  in units of a centred bottom magnet's field, magnets vary ±5 % (N35 remanence tolerance) and the
  sensor's noise is 1 % of that field (TMAG5273 averaging 16 conversions, about 0.15 mT RMS against the
  15 mT of a 6 x 1 mm N35 disc 6.5 mm away).
- A hand: a finger resting on a point presses 5-300 g, wavering with a physiological tremor of
  8-12 Hz at a few % of the force and drifting slowly by 5-10 %.
- A coin: 2.3 g (1 euro cent) to 13.2 g (5 Swiss francs); not magnetic (copper-nickel, brass).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

SCAN_S = 1 / 40                  # the firmware's scan period at 40 Hz
CALIBRATION_MASS_G = 100.0       # hardware/README.md, "Calibration": span with a 100 g mass
CREEP_TIME_CONSTANT_S = 8 * 60   # creep of foil gauges on aluminium settles over minutes (first order)
COINS_G = (2.30, 3.06, 3.92, 5.74, 7.50, 8.50, 13.20)   # euro 1c, 2c, 5c, 20c, 1 euro, 2 euro; 5 CHF


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
    """A magnet in every checker (north up for white, south up for black) over a linear Hall sensor."""

    depth_mm: float = 6.5                    # sensor to the bottom magnet's centre: 3 mm board + half a checker
    checker_height_mm: float = 7.0           # magnet to magnet up a stack
    magnet_tolerance: float = 0.05
    noise: float = 0.01                      # RMS, in units of a centred bottom magnet's field
    placement_mm: float = 3.0                # the first checker's centre within this of the sensor (a seat)
    centred_mt: float = 15.0                 # a 6 x 1 mm N35 disc 6.5 mm above a TMAG5273 (Br 1.2 T, on axis)


def dipole_field(depth_mm: np.ndarray, offset_mm: np.ndarray, reference_depth_mm: float) -> np.ndarray:
    """The axial field of a point dipole at `depth_mm` above and `offset_mm` aside from the sensor,
    in units of the same dipole centred at `reference_depth_mm`."""
    z2, r2 = depth_mm ** 2, offset_mm ** 2
    return (2 * z2 - r2) / (z2 + r2) ** 2.5 / (2 / reference_depth_mm ** 3)


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


def hand_force_g(rng: np.random.Generator, count: int, scans: int, scan_s: float = SCAN_S) -> np.ndarray:
    """(count, scans) forces of fingers resting on locations (see the module docstring)."""
    force = rng.uniform(5, 300, (count, 1))
    tremor_hz = rng.uniform(8, 12, (count, 1))
    phase = rng.uniform(0, 2 * math.pi, (count, 1))
    t = np.arange(scans) * scan_s
    tremor = rng.uniform(0.01, 0.04, (count, 1)) * np.sin(2 * math.pi * tremor_hz * t + phase)
    drift = rng.uniform(0.05, 0.10, (count, 1)) * np.sin(2 * math.pi * t / rng.uniform(1, 4, (count, 1)) + phase)
    return force * (1 + tremor + drift)


def hall_field(rng: np.random.Generator, bottom_colour: np.ndarray, above: np.ndarray,
               figures: HallFigures = HallFigures(), placement_mm: np.ndarray | None = None) -> np.ndarray:
    """The field under the first checker of each location, in units of a centred magnet's: `bottom_colour`
    0 white, 1 black, -1 none; `above` (count, k) colours of the checkers stacked on it (-1 where none);
    `placement_mm` how far each first checker lies from its sensor (drawn within the figures' if None)."""
    count = len(bottom_colour)
    placement = (rng.uniform(-figures.placement_mm, figures.placement_mm, count) if placement_mm is None
                 else placement_mm)
    polarity = np.where(bottom_colour == 0, 1.0, -1.0) * (bottom_colour >= 0)
    strength = 1 + rng.uniform(-figures.magnet_tolerance, figures.magnet_tolerance, count)
    field_here = polarity * strength * dipole_field(np.full(count, figures.depth_mm), placement, figures.depth_mm)
    if above.size:
        levels = np.arange(1, above.shape[1] + 1) * figures.checker_height_mm + figures.depth_mm
        above_polarity = np.where(above == 0, 1.0, -1.0) * (above >= 0)
        field_here = field_here + (above_polarity * dipole_field(levels[None, :], placement[:, None],
                                                                 figures.depth_mm)).sum(axis=1)
    return field_here + rng.normal(0, figures.noise, count)
