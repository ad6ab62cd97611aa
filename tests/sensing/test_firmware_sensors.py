"""The reference design's sensor scan (NAU7802s and TMAG5273s behind TCA9548As) and mass decoding, over
register-level fakes of the chips (tests/sensing/micropython/i2c_chips.py) on a virtual clock."""
import ast
import math
import runpy

import pytest
from hypothesis import given, strategies as st

from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.mcu_config import FIRMWARE_BOARD_CONFIG, render_board_config
from firmware_host.sim import physics
from firmware_host.sim.firmware import FIRMWARE_DIR, firmware_module
from sensor_bus_kit import FakeSensorBoard

loadcells = firmware_module("loadcells")
weighing = firmware_module("weighing")

CONFIG = load_sensing_config()
MCU = CONFIG.sensors.mcu
DECODER = weighing.MassDecoder(MCU.white_checker_g, MCU.black_checker_g, MCU.mass_tolerance_g)


@given(st.integers(0, 15), st.integers(0, 15), st.floats(-0.3, 0.3))
def test_every_layout_of_a_location_is_read_back_from_its_mass(white, black, noise):
    grams = white * MCU.white_checker_g + black * MCU.black_checker_g + noise
    assert DECODER.decode(grams) == (white, black)


def test_a_mass_between_layouts_is_no_reading():
    assert DECODER.decode(16.5) is None          # between one white (16 g) and one black (17 g)
    assert DECODER.decode(-3.0) is None
    assert DECODER.decode(600.0) is None


def test_calibration_turns_raw_counts_into_grams_and_round_trips():
    calibration = weighing.Calibration.uncalibrated(2)
    calibration.tare(1, 5000)
    calibration.span(1, 5000 + 40_000, 100.0)
    assert calibration.grams(1, 5000 + 1600) == pytest.approx(4.0)
    again = weighing.Calibration.loads(calibration.dumps(), 2)
    assert again.zero == calibration.zero and again.counts_per_gram == calibration.counts_per_gram
    with pytest.raises(ValueError, match="for 2 channels, the board has 3"):
        weighing.Calibration.loads(calibration.dumps(), 3)


def spanned(channels, counts_per_gram=400.0):
    """A calibration with every location tared at 0 and spanned at `counts_per_gram`."""
    return weighing.Calibration([0] * channels, [counts_per_gram] * channels)


def test_an_uncalibrated_location_gives_no_reading():
    board = started(2)
    calibration = weighing.Calibration.uncalibrated(2)
    calibration.span(1, 16 * 400, 16.0)
    for adc in board.chips.adcs:
        adc.raw = 16 * 400
    sensors = loadcells.LoadCellSensors(board.bank, calibration, DECODER)
    assert next_scan(board, sensors) == [None, (1, 0)]


def started(channels=28, **faults):
    """A started board; `faults` set on chips before the start: {attribute: channels}."""
    board = FakeSensorBoard(channels)
    for attribute, channels_hit in faults.items():
        for channel in channels_hit:
            setattr(board.chips.adcs[channel], attribute, True)
    board.failed = board.start()
    return board


def next_scan(board, sensors, period_ms=25):
    """One scan a scan period (40 Hz) after the last."""
    board.time.sleep_ms(period_ms)
    return sensors.read_counts()


def test_every_adc_is_started_at_gain_128_and_80_samples_per_second_with_its_ldo_below_the_supply():
    board = started()
    for adc in board.chips.adcs:
        assert adc.registers[loadcells.CTRL1] & 0x07 == 0b111                 # gain 128
        assert adc.registers[loadcells.CTRL2] & 0x70 == 0b011 << 4              # 80 samples/s
        assert adc.registers[loadcells.PU_CTRL] & loadcells.CS
        # VLDO (bits 3-5: 0b111 2.4 V .. 0b000 4.5 V in 0.3 V steps) at least 0.3 V below the 3.3 V supply.
        ldo_v = 4.5 - 0.3 * (adc.registers[loadcells.CTRL1] >> 3 & 0b111)
        assert ldo_v <= 3.3 - 0.3 + 1e-9


def test_the_physical_model_excites_the_bridge_at_the_ldo_voltage_the_firmware_sets():
    ldo_v = 4.5 - 0.3 * (loadcells.GAIN_128_LDO_3V0 >> 3 & 0b111)
    assert physics.AdcFigures().excitation_v == pytest.approx(ldo_v)


def test_every_adc_starts_in_the_datasheets_order_calibrating_only_once_its_ldo_is_up():
    # NAU7802 datasheet 9.1 and SparkFun's driver: reset, power up, CS, LDO and AVDDS, gain and rate,
    # register 0x15 = 0x30, the 330 pF capacitor, the LDO's ramp, then the front-end calibration.
    board = FakeSensorBoard(3)
    board.chips.log = []
    board.start()
    for channel in range(3):
        writes = [(ms, register, value) for ms, written, register, value in board.chips.log if written == channel]
        registers_written = [(register, value) for _, register, value in writes]
        assert registers_written[:3] == [(loadcells.PU_CTRL, loadcells.RR), (loadcells.PU_CTRL, 0),
                                         (loadcells.PU_CTRL, loadcells.PUD | loadcells.PUA)]
        assert (loadcells.ADC, 0x30) in registers_written
        assert any(register == loadcells.PGA_PWR and value & 0x80 for register, value in registers_written)
        ldo_on = next(ms for ms, register, value in writes if register == loadcells.PU_CTRL and value & loadcells.AVDDS)
        calibration = next(ms for ms, register, value in writes if register == loadcells.CTRL2 and value & loadcells.CALS)
        assert calibration - ldo_on >= loadcells.LDO_RAMP_MS
        assert board.chips.adcs[channel].registers[loadcells.PU_CTRL] & loadcells.AVDDS


def test_a_channel_whose_calibration_fails_or_that_does_not_answer_is_named():
    assert started(4, dead=[1], calibration_fails=[2]).failed == {1, 2}


def test_a_scan_reads_every_location_through_the_multiplexers():
    board = started()
    sensors = loadcells.LoadCellSensors(board.bank, spanned(28), DECODER)
    layouts = {0: (2, 0), 9: (0, 5), 17: (1, 1), 27: (15, 0)}
    for channel, (white, black) in layouts.items():
        board.chips.adcs[channel].raw = int((white * 16 + black * 17) * 400)
    counts = next_scan(board, sensors)
    assert [counts[channel] for channel in layouts] == list(layouts.values())
    assert counts[5] == (0, 0)
    assert board.chips.collisions == 0


def test_a_scan_switches_each_port_on_once_and_a_multiplexer_off_only_when_it_leaves_it():
    board = started()
    sensors = loadcells.LoadCellSensors(board.bank, spanned(28), FieldTaker(), board.hall)
    writes = []
    mux_write = board.chips.writeto
    board.chips.writeto = lambda address, data: writes.append((address, data[0])) or mux_write(address, data)
    next_scan(board, sensors)
    next_scan(board, sensors)
    scan = writes[len(writes) // 2:]
    switched_on = [(address, ports) for address, ports in scan if ports]
    assert len(switched_on) == 28 and len(set(switched_on)) == 28
    assert [address for address, ports in scan if not ports] == [0x73, 0x70, 0x71, 0x72]


class FieldTaker:
    """A colour-by-magnet decoder that reads every location as empty: the scan reads each Hall sensor."""

    def decode(self, channel, grams, field_mt):
        return (0, 0)


def test_negative_conversions_are_sign_extended():
    board = started(1)
    board.chips.adcs[0].raw = -1234
    board.time.sleep_ms(25)
    assert board.bank.read_raw(0) == -1234


def test_a_conversion_is_reused_only_while_fresh_then_the_channel_gives_no_reading():
    board = started(1)
    board.time.sleep_ms(25)
    assert board.bank.read_raw(0) == 0
    board.chips.adcs[0].slow(10_000)   # it stops converting
    board.chips.adcs[0].raw = 16 * 400
    board.time.sleep_ms(loadcells.FRESH_MS - 1)
    assert board.bank.read_raw(0) == 0
    board.time.sleep_ms(2)
    assert board.bank.read_raw(0) is None


def test_an_adc_that_lost_its_setup_is_started_again_and_reads_the_new_load():
    board = started(2)
    sensors = loadcells.LoadCellSensors(board.bank, spanned(2), DECODER)
    assert next_scan(board, sensors) == [(0, 0), (0, 0)]
    board.chips.adcs[1].brown_out()
    board.chips.adcs[1].raw = 16 * 400
    readings = [next_scan(board, sensors)[1] for _ in range(40)]   # a second at 40 Hz
    assert readings[0] is None and readings[-1] == (1, 0) and (0, 0) not in readings
    assert board.bank.restarts == 1
    assert board.chips.adcs[1].registers[loadcells.CTRL1] == loadcells.GAIN_128_LDO_3V0


def test_an_adc_that_failed_to_start_is_tried_again_while_scanning():
    board = started(2, dead=[1])
    sensors = loadcells.LoadCellSensors(board.bank, spanned(2), DECODER)
    assert next_scan(board, sensors) == [(0, 0), None]
    board.chips.adcs[1].dead = False
    readings = [next_scan(board, sensors)[1] for _ in range(80)]   # two seconds at 40 Hz
    assert readings[-1] == (0, 0)


def test_a_timed_out_transaction_clears_the_bus_and_the_scan_goes_on():
    board = started(2)
    sensors = loadcells.LoadCellSensors(board.bank, spanned(2), DECODER)
    board.chips.hold_sda(5)
    first = next_scan(board, sensors)
    assert board.bus.clears == 2 and board.chips.timeouts == 1   # the boot's clear, then this one
    assert first[1] == (0, 0) and next_scan(board, sensors) == [(0, 0), (0, 0)]


def test_an_empty_location_follows_slow_drift_of_its_zero():
    board = started(1)
    calibration = spanned(1)
    sensors = loadcells.LoadCellSensors(board.bank, calibration, DECODER)
    board.chips.adcs[0].raw = 40     # 0.1 g of drift
    for _ in range(400):     # ten seconds of scans at 40 Hz
        assert next_scan(board, sensors) == [(0, 0)]
    assert calibration.zero[0] == pytest.approx(40, abs=1)


def test_the_self_test_names_dead_silent_and_railed_channels():
    board = started(dead=[3])
    board.chips.adcs[12].slow(10_000)
    board.chips.adcs[20].raw = 0x7FFFFF
    board.time.sleep_ms(loadcells.FRESH_MS + 1)
    assert board.bank.self_test() == [(3, loadcells.NO_RESPONSE), (12, loadcells.NOT_READY),
                                      (20, loadcells.OUT_OF_RANGE)]


def test_the_committed_board_config_is_the_rendering_of_the_board_file():
    assert FIRMWARE_BOARD_CONFIG.read_text() == render_board_config(CONFIG), \
        "run `tavli-board firmware-config` after editing hardware/board.toml"


def test_the_pico_scripts_use_only_settings_the_board_config_has():
    settings = runpy.run_path(str(FIRMWARE_BOARD_CONFIG))
    for script in ("main.py", "calibrate.py"):
        tree = ast.parse((FIRMWARE_DIR / script).read_text())
        used = {node.attr for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "cfg"}
        assert used and used <= set(settings), f"{script} uses {sorted(used - set(settings))}"


counting = firmware_module("counting")
hall = firmware_module("hall")


def count_decoder():
    return counting.CountDecoder(2, 16.0, 2.0, 0.45, 8, (3.0, 7.5, 9.0))


def steady(decoder, grams, field_mt, scans=8, channel=0):
    for _ in range(scans):
        result = decoder.decode(channel, grams, field_mt)
    return result


NOTHING = (0.1, -0.2, 0.3)


def axial(pole, tilt_deg=0.0, strength=12.0):
    """A white checker's field: through its faces, `pole` +1 face up as made, -1 turned over."""
    return (strength * math.sin(math.radians(tilt_deg)), 0.0, pole * strength * math.cos(math.radians(tilt_deg)))


def diametric(turn_deg, strength=6.0, vertical=0.0):
    """A black checker's field: across its diameter, however it lies (`turn_deg` about the vertical)."""
    return (strength * math.cos(math.radians(turn_deg)), strength * math.sin(math.radians(turn_deg)), vertical)


@given(st.integers(0, 15), st.floats(-1.9, 1.9), st.sampled_from([-1, 1]), st.floats(0, 25),
       st.booleans(), st.floats(0, 360), st.floats(-4.0, 4.0))
def test_a_steady_count_is_read_in_its_bottom_checkers_colour_whichever_face_is_up(
        count, error_g, pole, tilt, white, turn, vertical):
    # The colour is the magnet's axis: a checker turned over (or a magnet glued in backwards) keeps it.
    field = NOTHING if count == 0 else (axial(pole, tilt) if white else diametric(turn, vertical=vertical))
    expected = (0, 0) if count == 0 else ((count, 0) if white else (0, count))
    assert steady(count_decoder(), count * 16.0 + error_g, field) == expected


@given(st.floats(-1.9, 1.9), st.sampled_from([-1, 1]))
def test_a_full_stack_is_read_as_all_fifteen_of_one_colour_on_a_pinned_checker_of_the_other(error_g, pole):
    # 16 checkers on a point can only be 15 on one pinned checker; a snapshot carries at most 15 of a colour.
    assert steady(count_decoder(), 16 * 16.0 + error_g, axial(pole)) == (1, 15)      # a white checker at the bottom
    assert steady(count_decoder(), 16 * 16.0 + error_g, diametric(40)) == (15, 1)


@given(st.floats(33, 37), st.sampled_from([-1, 1]))
def test_a_field_between_the_two_axes_is_no_colour(tilt, pole):
    assert steady(count_decoder(), 32.0, axial(pole, tilt)) is None


@given(st.sampled_from([-1, 1]), st.floats(0, 360))
def test_a_field_of_one_colours_direction_and_the_others_strength_is_no_colour(pole, turn):
    # off its seat a black checker's field can turn vertical and a white one's horizontal, but weaker or stronger
    assert steady(count_decoder(), 32.0, axial(pole, strength=6.5)) is None
    assert steady(count_decoder(), 32.0, diametric(turn, strength=8.5)) is None


def test_the_second_checker_laid_in_the_row_beside_the_seat_is_read_though_its_magnet_is_not_seen():
    # Checkers lie in a row along the point: the second one's magnet is 38 mm from the sensor under the seat
    # and changes its field by a few hundredths of a mT (bench/bench_sensors.py). Before issue 32's second
    # round the firmware waited for a second magnet and never read such a point again while it held two to
    # five checkers.
    decoder = count_decoder()
    assert steady(decoder, 16.0, axial(1)) == (1, 0)
    row = tuple(a + b for a, b in zip(axial(1), (0.02, -0.01, 0.01)))
    assert steady(decoder, 32.0, row) == (2, 0)
    assert steady(decoder, 48.0, row) == (3, 0)
    assert steady(decoder, 16.0, axial(1)) == (1, 0)


def test_no_reading_without_a_steady_count_and_a_magnet_that_agree():
    assert steady(count_decoder(), 48.0, axial(1), scans=7) is None       # not yet steady
    assert steady(count_decoder(), 40.0, axial(1)) is None                # half way between counts
    assert steady(count_decoder(), 16.5, NOTHING) is None                 # a coin-sized mass, no magnet
    assert steady(count_decoder(), 0.2, diametric(0)) is None             # a magnet, no weight
    assert steady(count_decoder(), 32.0, None) is None                    # the Hall sensor gave nothing
    assert steady(count_decoder(), 17 * 16.0, axial(1)) is None           # more than a location holds
    decoder = count_decoder()
    readings = [decoder.decode(0, 32.0 + (0.5 if scan % 2 else 0.0), axial(1)) for scan in range(16)]
    assert readings == [None] * 16                                        # a wavering finger
    assert steady(decoder, 32.0, axial(-1), channel=1) == (2, 0)          # channels are apart


def test_the_hall_sensor_is_set_to_continuous_xyz_readings_and_its_field_is_signed_millitesla():
    board = started(2)
    tmag = board.chips.halls[1]
    # DEVICE_CONFIG_2 0x01: continuous; SENSOR_CONFIG_1 0x02: MAG_CH_EN = 7, X, Y and Z
    assert tmag.registers[0x01] == 0x02 and tmag.registers[0x02] == 0x70
    tmag.field_mt = (5.0, 0.0, -10.0)
    board.time.sleep_ms(25)
    assert board.hall.field_mt(1) == pytest.approx((5.0, 0.0, -10.0), abs=0.01)
    board.chips.halls[0].dead = True
    assert board.hall.field_mt(0) is None


def test_a_hall_sensor_that_was_reset_is_set_up_again():
    board = started(1)
    board.chips.halls[0].field_mt = (0.0, 0.0, 12.0)
    board.time.sleep_ms(25)
    assert board.hall.field_mt(0) == pytest.approx((0.0, 0.0, 12.0), abs=0.01)
    board.chips.halls[0].brown_out()                 # standing by, its field registers at 0
    fields = []
    for _ in range(4):
        board.time.sleep_ms(25)
        fields.append(board.hall.field_mt(0))
    assert fields[0] is None and fields[-1] == pytest.approx((0.0, 0.0, 12.0), abs=0.01)
    assert (0.0, 0.0, 0.0) not in fields
    assert board.hall.restarts == 1
