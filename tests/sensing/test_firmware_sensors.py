"""The reference design's sensor scan (NAU7802s behind TCA9548As) and mass decoding, with a fake I2C bus."""
import ast
import math
import runpy

import pytest
from hypothesis import given, strategies as st

from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.mcu_config import FIRMWARE_BOARD_CONFIG, render_board_config
from firmware_host.sim.firmware import FIRMWARE_DIR, firmware_module

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
    bus = FakeBus(MCU.mux_addresses, 2)
    calibration = weighing.Calibration.uncalibrated(2)
    calibration.span(1, 16 * 400, 16.0)
    bus.raw[0] = bus.raw[1] = 16 * 400
    sensors = loadcells.LoadCellSensors(started_bank(bus, 2), calibration, DECODER)
    assert sensors.read_counts() == [None, (1, 0)]


class FakeBus:
    """NAU7802s at 0x2A behind TCA9548As; raises if two ADCs are ever connected at once."""

    def __init__(self, mux_addresses, channels, dead=(), silent=(), calibration_fails=()):
        self.mux_ports = {address: 0 for address in mux_addresses}
        self.muxes = list(mux_addresses)
        self.raw = [0] * channels
        self.dead, self.silent, self.calibration_fails = set(dead), set(silent), set(calibration_fails)
        self.log = []                         # ("write", channel, register, value) and ("sleep", ms), in order
        self.registers = [{loadcells.PU_CTRL: 0, loadcells.CTRL1: 0, loadcells.CTRL2: 0} for _ in range(channels)]

    def writeto(self, address, data):
        self.mux_ports[address] = data[0]

    def _selected(self):
        selected = [self.muxes.index(address) * 8 + port for address, ports in self.mux_ports.items()
                    for port in range(8) if ports >> port & 1]
        assert len(selected) <= 1, f"channels {selected} share the bus"
        if not selected or selected[0] in self.dead:
            raise OSError(19, "ENODEV")
        return selected[0]

    def writeto_mem(self, address, register, data):
        assert address == loadcells.NAU7802
        channel = self._selected()
        registers = self.registers[channel]
        value = data[0]
        self.log.append(("write", channel, register, value))
        if register == loadcells.PU_CTRL and value & loadcells.PUD:
            value |= loadcells.PUR
        if register == loadcells.CTRL2 and value & loadcells.CALS:
            value &= ~loadcells.CALS          # calibration finishes at once
            if channel in self.calibration_fails:
                value |= loadcells.CAL_ERR
        registers[register] = value

    def readfrom_mem(self, address, register, count):
        channel = self._selected()
        if register == loadcells.REVISION:
            return b"\x0f"
        if register == loadcells.PU_CTRL:
            running = self.registers[channel][register] & loadcells.CS and channel not in self.silent
            return bytes((self.registers[channel][register] | (loadcells.CR if running else 0),))
        if register == loadcells.ADCO_B2:
            return (self.raw[channel] & 0xFFFFFF).to_bytes(3, "big")
        return bytes((self.registers[channel].get(register, 0),))


def started_bank(bus, channels=28):
    bank = loadcells.Nau7802Bank(bus, MCU.mux_addresses, channels, sleep_ms=lambda ms: bus.log.append(("sleep", ms)))
    bank.start_all()
    return bank


def test_every_adc_is_started_at_gain_128_and_80_samples_per_second():
    bus = FakeBus(MCU.mux_addresses, 28)
    started_bank(bus)
    assert all(registers[loadcells.CTRL1] == loadcells.GAIN_128_LDO_3V3 for registers in bus.registers)
    assert all(registers[loadcells.CTRL2] == loadcells.RATE_80SPS for registers in bus.registers)
    assert all(registers[loadcells.PU_CTRL] & loadcells.CS for registers in bus.registers)


def test_every_adc_starts_in_the_datasheets_order_calibrating_only_once_its_ldo_is_up():
    # NAU7802 datasheet 9.1 and SparkFun's driver: reset, power up, CS, LDO 3.3 V and AVDDS, gain and rate,
    # register 0x15 = 0x30, the 330 pF capacitor, the LDO's ramp, then the front-end calibration.
    bus = FakeBus(MCU.mux_addresses, 3)
    started_bank(bus, channels=3)
    ramp = bus.log.index(("sleep", loadcells.LDO_RAMP_MS))
    for channel in range(3):
        writes = [(step, entry[2], entry[3]) for step, entry in enumerate(bus.log)
                  if entry[0] == "write" and entry[1] == channel]
        registers_written = [(register, value) for _, register, value in writes]
        assert registers_written[:3] == [(loadcells.PU_CTRL, loadcells.RR), (loadcells.PU_CTRL, 0),
                                         (loadcells.PU_CTRL, loadcells.PUD | loadcells.PUA)]
        assert (loadcells.ADC, 0x30) in registers_written
        assert any(register == loadcells.PGA_PWR and value & 0x80 for register, value in registers_written)
        ldo_on = next(step for step, register, value in writes
                      if register == loadcells.PU_CTRL and value & loadcells.AVDDS)
        calibration = next(step for step, register, value in writes
                           if register == loadcells.CTRL2 and value & loadcells.CALS)
        assert ldo_on < ramp < calibration
        assert bus.registers[channel][loadcells.PU_CTRL] & loadcells.AVDDS


def test_a_channel_whose_calibration_fails_or_that_does_not_answer_is_named():
    bus = FakeBus(MCU.mux_addresses, 4, dead={1}, calibration_fails={2})
    bank = loadcells.Nau7802Bank(bus, MCU.mux_addresses, 4, sleep_ms=lambda ms: None)
    assert bank.start_all() == {1, 2}


def test_a_scan_reads_every_location_through_the_multiplexers():
    bus = FakeBus(MCU.mux_addresses, 28)
    calibration = spanned(28)
    sensors = loadcells.LoadCellSensors(started_bank(bus), calibration, DECODER)
    layouts = {0: (2, 0), 9: (0, 5), 17: (1, 1), 27: (15, 0)}
    for channel, (white, black) in layouts.items():
        bus.raw[channel] = int((white * 16 + black * 17) * 400)
    counts = sensors.read_counts()
    assert [counts[channel] for channel in layouts] == list(layouts.values())
    assert counts[5] == (0, 0)


def test_negative_conversions_are_sign_extended():
    bus = FakeBus(MCU.mux_addresses, 1)
    bank = started_bank(bus, channels=1)
    bus.raw[0] = -1234
    assert bank.read_raw(0) == -1234


def test_a_channel_without_a_fresh_conversion_keeps_its_last_reading():
    bus = FakeBus(MCU.mux_addresses, 2)
    sensors = loadcells.LoadCellSensors(started_bank(bus, 2), spanned(2), DECODER)
    bus.raw[1] = 16 * 400
    assert sensors.read_counts() == [(0, 0), (1, 0)]
    bus.silent.add(1)
    bus.raw[1] = 0
    assert sensors.read_counts() == [(0, 0), (1, 0)]


def test_an_empty_location_follows_slow_drift_of_its_zero():
    bus = FakeBus(MCU.mux_addresses, 1)
    calibration = spanned(1)
    sensors = loadcells.LoadCellSensors(started_bank(bus, 1), calibration, DECODER)
    bus.raw[0] = 40          # 0.1 g of drift
    for _ in range(400):     # ten seconds of scans at 40 Hz
        assert sensors.read_counts() == [(0, 0)]
    assert calibration.zero[0] == pytest.approx(40, abs=1)


def test_the_self_test_names_dead_silent_and_railed_channels():
    bus = FakeBus(MCU.mux_addresses, 28, dead={3}, silent={12})
    bank = started_bank(bus)
    bus.raw[20] = 0x7FFFFF
    assert bank.self_test() == [(3, loadcells.NO_RESPONSE), (12, loadcells.NOT_READY), (20, loadcells.OUT_OF_RANGE)]


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
    return counting.CountDecoder(2, 16.0, 2.0, 0.45, 8, (3.0, 7.5, 9.0), 0.2)


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


def test_a_weight_that_rises_from_one_checker_without_a_second_magnet_is_no_reading():
    decoder = count_decoder()
    assert steady(decoder, 16.0, axial(1)) == (1, 0)
    # a finger (or a coin) of a checker's weight on it: the field stays the bottom magnet's
    assert [decoder.decode(0, 32.1, axial(1)) for _ in range(40)] == [None] * 40
    assert steady(decoder, 16.0, axial(1)) == (1, 0)                      # lifted again: read as before
    # a second checker, a black one: its diametric magnet adds 0.4 mT across
    second = tuple(a + b for a, b in zip(axial(1), diametric(30, strength=0.4)))
    assert steady(decoder, 32.0, second, scans=9) == (2, 0)
    assert steady(decoder, 48.0, second) == (3, 0)                        # a third one's field is not looked for


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


class FakeHallBus:
    def __init__(self, field_counts, dead=False):
        self.written, self.field_counts, self.dead = {}, field_counts, dead

    def writeto_mem(self, address, register, data):
        if self.dead:
            raise OSError(19, "ENODEV")
        self.written[(address, register)] = data[0]

    def readfrom_mem(self, address, register, count):
        if self.dead:
            raise OSError(19, "ENODEV")
        # the X, Y and Z results: registers 0x12 to 0x17, each MSB first (TMAG5273 datasheet, register map)
        assert (register, count) == (0x12, 6)
        return b"".join((value & 0xFFFF).to_bytes(2, "big") for value in self.field_counts)


def test_the_hall_sensor_is_set_to_continuous_xyz_readings_and_its_field_is_signed_millitesla():
    bus = FakeHallBus((4096, 0, -8192))
    selected = []
    sensors = hall.HallBank(bus, selected.append, 2, 0x35)
    assert sensors.start_all() == set()
    # DEVICE_CONFIG_2 0x01: continuous; SENSOR_CONFIG_1 0x02: MAG_CH_EN = 7, X, Y and Z
    assert bus.written[(0x35, 0x01)] == 0x02 and bus.written[(0x35, 0x02)] == 0x70
    assert sensors.field_mt(1) == pytest.approx((5.0, 0.0, -10.0)) and selected[-1] == 1
    assert hall.HallBank(FakeHallBus((0, 0, 0), dead=True), selected.append, 2, 0x35).field_mt(0) is None
    assert hall.HallBank(FakeHallBus((0, 0, 0), dead=True), selected.append, 2, 0x35).start_all() == {0, 1}
