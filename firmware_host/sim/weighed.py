"""The simulated MCU's sensors through the physical model: the firmware's own scan decodes real-ish ADC values.

With a `WeighedBoard` the simulated MCU no longer hands the node perfect counts: every scan the
checkers on each location (from the `SimBoard`) become a load on that location's modelled cell
(firmware_host.sim.physics), its NAU7802 converts, and the firmware's `LoadCellSensors` decodes with
the calibration the Pico would have found (tare empty, span 100 g) and the board file's masses. So
a channel reads nothing, or a wrong layout, exactly where the reference design would. Coins, fingers
and checkers across two strips are `extra_load`s.
"""
from __future__ import annotations

import numpy as np

from firmware_host.sensing.channels import UNUSED, ChannelMap
from firmware_host.sensing.config import McuSettings, SensingConfig
from firmware_host.sim.firmware import firmware_module
from firmware_host.sim.physics import CheckerSet, Environment, LoadCellFigures, WeighedLocations

POINT_BASE_CM = -10.0     # a point's first checker lies at its base, 10 cm from the cell under the strip's middle
CHECKER_PITCH_CM = 3.6    # checkers lie in rows of five along the point
MAX_PER_COLOUR = 15


class _ModelledBank:
    """What LoadCellSensors needs of a Nau7802Bank: the channel count and a conversion per channel."""

    def __init__(self, channels: int) -> None:
        self.channels = channels
        self.values: list[int] = [0] * channels

    def read_raw(self, channel: int) -> int:
        return self.values[channel]


class WeighedBoard:
    def __init__(self, channels: ChannelMap, mcu: McuSettings, seed: int, *,
                 cell: LoadCellFigures = LoadCellFigures(), environment: Environment | None = None,
                 checker_tolerance_g: float = 0.1) -> None:
        rng = np.random.default_rng(seed)
        self.channels = channels
        self.cells = WeighedLocations(channels.channel_count, rng, cell, environment=environment or Environment())
        zero, counts_per_gram = self.cells.calibrate()
        weighing = firmware_module("weighing")
        calibration = weighing.Calibration([float(z) for z in zero], [float(c) for c in counts_per_gram])
        decoder = weighing.MassDecoder(mcu.white_checker_g, mcu.black_checker_g, mcu.mass_tolerance_g)
        self._bank = _ModelledBank(channels.channel_count)
        self.sensors = firmware_module("loadcells").LoadCellSensors(self._bank, calibration, decoder)
        # Each location gets its own checkers of the set: the n-th checker of a colour on it weighs masses[..., n].
        nominal = (mcu.white_checker_g, mcu.black_checker_g)
        checkers = CheckerSet(nominal[0], nominal[1], checker_tolerance_g / max(nominal))
        shape = (channels.channel_count, MAX_PER_COLOUR + 1)
        self._masses = np.stack([checkers.masses(rng, shape, colour, self.cells.environment.humidity_change_rh)
                                 for colour in (0, 1)], axis=1)
        self._extra = np.zeros(channels.channel_count)
        self._unused = np.array([name == UNUSED for name in channels.locations])

    @classmethod
    def for_config(cls, config: SensingConfig, seed: int) -> WeighedBoard:
        """The board file's channels and checker masses, cells drawn within the datasheet from `seed`."""
        return cls(config.sensors.channels, config.sensors.mcu, seed)

    def extra_load(self, location: str, grams: float) -> None:
        """A coin, a finger's press or part of a checker across two strips on `location` (0 removes it)."""
        self._extra[self.channels.channel_of(location)] = grams

    def read(self, counts: list[tuple[int, int]], seconds: float) -> list[tuple[int, int] | None]:
        """One scan `seconds` after the last: (white, black) per channel as the firmware decodes it, None
        where the mass is no layout."""
        held = np.array(counts).reshape(-1, 2)
        ranks = np.arange(MAX_PER_COLOUR + 1)[None, :]
        loads = sum(np.where(ranks < held[:, colour, None], self._masses[:, colour], 0.0).sum(axis=1)
                    for colour in (0, 1)) + self._extra
        in_row = np.minimum(held.sum(axis=1), 5)
        offsets = POINT_BASE_CM + CHECKER_PITCH_CM * np.maximum(in_row - 1, 0) / 2
        self.cells.load(np.where(self._unused, 0.0, loads), offsets)
        self.cells.advance(seconds)
        self._bank.values = [int(value) for value in self.cells.raw()]
        return self.sensors.read_counts()
