"""The physical model of weighed locations holds to the datasheet figures it cites, and the simulated MCU
reads through it with the firmware's own decoder."""
import dataclasses
from dataclasses import replace

import numpy as np
import pytest

from firmware_host.maker.mechanics import load_mechanics
from firmware_host.sensing.config import DEFAULT_BOARD_FILE, load_sensing_config
from firmware_host.wiring import BoardFacts
from firmware_host.sim.physics import (AXIS, CREEP_TIME_CONSTANT_S, POLARITY, AdcFigures, CheckerSet, HallFigures,
                                       LoadCellFigures, WeighedLocations, hall_field, hand_force_g)
from firmware_host.sim.weighed import WeighedBoard

CELLS = 2000
FULL_SCALE_G = LoadCellFigures().capacity_g
# Readings below are means of 10 conversions (0.007 g RMS each); differences of two over 2000 cells reach 0.04 g.


def cells(seed=1, **figures):
    locations = WeighedLocations(CELLS, np.random.default_rng(seed), LoadCellFigures(**figures))
    zero, counts_per_gram = locations.calibrate()
    return locations, lambda: (locations.raw() - zero) / counts_per_gram


def test_the_same_seed_gives_the_same_conversions_and_another_seed_others():
    first, read_first = cells(seed=7)
    again, read_again = cells(seed=7)
    other, read_other = cells(seed=8)
    for locations in (first, again, other):
        locations.load(np.full(CELLS, 48.0))
    assert np.array_equal(read_first(), read_again())
    assert not np.array_equal(read_first(), read_other())


def test_an_empty_cell_reads_zero_with_the_nau7802_noise_at_80_samples_per_second():
    _, read = cells()
    samples = np.stack([read() for _ in range(50)])
    expected_noise_g = 141e-9 / (1e-3 * 3.0 / FULL_SCALE_G)      # 141 nV over 6.0 µV per gram (a 3.0 V LDO)
    assert AdcFigures().noise_v_rms == pytest.approx(141e-9, rel=0.01)
    assert samples.std() == pytest.approx(expected_noise_g, rel=0.05)
    assert abs(samples.mean()) < 0.005


def test_calibration_reads_its_own_100_g_span_mass_exactly_but_not_other_loads():
    locations, read = cells(nonlinearity_fs=0.0005, hysteresis_fs=0, creep_per_30_min=0)
    locations.load(np.full(CELLS, 100.0))
    assert np.abs(np.mean([read() for _ in range(20)], axis=0) - 100.0).max() < 0.04
    locations.load(np.full(CELLS, 250.0))
    error = np.mean([read() for _ in range(20)], axis=0) - 250.0
    # Non-linearity is 0.05 % of 500 g at most mid-scale; the span at 100 g carries part of it up the scale.
    assert 0.1 < np.abs(error).max() < 0.25 + 0.25 * 250 / 100 * 0.64


def test_creep_under_load_stays_within_the_datasheet_over_30_minutes_and_recovers_after_unloading():
    locations, read = cells(nonlinearity_fs=0, hysteresis_fs=0)
    load = np.full(CELLS, 240.0)
    locations.load(load)
    fresh = np.mean([read() for _ in range(10)], axis=0)
    locations.advance(1800)
    crept = np.mean([read() for _ in range(10)], axis=0) - fresh
    assert np.abs(crept).max() <= 0.001 * 240 + 0.04       # with the noise of two means of 10
    assert np.abs(crept).max() > 0.5 * 0.001 * 240          # some cells use most of their allowance
    locations.load(np.zeros(CELLS))
    just_unloaded = np.mean([read() for _ in range(10)], axis=0)
    locations.advance(10 * CREEP_TIME_CONSTANT_S)
    recovered = np.mean([read() for _ in range(10)], axis=0)
    assert np.abs(just_unloaded).max() > 0.1                  # the zero returns only slowly
    assert np.abs(recovered).max() < 0.04


def test_temperature_moves_zero_and_span_within_their_coefficients():
    locations, read = cells(nonlinearity_fs=0, hysteresis_fs=0, creep_per_30_min=0, off_centre_per_cm=0)
    locations.environment.temperature_change_c = 10
    zero_shift = np.mean([read() for _ in range(10)], axis=0)
    assert 0.15 < np.abs(zero_shift).max() <= 0.0005 * FULL_SCALE_G + 0.04
    locations.load(np.full(CELLS, 200.0))
    span_shift = np.mean([read() for _ in range(10)], axis=0) - zero_shift - 200.0
    assert 0.05 < np.abs(span_shift).max() <= 0.0005 * 200 + 0.04


def test_hysteresis_reads_a_load_reached_from_above_heavier_than_from_below():
    locations, read = cells(nonlinearity_fs=0, creep_per_30_min=0)
    locations.load(np.full(CELLS, 250.0))
    rising = np.mean([read() for _ in range(10)], axis=0)
    locations.load(np.full(CELLS, 400.0))
    locations.load(np.full(CELLS, 250.0))
    falling = np.mean([read() for _ in range(10)], axis=0)
    assert (falling - rising).min() > -0.04
    assert 0.1 < (falling - rising).max() <= 0.0005 * FULL_SCALE_G + 0.04


def test_off_centre_loads_read_in_proportion_to_the_offset():
    locations, read = cells(nonlinearity_fs=0, hysteresis_fs=0, creep_per_30_min=0)
    locations.load(np.full(CELLS, 200.0), np.full(CELLS, 10.0))
    error = np.mean([read() for _ in range(10)], axis=0) - 200.0
    assert 0.2 < np.abs(error).max() <= 0.0002 * 10 * 200 + 0.04


def test_checkers_spread_within_their_tolerance_and_wood_takes_up_water():
    rng = np.random.default_rng(3)
    resin = CheckerSet(16.0, 16.0, tolerance=0.01).masses(rng, (10_000,), 0)
    assert 15.84 <= resin.min() and resin.max() <= 16.16 and resin.std() > 0.05
    wood = CheckerSet(16.0, 16.0, tolerance=0.0, moisture_per_rh=CheckerSet.WOOD_MOISTURE_PER_RH)
    assert wood.masses(rng, (1,), 0, humidity_change_rh=20.0)[0] == pytest.approx(16.0 * 1.04)


def angle_from_vertical(fields):
    return np.degrees(np.arctan2(np.hypot(fields[:, 0], fields[:, 1]), np.abs(fields[:, 2])))


def test_the_hall_sensor_sees_the_bottom_magnets_axis_whichever_face_is_up_and_through_a_stack(mechanics):
    rng = np.random.default_rng(4)
    figures = HallFigures.for_mechanics(mechanics)
    stacks = {"white": [0, -1, -1, -1, -1], "black": [1, -1, -1, -1, -1], "white under black": [0, 1, 1, 1, 1],
              "black under white": [1, 0, 0, 0, 0], "empty": [-1] * 5}
    seen = {name: hall_field(rng, np.array([colours] * 2000), figures) for name, colours in stacks.items()}
    for name in ("white", "white under black"):
        assert angle_from_vertical(seen[name]).max() < 28 and (seen[name][:, 2] < 0).any() and (seen[name][:, 2] > 0).any()
    for name in ("black", "black under white"):
        assert angle_from_vertical(seen[name]).min() > 40
    assert np.linalg.norm(seen["empty"], axis=1).max() == 0.0
    centred = np.zeros((1, 2))
    white = hall_field(rng, np.array([stacks["white"]]), replace(figures, magnet_tolerance=0.0), placement_mm=centred)
    assert np.linalg.norm(white) == pytest.approx(mechanics.centred_field_mt("axial"), rel=0.05)


def test_colour_by_polarity_reads_a_checker_turned_over_as_the_other_colour(mechanics):
    rng = np.random.default_rng(5)
    figures = HallFigures.for_mechanics(mechanics)
    fields = hall_field(rng, np.array([[0, -1, -1, -1, -1]] * 1000), figures, POLARITY, wrong_pole_rate=0.1)
    assert 50 < (fields[:, 2] < 0).sum() < 150          # a tenth of the white ones show a south pole
    fields = hall_field(rng, np.array([[0, -1, -1, -1, -1]] * 1000), figures, AXIS, wrong_pole_rate=0.1)
    assert angle_from_vertical(fields).max() < 28        # colour by axis: every one of them still white


def test_a_resting_finger_wavers():
    forces = hand_force_g(np.random.default_rng(5), 100, 80)
    assert forces.min() > 0 and forces.max() < 400
    assert (forces.max(axis=1) - forces.min(axis=1)).min() > 0.3


SHIPPED = load_sensing_config()
_FACTS = BoardFacts.load(DEFAULT_BOARD_FILE)
MECHANICS = load_mechanics(DEFAULT_BOARD_FILE, _FACTS.sensing, _FACTS.leds.layout)


@pytest.fixture
def mechanics():
    return MECHANICS
# The old scheme, colour by mass (the board file's default is colour by magnet, MAGNET below).
CONFIG = dataclasses.replace(SHIPPED, sensors=dataclasses.replace(
    SHIPPED.sensors, mcu=dataclasses.replace(SHIPPED.sensors.mcu, colour_by="mass")))


def stacks_of(counts):
    """Stacks, bottom first, for (white, black) counts: the lone checker of a mixed point at the bottom."""
    return [("white",) * w + ("black",) * b if w <= b else ("black",) * b + ("white",) * w for w, b in counts]


def test_colour_by_mass_reads_through_the_firmwares_decoder_and_fails_where_that_scheme_does():
    weighed = WeighedBoard.for_config(CONFIG, MECHANICS, seed=1)
    counts = [(0, 0)] * CONFIG.sensors.channels.channel_count
    counts[0], counts[5], counts[11] = (2, 0), (0, 5), (1, 1)
    assert weighed.read(stacks_of(counts), 0.025) == counts
    weighed.extra_load("point:1", 5.0)          # a coin on two white checkers: 37 g is 1 white + 1 black + 4 g
    assert weighed.read(stacks_of(counts), 0.025)[0] is None
    weighed.extra_load("point:1", 1.0)          # 33 g: read as one white and one black
    assert weighed.read(stacks_of(counts), 0.025)[0] == (1, 1)


MAGNET = dataclasses.replace(CONFIG.sensors.mcu, colour_by="magnet")


def magnet_board(seed=1):
    return WeighedBoard(CONFIG.sensors.channels, MAGNET, MECHANICS, seed)


def scans(weighed, stacks, count=12):
    """The last of `count` scans (the steadiness window is 8)."""
    for _ in range(count):
        last = weighed.read(stacks, 0.025)
    return last


def test_colour_by_magnet_reports_the_count_in_the_bottom_checkers_colour():
    weighed = magnet_board()
    stacks = [()] * CONFIG.sensors.channels.channel_count
    stacks[0] = ("white", "white")
    stacks[5] = ("black",) * 5
    stacks[19] = ("black", "white", "white", "white")       # a black checker pinned under three white
    stacks[23] = ("white",) * 15
    read = scans(weighed, stacks)
    assert (read[0], read[5], read[19], read[23]) == ((2, 0), (0, 5), (0, 4), (15, 0))
    assert read[1] == (0, 0)


def test_colour_by_magnet_reads_no_coin_no_finger_and_no_checker_off_its_seat_as_checkers():
    weighed = magnet_board(seed=3)
    stacks = [()] * CONFIG.sensors.channels.channel_count
    stacks[0] = ("white", "white")
    weighed.extra_load("point:2", 13.2)      # a 5 CHF coin on an empty point: about one checker, no magnet
    weighed.extra_load("point:1", 7.5)       # a euro coin on two checkers: half way between counts
    read = scans(weighed, stacks)
    assert read[1] is None and read[0] is None
    weighed.extra_load("point:2", 0.0)
    weighed.extra_load("point:1", 0.0)
    assert scans(weighed, stacks)[:2] == [(2, 0), (0, 0)]
    forces = hand_force_g(np.random.default_rng(6), 1, 40)[0]
    decoded = []
    for force in forces:                       # a finger resting on the two checkers for a second
        weighed.extra_load("point:1", float(force))
        decoded.append(weighed.read(stacks, 0.025)[0])
    assert set(decoded) <= {None, (2, 0)}


class Wire:
    """A transport that drops what the MCU sends and never has a command for it."""
    port = "test"

    def read(self):
        return b""

    def write(self, data):
        pass


def test_the_simulated_mcu_with_weighing_debounces_what_the_model_decodes():
    from firmware_host.sensing.clock import ManualClock
    from firmware_host.sim.board import SimBoard
    from firmware_host.sim.mcu import SimulatedMcu
    from sim_rig import OPENING

    clock = ManualClock(0.0)
    weighed = WeighedBoard.for_config(CONFIG, MECHANICS, seed=2)
    mcu = SimulatedMcu(SimBoard(OPENING), CONFIG.sensors.channels, Wire(), clock=clock, weighing=weighed)
    for _ in range(4):
        clock.advance(0.025)
        mcu.step()
    assert CONFIG.sensors.channels.reading(tuple(mcu.node.debouncer.stable)) == OPENING
    weighed.extra_load("point:6", 11.0)      # 5 white + 11 g = 91 g lies between layouts
    six = CONFIG.sensors.channels.channel_of("point:6")
    for _ in range(4):
        clock.advance(0.025)
        mcu.step()
    assert mcu.node.debouncer.stable[six] == (5, 0)   # no layout: the firmware keeps the last count
    weighed.extra_load("point:6", 17.0)      # 97 g: 5 white and 1 black to the old scheme
    for _ in range(4):
        clock.advance(0.025)
        mcu.step()
    assert mcu.node.debouncer.stable[six] == (5, 1)


def test_the_board_files_field_limits_fit_the_fields_its_mechanics_give(mechanics):
    # [sensors.mcu]'s limits and [mechanics]'s magnet and depth are two tables of one file: they must agree
    rng = np.random.default_rng(8)
    figures = replace(HallFigures.for_mechanics(mechanics), noise_mt=0.0)
    limits = SHIPPED.sensors.mcu

    def strengths(colours):
        return np.linalg.norm(hall_field(rng, np.array([colours] * 5000), figures), axis=1)

    assert strengths([0, 1, 1, 1, 1]).min() > limits.white_field_min_mt
    assert strengths([1, 0, 0, 0, 0]).max() < limits.black_field_max_mt
    assert strengths([1, 1, 1, 1, 1]).min() > limits.hall_threshold_mt


def test_the_sensor_under_the_seat_sees_the_checkers_on_the_seat_not_those_beside_it_in_the_row(mechanics):
    # Checkers lie in a row of five along the point from the seat, then a layer on it: the second checker's
    # magnet lies 38 mm from the sensor, the sixth's on the seat's checker, 8 mm above its magnet; a pinning
    # checker lies on the one it pins.
    figures = replace(HallFigures.for_mechanics(mechanics), noise_mt=0.0)

    def change(before, after):
        seed = 11
        lie = [hall_field(np.random.default_rng(seed), np.array([colours] * 2000), figures) for colours in (before, after)]
        return np.linalg.norm(lie[1] - lie[0], axis=1)

    row = [0] * 5 + [-1] * 5
    assert change([0] + [-1] * 9, [0, 0] + [-1] * 8).max() < 0.1                        # the second, in the row
    assert change(row, [0] * 6 + [-1] * 4).min() > 0.3                                  # the sixth, on the seat's
    assert change([0] + [-1] * 9, [0, 1] + [-1] * 8).min() > 0.3                        # a black one pinning it


def test_the_seats_recess_keeps_the_first_checker_where_its_colour_reads(mechanics):
    # A checker in its seat lies within the recess's clearance of the sensor's axis: every white one reads white
    # (its field near vertical and strong), every black one black. A seat cut 2 mm wider all round lets the
    # first checker lie where a white one's field tilts and weakens into no colour or black.
    from firmware_host.sim.firmware import firmware_module

    counting = firmware_module("counting")
    limits = SHIPPED.sensors.mcu
    field_limits = (limits.hall_threshold_mt, limits.black_field_max_mt, limits.white_field_min_mt)

    def colours(seat_diameter_mm, bottom):
        seated = replace(mechanics, seat_diameter_mm=seat_diameter_mm)
        figures = replace(HallFigures.for_mechanics(seated), noise_mt=0.0)
        fields = hall_field(np.random.default_rng(4), np.array([[bottom, -1, -1, -1, -1]] * 3000), figures)
        return {counting.colour_of(tuple(field), field_limits) for field in fields.tolist()}

    assert colours(mechanics.seat_diameter_mm, 0) == {counting.WHITE}
    assert colours(mechanics.seat_diameter_mm, 1) == {counting.BLACK}
    assert colours(mechanics.seat_diameter_mm + 4, 0) != {counting.WHITE}


def test_a_steady_finger_of_a_checkers_weight_on_a_stack_is_a_fault_at_the_host_with_all_30_down():
    # A finger resting steadily with a checker's weight carries no magnet, and the sensor under the seat cannot
    # see whether a checker in the row or on a layer came: the location reads one more checker. Every checker of
    # the set lies on a sensed location, so the board then holds 31: the host's stabiliser calls it a fault,
    # never a board to judge.
    from firmware_host.sensing.events import BoardStable, FaultKind, SensorFault
    from firmware_host.sensing.stabiliser import Stabiliser

    weighed = magnet_board(seed=5)
    channels = CONFIG.sensors.channels
    stacks = [()] * channels.channel_count
    for point, stack in ((24, ("white",) * 2), (13, ("white",) * 5), (8, ("white",) * 3), (6, ("white",) * 5),
                         (1, ("black",) * 2), (12, ("black",) * 5), (17, ("black",) * 3), (19, ("black",) * 5)):
        stacks[channels.channel_of(f"point:{point}")] = stack
    stabiliser = Stabiliser(colour_by="magnet")
    stabiliser.feed(channels.reading(tuple(scans(weighed, stacks))), 0.0)
    assert stabiliser.tick(1.0) == [BoardStable(stabiliser.reading)] and stabiliser.reading.white.point(13) == 5
    weighed.extra_load("point:13", MAGNET.checker_g)
    read = scans(weighed, stacks, count=16)
    assert read[channels.channel_of("point:13")] == (6, 0)
    events = stabiliser.feed(channels.reading(tuple(read)), 2.0) + stabiliser.tick(12.0)
    assert [(event.location, event.kind) for event in events if isinstance(event, SensorFault)] == [
        ("point:13", FaultKind.TOO_MANY)]
    assert not any(isinstance(event, BoardStable) for event in events)


def test_no_pair_of_dice_and_no_coin_weighs_a_whole_number_of_checkers():
    # Dice left on a point and coins carry no magnet; with checkers of the board file's weight they fall outside
    # every count's window, so they are no reading, not a checker more (bench/bench_sensors.py: 0 misread).
    from firmware_host.sim.physics import COINS_G, DICE_G

    for grams in DICE_G + COINS_G:
        count = round(grams / SHIPPED.sensors.mcu.checker_g)
        assert abs(grams - count * SHIPPED.sensors.mcu.checker_g) > SHIPPED.sensors.mcu.count_window_g, grams
