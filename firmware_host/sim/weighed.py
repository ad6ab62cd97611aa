"""The simulated MCU's sensors through the physical model: the firmware's own scan decodes real-ish readings.

With a `WeighedBoard` the simulated MCU no longer hands the node perfect counts: every scan the
checkers on each location (from the `SimBoard`, bottom first) become a load on that location's
modelled cell (firmware_host.sim.physics), its NAU7802 converts, and the firmware's `LoadCellSensors`
decodes with the calibration the Pico would have found (tare empty, span 100 g) and the board file's
scheme: colour by mass (MassDecoder) or count by weight and colour by magnet (CountDecoder, with the
modelled field under each location's first checker). Distances come from the board's `[mechanics]`. So a channel reads nothing, or a wrong layout,
exactly where the reference design would. Coins, fingers and checkers across two strips are
`extra_load`s.
"""
from __future__ import annotations

import numpy as np

from firmware_host.sensing.channels import UNUSED, ChannelMap
from firmware_host.sensing.config import McuSettings, SensingConfig
from firmware_host.sensing.geometry import CHECKERS_IN_A_ROW, Mechanics
from firmware_host.sim.firmware import firmware_module
from firmware_host.sim.physics import (CheckerSet, Environment, HallFigures, LoadCellFigures, WeighedLocations,
                                       hall_field, sensor_noise)

MAX_STACK = 16
COLOURS = ("white", "black")


class _ModelledBank:
    """What LoadCellSensors needs of a Nau7802Bank (and of a HallBank): a value per channel."""

    def __init__(self, channels: int) -> None:
        self.channels = channels
        self.values: list = [0] * channels

    def read_raw(self, channel: int) -> int:
        return self.values[channel]

    def field_mt(self, channel: int) -> float:
        return self.values[channel]


class WeighedBoard:
    def __init__(self, channels: ChannelMap, mcu: McuSettings, mechanics: Mechanics, seed: int, *,
                 cell: LoadCellFigures = LoadCellFigures(), environment: Environment | None = None,
                 checker_tolerance: float | None = None) -> None:
        """`checker_tolerance`: each checker within ± this fraction of its mass (default: ±0.1 g colour by
        mass, as its BOM asks, ±1 % colour by magnet, moulded checkers)."""
        self.rng = rng = np.random.default_rng(seed)
        self.seed = seed
        self.channels = channels
        self.mechanics = mechanics
        self.hall = hall = HallFigures.for_mechanics(mechanics)
        self.cells = WeighedLocations(channels.channel_count, rng, cell, environment=environment or Environment())
        zero, counts_per_gram = self.cells.calibrate()
        weighing = firmware_module("weighing")
        calibration = weighing.Calibration([float(z) for z in zero], [float(c) for c in counts_per_gram])
        self._bank = _ModelledBank(channels.channel_count)
        self.magnet = mcu.colour_by == "magnet"
        if self.magnet:
            nominal = (mcu.checker_g, mcu.checker_g)
            decoder = firmware_module("counting").CountDecoder(
                channels.channel_count, mcu.checker_g, mcu.count_window_g, mcu.steady_g, mcu.steady_scans,
                (mcu.hall_threshold_mt, mcu.black_field_max_mt, mcu.white_field_min_mt))
            self._fields = _ModelledBank(channels.channel_count)
            radius = hall.placement_mm * np.sqrt(rng.random(channels.channel_count))
            angle = rng.uniform(0, 2 * np.pi, channels.channel_count)
            self._placement = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        else:
            nominal = (mcu.white_checker_g, mcu.black_checker_g)
            decoder = weighing.MassDecoder(mcu.white_checker_g, mcu.black_checker_g, mcu.mass_tolerance_g)
            self._fields = None
        self.sensors = firmware_module("loadcells").LoadCellSensors(self._bank, calibration, decoder, self._fields)
        if checker_tolerance is None:
            checker_tolerance = 0.01 if self.magnet else 0.1 / max(nominal)
        checkers = CheckerSet(nominal[0], nominal[1], checker_tolerance)
        # Each location gets its own checkers of the set: the n-th checker of a colour on it weighs masses[..., n].
        shape = (channels.channel_count, MAX_STACK)
        self._masses = np.stack([checkers.masses(rng, shape, colour, self.cells.environment.humidity_change_rh)
                                 for colour in (0, 1)], axis=1)
        self._extra = np.zeros(channels.channel_count)
        self._unused = np.array([name == UNUSED for name in channels.locations])

    @classmethod
    def for_config(cls, config: SensingConfig, mechanics: Mechanics, seed: int) -> WeighedBoard:
        """The board file's channels, sensing scheme and mechanics, cells drawn within the datasheet from `seed`."""
        return cls(config.sensors.channels, config.sensors.mcu, mechanics, seed)

    def extra_load(self, location: str, grams: float) -> None:
        """A coin, a finger's press or part of a checker across two strips on `location` (0 removes it)."""
        self._extra[self.channels.channel_of(location)] = grams

    def read(self, stacks: list[tuple[str, ...]], seconds: float) -> list[tuple[int, int] | None]:
        """One scan `seconds` after the last, of the stacks (colours bottom first) per channel: (white,
        black) per channel as the firmware decodes it, None where it gives no reading."""
        held = np.array([[stack.count(colour) for colour in COLOURS] for stack in stacks])
        ranks = np.arange(MAX_STACK)[None, :]
        loads = sum(np.where(ranks < held[:, colour, None], self._masses[:, colour], 0.0).sum(axis=1)
                    for colour in (0, 1)) + self._extra
        in_row = np.minimum(held.sum(axis=1), CHECKERS_IN_A_ROW)
        # the load's centre: the middle of the row of checkers from the seat, measured from the cell's load point
        offsets = (self.mechanics.checker_from_load_mm(0)
                   + self.mechanics.checker_diameter_mm * np.maximum(in_row - 1, 0) / 2) / 10
        self.cells.load(np.where(self._unused, 0.0, loads), offsets)
        self.cells.advance(seconds)
        self._bank.values = [int(value) for value in self.cells.raw()]
        if self._fields is not None:
            codes = [[COLOURS.index(colour) for colour in stack] + [-1] * (MAX_STACK - len(stack)) for stack in stacks]
            codes = np.array(codes, dtype=np.int64).reshape(len(stacks), MAX_STACK)
            # a layout's checkers lie as they lie (face up, turned) until it changes: drawn from the layout
            layout_rng = np.random.default_rng([self.seed, *codes.ravel() + 1])
            field = hall_field(layout_rng, codes, self.hall, placement_mm=self._placement)
            field = field + sensor_noise(self.rng, self.hall, (len(stacks),))
            self._fields.values = [tuple(float(value) for value in row) for row in field]
        return self.sensors.read_counts()
