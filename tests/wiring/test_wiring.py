"""The wiring docs come from the board file: the committed ones must be what it generates."""
from firmware_host import wiring
from firmware_host.cli import main


def test_the_committed_wiring_docs_match_the_board_file():
    assert wiring.stale_files(wiring.DOCS_DIR) == [], "run `tavli-board wiring` and commit docs/wiring"


def test_a_pin_changed_in_the_board_file_changes_the_table_and_the_diagram(board, write_board):
    board["button"]["pin"] = 22
    board["buzzer"]["pin"] = 5
    docs = wiring.generate(write_board(board))
    assert "| pin 15 (GPIO22) | dice button |" in docs[wiring.PIN_TABLE]
    assert "| pin 29 (GPIO5) | buzzer |" in docs[wiring.PIN_TABLE]
    assert "pin 15 (GPIO22)" in docs[wiring.DIAGRAM] and docs[wiring.DIAGRAM].startswith("<svg")


def test_a_uart_link_and_the_spi_led_driver(board, write_board):
    board["sensors"]["mcu"]["link"] = "uart"
    board["leds"]["driver"] = "neopixel_spi"
    table = wiring.generate(write_board(board))[wiring.PIN_TABLE]
    assert "| pin 8 (GPIO14) | UART TXD | Pico pin 2 (GP1) (UART RX) |" in table
    assert "| pin 10 (GPIO15) | UART RXD | Pico pin 1 (GP0) (UART TX) |" in table
    assert "| pin 19 (GPIO10) | LED data (3.3 V) |" in table and "USB port" not in table


def test_power_is_sized_from_the_current_cap_with_margin(board, write_board):
    board["leds"]["max_current_ma"] = 5000
    table = wiring.generate(write_board(board))[wiring.PIN_TABLE]
    # 5 A at most (idle draw included) -> a 7.5 A fuse (1.5 x) -> a supply above the fuse
    assert "Fuse 7.5 A (slow) in the +5 V line" in table and "supply for the strip rated 8 A" in table
    assert "the 0.2 A its 200 LEDs draw when dark (1 mA each) included" in table
    assert "all of them at full white would draw 12.2 A" in table


def test_the_shipped_board_has_margin_on_fuse_and_supply(shipped_board_file):
    facts = wiring.BoardFacts.load(shipped_board_file)
    assert facts.leds.max_current_ma / 1000 <= facts.fuse_a / 1.5 < facts.fuse_a < facts.supply_a
    assert (facts.fuse_a, facts.supply_a) == (3, 4)


def test_the_buzzer_has_a_transistor_and_the_gpio10_data_line_serves_every_pi():
    table = wiring.generate()[wiring.PIN_TABLE]
    assert "| pin 13 (GPIO27) | buzzer | 5 V active buzzer through an NPN transistor" in table and "1N4148" in table
    assert "| pin 19 (GPIO10) | LED data (3.3 V) | 74AHCT125 pin 2 (1A) | leds.driver \"auto\"" in table


def test_every_multiplexer_port_gets_its_pull_ups():
    assert "29 pairs in all" in wiring.generate()[wiring.PIN_TABLE]   # 28 ports and the Pico's bus


def test_every_channel_is_listed_with_its_multiplexer_port():
    table = wiring.generate()[wiring.PIN_TABLE]
    assert "| 0 | 0x70 port 0 | point:1 |" in table and "| 27 | 0x73 port 3 | off:black |" in table


def test_the_pico_pinout():
    assert [wiring.PICO_PINS[gp] for gp in (0, 1, 2, 4, 5, 16, 22, 26)] == [1, 2, 4, 6, 7, 21, 29, 31]


def test_the_command_writes_and_checks(tmp_path, capsys):
    assert main(["wiring", "--output", str(tmp_path)]) == 0
    assert main(["wiring", "--check", "--output", str(tmp_path)]) == 0
    (tmp_path / "pins.md").write_text("edited by hand")
    assert main(["wiring", "--check", "--output", str(tmp_path)]) == 1
    assert "out of date" in capsys.readouterr().err
