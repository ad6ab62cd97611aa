"""The LED layout and strip settings from the board file, and every check on them."""
import pytest

from firmware_host.hw import BoardFileError, LedDataLine
from firmware_host.leds.layout import DICE_FACES, load_led_config
from firmware_host.leds.scene import LOCATIONS


def test_the_shipped_layout_places_every_group_on_its_200_leds(shipped_config, layout):
    assert shipped_config.data_line == LedDataLine("auto", None)
    assert (shipped_config.pixel_order, shipped_config.brightness, shipped_config.palette) == ("GRB", 0.3, "standard")
    assert shipped_config.max_current_ma == 2000
    groups = layout.groups()
    assert set(groups) == set(LOCATIONS) | {"dice:1", "dice:2", "turn:white", "turn:black", "score:white", "score:black"}
    used = [index for indices in groups.values() for index in indices]
    assert sorted(used) == list(range(200))
    assert layout.locations["1"] == (0, 1, 2, 3, 4, 5)
    assert layout.dice_style == "pips" and all(len(die) == 7 for die in layout.dice)


def test_the_dice_faces_show_each_value_with_that_many_pips():
    for style, faces in DICE_FACES.items():
        assert {value: len(face) for value, face in faces.items()} == {value: value for value in range(1, 7)}, style
        assert len(set(faces.values())) == 6


def test_other_tables_are_not_read_and_optional_keys_take_defaults(board, write_board):
    board["serial"] = {"not": "checked here"}
    board["mystery"] = 1
    for key in ("pixel_order", "brightness", "max_current_ma", "palette", "dice_style", "driver"):
        del board["leds"][key]
    config = load_led_config(write_board(board))
    assert (config.pixel_order, config.brightness, config.max_current_ma, config.palette) == ("GRB", 0.3, 2000, "standard")
    assert config.layout.dice_style == "pips" and config.data_line.driver == "auto"


def test_a_row_of_six_leds_per_die(board, write_board):
    board["leds"]["dice_style"] = "row"
    board["leds"]["dice"] = {"1": [170, 171, 172, 173, 174, 175], "2": [177, 178, 179, 180, 181, 182]}
    assert load_led_config(write_board(board)).layout.dice == ((170, 171, 172, 173, 174, 175), (177, 178, 179, 180, 181, 182))


def change(board, path, value):
    *tables, key = path
    target = board
    for table in tables:
        target = target[table]
    if value is None:
        del target[key]
    else:
        target[key] = value


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("leds", "locations", "13"), [72, 73, 200], 'leds.locations.13: LED 200 is past the end of the strip; allowed: 0..199 (count = 200)'),
        (("leds", "count"), 150, "leds.locations.\"bar:black\": LED 150 is past the end of the strip; allowed: 0..149"),
        (("leds", "score", "black"), [0], "leds.score.black: LED 0 is also used by leds.locations.1; allowed: each LED in one group only"),
        (("leds", "locations", "7"), [36, 37, 37], "leds.locations.7: [36, 37, 37] lists an index twice"),
        (("leds", "locations", "bar:black"), None, 'leds.locations."bar:black": missing; allowed: a list of LED indices'),
        (("leds", "locations", "25"), [250], 'leds.locations.25: unknown key; allowed: 1, 2, 3'),
        (("leds", "locations", "7"), [], "leds.locations.7: [] is not valid; allowed: a list of LED indices"),
        (("leds", "locations", "7"), [36, -1], "leds.locations.7: [36, -1] is not valid"),
        (("leds", "turn"), None, "[leds.turn]: missing table"),
        (("leds", "dice", "2"), [177, 178, 179], "leds.dice.2: [177, 178, 179] is not valid; allowed: a list of exactly 7 LED indices"),
        (("leds", "dice_style"), "dots", "leds.dice_style: 'dots' is not valid; allowed: \"pips\", \"row\""),
        (("leds", "brightness"), 1.5, "leds.brightness: 1.5 is not valid; allowed: a number from 0.01 to 1.0"),
        (("leds", "palette"), "rainbow", "leds.palette: 'rainbow' is not valid; allowed: \"standard\", \"colour-blind\""),
        (("leds", "pixel_order"), "GRBW", "leds.pixel_order: 'GRBW' is not valid; allowed: \"GRB\""),
        (("leds", "colour"), "red", "leds.colour: unknown key; allowed: driver, count"),
        (("leds", "count"), None, "leds.count: missing; allowed: an integer from 1 to 2000"),
    ],
)
def test_layout_errors_name_the_file_the_key_and_what_is_allowed(board, write_board, path, value, message):
    change(board, path, value)
    file = write_board(board)
    with pytest.raises(BoardFileError) as error:
        load_led_config(file)
    assert str(error.value).startswith(f"{file}: {message}")
