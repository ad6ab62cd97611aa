import dataclasses

import pytest

from firmware_host.sensing.channels import ChannelMap, ChannelMapError
from firmware_host.sensing.config import (DEFAULT_BOARD_FILE, MCU_KEYS, SENSOR_KEYS, SERIAL_KEYS,
                                          BoardConfigError, McuSettings, SensorSettings, SerialSettings,
                                          load_sensing_config, parse_sensing_config)

CHANNELS = [f"point:{n}" for n in range(1, 25)] + ["bar:white", "bar:black", "off:white", "off:black"]


def test_the_shipped_board_file_loads():
    config = load_sensing_config(DEFAULT_BOARD_FILE)
    assert config.sensors.channels.channel_count == 28
    assert config.sensors.quiet_ms == 300 and config.sensors.grace_ms == 3000
    assert config.serial.port == "" and config.serial.exclusive is True


def test_sections_of_other_subsystems_are_left_alone(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text('[leds]\nanything = "goes"\n[sensors]\nchannels = %s\n' % str(CHANNELS).replace("'", '"'))
    config = load_sensing_config(path)
    assert config.serial.baudrate == 115200 and config.sensors.scan_hz == 40


@pytest.mark.parametrize("toml, message", [
    ("[serial]\nbaud = 9600", r"\[serial\] unknown key 'baud'; allowed: port, baudrate"),
    ("[serial]\nbaudrate = '9600'", r"\[serial\] baudrate = '9600': must be an integer 1200..4000000"),
    ("[serial]\nexclusive = 1", r"exclusive = 1: must be true or false"),
    ("[serial]\nreconnect_min_s = 2.0\nreconnect_max_s = 1.0\n[sensors]\nchannels = CH", "reconnect_max_s .* below reconnect_min_s"),
    ("[sensors]\nscan_hz = 40", r"\[sensors\] missing key 'channels'"),
    ("[sensors]\nchannels = CH\nquiet_sm = 1", r"unknown key 'quiet_sm'"),
    ("[sensors]\nchannels = CH\nsnapshot_interval_ms = 5", r"must be 0 \(only on change\) or an integer 20..60000"),
    ("[sensors]\nchannels = CH\ngrace_ms = 100", r"grace_ms \(100\) must not be shorter than quiet_ms"),
    ("[sensors]\nchannels = ['point:1']", r"\[sensors\] channels: no channel for"),
    ("", r"no \[sensors\] section"),
    ("[sensors", "not valid TOML"),
])
def test_bad_keys_name_the_file_the_key_and_what_is_allowed(tmp_path, toml, message):
    path = tmp_path / "board.toml"
    path.write_text(toml.replace("CH", str(CHANNELS).replace("'", '"')))
    with pytest.raises(BoardConfigError, match=message) as caught:
        load_sensing_config(path)
    assert str(caught.value).startswith(str(path))


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(BoardConfigError, match="cannot read"):
        load_sensing_config(tmp_path / "nope.toml")


@pytest.mark.parametrize("channels, message", [
    (CHANNELS + ["point:3"], r"\['point:3'\] given to more than one channel"),
    (CHANNELS[:-1], r"no channel for \['off:black'\]"),
    (CHANNELS + ["tray"], "unknown location"),
    (CHANNELS + ["reserve:white"], "needs its partner"),
])
def test_channel_maps_are_checked(channels, message):
    with pytest.raises(ChannelMapError, match=message):
        ChannelMap(tuple(channels))


def test_bars_and_trays_sum_both_sensors_of_a_colour_and_unused_channels_count_nothing():
    channel_map = ChannelMap(tuple(CHANNELS + ["unused", "reserve:white", "reserve:black"]))
    counts = [(0, 0)] * 31
    counts[0] = (2, 1)            # point 1
    counts[24] = (1, 0)           # White's half of the bar
    counts[25] = (2, 3)           # Black's half, with two white checkers laid there too
    counts[26] = (4, 0)
    counts[28] = (9, 9)           # unused
    counts[29] = (0, 1)
    reading = channel_map.reading(tuple(counts))
    assert reading.point(1) == (2, 1)
    assert (reading.white.bar, reading.black.bar) == (3, 3)
    assert (reading.white.off, reading.white.reserve, reading.black.reserve) == (4, 0, 1)
    assert reading.white.total == 9 and reading.black.total == 5


def test_a_snapshot_of_the_wrong_size_is_refused():
    with pytest.raises(ChannelMapError, match="27 channel counts for a map of 28"):
        ChannelMap(tuple(CHANNELS)).reading(((0, 0),) * 27)


def test_parse_reports_its_source():
    with pytest.raises(BoardConfigError, match="^inline: "):
        parse_sensing_config({"sensors": {"channels": []}}, "inline")


@pytest.mark.parametrize("keys, settings", [(SERIAL_KEYS, SerialSettings), (SENSOR_KEYS, SensorSettings),
                                            (MCU_KEYS, McuSettings)])
def test_every_setting_has_a_checked_key_and_every_key_a_setting(keys, settings):
    assert set(keys) == {field.name for field in dataclasses.fields(settings)}


@pytest.mark.parametrize("toml, message", [
    ("[sensors.mcu]\nlink = 'wifi'", r"\[sensors.mcu\] link = 'wifi': must be 'usb' or 'uart'"),
    ("[sensors.mcu]\nmux_addresses = [0x70]", r"28 channels, but \[sensors.mcu\] mux_addresses give 8 ports"),
    ("[sensors.mcu]\ncolour_by = 'mass'\nwhite_checker_g = 12.0\nblack_checker_g = 13.0", "differ by only 0 g"),
    ("[sensors.mcu]\ncolour_by = 'mass'\nmass_tolerance_g = 0.5", r"must exceed twice mass_tolerance_g \(0.5\)"),
])
def test_the_mcu_table_is_checked_too(tmp_path, toml, message):
    path = tmp_path / "board.toml"
    path.write_text("[sensors]\nchannels = %s\n%s\n" % (str(CHANNELS).replace("'", '"'), toml))
    with pytest.raises(BoardConfigError, match=message):
        load_sensing_config(path)
