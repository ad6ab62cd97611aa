"""The pin map from the board file: the shipped file, defaults, and every kind of mistake."""
import pytest

from firmware_host.hw import BoardFileError, ButtonConfig, BuzzerConfig, LedDataLine, load_pin_map
from firmware_host.hw.gpio import NotARaspberryPi, open_pin_factory, pin_factory_name


def test_the_shipped_board_file_gives_the_reference_wiring(shipped_board_file):
    pins = load_pin_map(shipped_board_file)
    assert pins.button == ButtonConfig(pin=17, pull_up=True, debounce_s=0.02, hold_s=2.0, stuck_s=30.0)
    assert pins.buzzer == BuzzerConfig(pin=27, active_high=True, beep_s=0.08)
    assert pins.led_data == LedDataLine(driver="auto", pin=None)
    assert pins.led_data.bcm == 10


def test_left_out_keys_take_their_defaults_and_other_sections_are_not_read(board, write_board):
    board["button"] = {"pin": 5}
    del board["buzzer"]
    board["serial"] = {"anything": "owned by the sensing code"}
    pins = load_pin_map(write_board(board))
    assert pins.button == ButtonConfig(pin=5)
    assert pins.buzzer == BuzzerConfig(pin=None)


def test_auto_is_spi_on_a_pi_1_to_4_and_the_pio_on_gpio10_on_a_pi_5(board, write_board):
    line = load_pin_map(write_board(board)).led_data
    assert line.on(pi5=False) == LedDataLine(driver="neopixel_spi", pin=None)
    assert line.on(pi5=True) == LedDataLine(driver="neopixel", pin="D10")
    assert line.on(pi5=True).bcm == line.on(pi5=False).bcm == 10   # one wiring for every Pi


def test_the_gpio_driver_takes_its_pin(board, write_board):
    board["leds"].update(driver="neopixel", pin="D18")
    line = load_pin_map(write_board(board)).led_data
    assert line == LedDataLine(driver="neopixel", pin="D18") == line.on(pi5=True) and line.bcm == 18


def test_the_spi_driver_sends_on_mosi(board, write_board):
    board["leds"]["driver"] = "neopixel_spi"
    board["leds"].pop("pin", None)
    assert load_pin_map(write_board(board)).led_data == LedDataLine(driver="neopixel_spi", pin=None)
    assert load_pin_map(write_board(board)).led_data.bcm == 10


@pytest.mark.parametrize(
    "table, changes, message",
    [
        ("button", {"pin": 28}, "button.pin: 28 is not valid; allowed: an integer from 0 to 27"),
        ("button", {"pin": "GPIO17"}, "button.pin: 'GPIO17' is not valid; allowed: an integer from 0 to 27"),
        ("button", {"pull_up": "yes"}, "button.pull_up: 'yes' is not valid; allowed: true or false"),
        ("button", {"hold_ms": 100}, "button.hold_ms: 100 is not valid; allowed: an integer from 300 to 10000"),
        ("button", {"hold_ms": 8000, "stuck_ms": 6000}, "button.stuck_ms: 6000 is not longer than hold_ms (8000); allowed: more than hold_ms"),
        ("button", {"hold_time": 2}, "button.hold_time: unknown key; allowed: pin, pull_up, debounce_ms, hold_ms"),
        ("buzzer", {"beep_ms": 0}, "buzzer.beep_ms: 0 is not valid; allowed: an integer from 10 to 2000"),
        ("buzzer", {"pin": 17}, "buzzer.pin: BCM 17 is already used by button.pin; allowed: a free GPIO"),
        ("leds", {"driver": "neopixel", "pin": "D17"}, "leds.pin: BCM 17 is already used by button.pin; allowed: a free GPIO"),
        ("leds", {"driver": "ws281x"}, 'leds.driver: \'ws281x\' is not valid; allowed: "auto", "neopixel", "neopixel_spi"'),
    ],
)
def test_a_wrong_key_or_value_names_the_file_the_key_and_what_is_allowed(board, write_board, table, changes, message):
    board[table].update(changes)
    path = write_board(board)
    with pytest.raises(BoardFileError) as error:
        load_pin_map(path)
    assert str(error.value).startswith(f"{path}: {message}")


@pytest.mark.parametrize("driver", ["auto", "neopixel_spi"])
def test_a_pin_given_with_a_gpio10_driver_is_refused(board, write_board, driver):
    board["leds"].update(driver=driver, pin="D18")
    path = write_board(board)
    with pytest.raises(BoardFileError, match=f"leds.pin: driver '{driver}' always sends on GPIO10"):
        load_pin_map(path)


def test_a_missing_button_pin_a_missing_table_and_a_missing_file_are_named(board, write_board, tmp_path):
    del board["button"]["pin"]
    with pytest.raises(BoardFileError, match=r"button.pin: missing; allowed: an integer from 0 to 27"):
        load_pin_map(write_board(board))
    del board["button"]
    with pytest.raises(BoardFileError, match=r"\[button\]: missing table"):
        load_pin_map(write_board(board))
    with pytest.raises(BoardFileError, match=r"nowhere.toml: \(file\): no such file"):
        load_pin_map(tmp_path / "nowhere.toml")


def test_a_toml_syntax_error_is_reported_with_the_file(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text("[button]\npin = \n")
    with pytest.raises(BoardFileError, match=r"board.toml: \(syntax\): is not valid TOML: Invalid value"):
        load_pin_map(path)


@pytest.mark.parametrize(
    "model, factory",
    [
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpigpio"),
        ("Raspberry Pi 4 Model B Rev 1.4", "rpigpio"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "rpigpio"),
        ("Raspberry Pi 5 Model B Rev 1.0", "lgpio"),
    ],
)
def test_the_pin_factory_follows_the_pi_model(model, factory):
    assert pin_factory_name(model) == factory


def test_real_pins_off_a_pi_are_an_error_not_a_silent_mock(tmp_path):
    with pytest.raises(NotARaspberryPi, match="not a Raspberry Pi"):
        pin_factory_name("Generic x86 PC")
    with pytest.raises(NotARaspberryPi, match="does not exist"):
        open_pin_factory(tmp_path / "model")
    model = tmp_path / "model"
    model.write_bytes(b"QEMU Virtual Machine\x00")
    with pytest.raises(NotARaspberryPi, match="'QEMU Virtual Machine'"):
        open_pin_factory(model)
