"""The configuration file: defaults, overrides of the board file, house rules, and every problem reported."""
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.config import BUILT_IN, ConfigError, hash_pin, load_config, parse_config, pin_matches
from firmware_host.hw.boardfile import BoardFileError
from firmware_host.hw.pinmap import load_pin_map, parse_pin_map
from firmware_host.leds.layout import load_led_config, parse_led_config
from firmware_host.rules import Color
from firmware_host.sensing.config import DEFAULT_BOARD_FILE

SHIPPED_CONFIG = Path(__file__).resolve().parents[2] / "systemd" / "config.toml"


@pytest.fixture
def write_config(tmp_path):
    def write(text: str) -> Path:
        path = tmp_path / "config.toml"
        path.write_text(text)
        return path
    return write


def problems_of(path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return [str(problem) for problem in caught.value.problems]


def test_the_built_in_defaults_give_the_simulated_board(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = load_config()
    assert config.simulated and config.source == BUILT_IN and config.board_file == DEFAULT_BOARD_FILE
    assert config.journal_path == tmp_path / "state" / "tavli-board" / "journal.sqlite3"
    assert config.match_rules.sequence == ("portes", "plakoto", "fevga") and config.match_rules.target == 5
    assert config.sensing.sensors.quiet_ms == 300 and config.pins.button.pin == 17


def test_the_config_install_sh_puts_on_the_pi_is_valid():
    config = load_config(SHIPPED_CONFIG)
    assert config.hardware == "real" and config.sensing.serial.port == "/dev/tavli-sensors"
    assert config.journal_path == Path("/var/lib/tavli-board/journal.sqlite3")
    assert config.logging.raw_frames_dir == Path("/run/tavli-board")


def test_installation_settings_override_the_board_file_and_say_so(write_config):
    path = write_config("""
[serial]
port = "socket://127.0.0.1:7070"
baudrate = 57600
[sensors]
quiet_ms = 500
grace_ms = 4000
[button]
pin = 22
hold_ms = 1500
[leds]
brightness = 0.5
palette = "colour-blind"
""")
    config = load_config(path)
    assert config.sensing.serial.port == "socket://127.0.0.1:7070" and config.sensing.serial.baudrate == 57600
    assert config.sensing.sensors.quiet_ms == 500 and config.sensing.sensors.grace_ms == 4000
    assert config.pins.button.pin == 22 and config.pins.button.hold_s == 1.5
    assert config.leds.brightness == 0.5 and config.leds.palette == "colour-blind"
    assert config.sensing.serial.usb_vid == 0x2E8A          # untouched board facts stay
    origins = {setting.key: setting.origin for setting in config.settings()}
    assert origins["serial.port"] == str(path) and origins["leds.count"] == f"board file {DEFAULT_BOARD_FILE}"
    assert origins["match.target"] == "rules default" and origins["hardware"] == BUILT_IN


@pytest.mark.parametrize("driver", ["auto", "neopixel_spi"])
def test_switching_the_leds_to_gpio10_drops_a_board_files_data_pin(board, write_board, write_config, driver):
    board["leds"].update(driver="neopixel", pin="D18")
    config = load_config(write_config(f'board_file = "{write_board(board)}"\n[leds]\ndriver = "{driver}"\n'))
    assert config.leds.data_line.driver == driver and config.pins.led_data.bcm == 10


def test_a_gpio_pin_in_the_config_takes_the_neopixel_driver(write_config):
    config = load_config(write_config('[leds]\ndriver = "neopixel"\npin = "D12"\n'))
    assert config.leds.data_line.pin == "D12" and config.pins.led_data.bcm == 12


def test_every_problem_is_reported_at_once_with_file_key_and_what_is_allowed(write_config):
    path = write_config("""
hardware = "rael"
colour = 3
[match]
target = 0
opening = 1
[house_rules]
mothr_rule = false
[leds]
brightness = 3
locations = 1
[serial]
baudrate = "fast"
[logging]
level = "loud"
""")
    problems = problems_of(path)
    expected = [
        "hardware: 'rael' is not valid; allowed: \"simulated\" or \"real\"",
        "colour: unknown key; allowed: hardware, board_file",
        "match.target: 0 is not valid; allowed: an integer from 1 to 99",
        "match.opening: unknown key; allowed: sequence, target, opening_roll",
        "house_rules.mothr_rule: unknown house rule; allowed: higher_die_rule",
        "leds.brightness: 3 is not valid; allowed: a number from 0.01 to 1.0",
        "leds.locations: not settable here: hardware facts are set in the board file; allowed: driver, pin",
        "[serial] baudrate = 'fast': must be an integer 1200..4000000",
        "logging.level: 'loud' is not valid; allowed: \"debug\", \"info\"",
    ]
    for text in expected:
        assert any(problem.startswith(f"{path}: ") and text in problem for problem in problems), text
    assert len(problems) == len(expected)


def test_an_override_that_does_not_fit_the_board_file_names_both(write_config):
    problems = problems_of(write_config("[leds]\ncount = 100\n[button]\npin = 10\n"))
    assert any("leds.count: with these settings the board file" in problem and "LED 100 is past the end of the strip"
               in problem for problem in problems)
    assert any("button.pin" in problem and "BCM 10 is already used by button.pin" in problem for problem in problems)


def test_the_board_loaders_read_a_parsed_document_as_they_read_its_file(board, shipped_board_file):
    # The config lays its overrides over the parsed board file and hands the result to these.
    assert parse_pin_map(board, shipped_board_file) == load_pin_map(shipped_board_file)
    assert parse_led_config(board, shipped_board_file) == load_led_config(shipped_board_file)
    board["leds"]["count"] = 10
    with pytest.raises(BoardFileError, match=r"^/etc/tavli-board/config.toml: leds.locations.2: LED 10 is past"):
        parse_led_config(board, "/etc/tavli-board/config.toml")


def test_timings_are_checked_together(write_config):
    assert any("grace_ms (3000) must not be shorter than quiet_ms (5000)" in problem
               for problem in problems_of(write_config("[sensors]\nquiet_ms = 5000\n")))


def test_a_broken_board_file_is_blamed_on_the_board_file(write_config, tmp_path, board, write_board):
    del board["button"]["pin"]
    board_file = write_board(board)
    problems = problems_of(write_config(f'board_file = "{board_file.name}"\n'))
    assert problems == [f"{board_file}: button.pin: missing; allowed: an integer from 0 to 27"]


def test_house_rules_for_every_game_and_per_game(write_config):
    config = load_config(write_config("""
[house_rules]
mother_rule = false
higher_die_rule = false
[house_rules.tapa]
mother_rule = true
"""))
    assert config.rules_for("plakoto").mother_rule is False and config.rules_for("tapa").mother_rule is True
    assert config.rules_for("portes").higher_die_rule is False and "mother_rule" not in config.rules_for("portes").options
    origins = {setting.key: setting.origin for setting in config.settings()}
    assert origins["house_rules.tapa.mother_rule"].endswith("[house_rules.tapa]")
    assert origins["house_rules.plakoto.mother_rule"].endswith("[house_rules]")
    assert origins["house_rules.fevga.start_rule"] == "rules default for fevga"


@pytest.mark.parametrize("text, problem", [
    ("[house_rules.fevga]\nmother_rule = false", "house_rules.fevga.mother_rule: rule 'mother_rule' does not apply "
                                                 "to fevga (it applies to plakoto, tapa, neverfinishing)"),
    ("[house_rules.plakoto]\nmother_rule = 'maybe'", "house_rules.plakoto.mother_rule: rule 'mother_rule': 'maybe' "
                                                     "is not allowed: expected true or false"),
    ("[house_rules.chess]\nx = 1", "house_rules.chess: not a game; allowed: portes, tavla"),
    ("[house_rules]\nhigher_die_rule = 'often'", "house_rules.higher_die_rule: 'often' is not valid: expected true"),
    ("[match]\nsequence = ['portes', 'chess']", "match.sequence: unknown game 'chess'"),
    ("[match]\nsequence = 5", "match.sequence: 5 is not valid; allowed: a preset (tavli, tabla)"),
    ("[match]\ntie_advances_rotation = 'no'", "match.tie_advances_rotation: 'no' is not valid; allowed: true or false"),
    ("[match]\nopening_roll = 'coin'", "match.opening_roll: 'coin' is not valid; allowed: \"reroll\""),
    ("match = 3", "match: 3 is not valid; allowed: a table, [match]"),
])
def test_rule_problems_come_from_the_rules_package(write_config, text, problem):
    assert any(problem in found for found in problems_of(write_config(text)))


def test_match_rules(write_config):
    config = load_config(write_config("[match]\nsequence = ['fevga', 'narde']\ntarget = 7\n"
                                      "opening_roll = 'keep_own_die'\n"))
    assert config.match_rules.sequence == ("fevga", "narde") and config.match_rules.target == 7
    assert config.match_rules.opening_roll == "keep_own_die"


def test_a_seat_can_be_the_bot(write_config):
    assert load_config().bots == frozenset()
    config = load_config(write_config('[match]\nblack = "bot"\nwhite = "person"\n'))
    assert config.bots == {Color.BLACK}
    shown = {setting.key: setting.value for setting in config.settings()}
    assert shown["match.black"] == "bot" and shown["match.white"] == "person"
    assert load_config(write_config('[match]\nwhite = "bot"\nblack = "bot"\n')).bots == {Color.WHITE, Color.BLACK}


def test_a_seat_is_a_person_or_the_bot_and_nothing_else(write_config):
    path = write_config('[match]\nwhite = "robot"\n')
    assert problems_of(path) == [f"{path}: match.white: 'robot' is not valid; allowed: \"person\", \"bot\""]


def test_hints_are_off_unless_the_referee_table_allows_them(write_config):
    assert load_config().hints is False
    assert load_config(write_config("[referee]\nhints = true\n")).hints is True
    assert any("referee.hints" in problem for problem in problems_of(write_config('[referee]\nhints = "yes"\n')))
    assert any("referee.best" in problem for problem in problems_of(write_config("[referee]\nbest = 1\n")))


def test_relative_paths_are_taken_from_the_config_files_folder(write_config, tmp_path):
    config = load_config(write_config('[journal]\npath = "data/journal.sqlite3"\n[logging]\nfile = "log/t.log"\n'))
    assert config.journal_path == tmp_path / "data" / "journal.sqlite3"
    assert config.logging.file == tmp_path / "log" / "t.log"


def test_a_parsed_document_is_checked_the_same_way_under_the_name_it_is_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = parse_config({"match": {"sequence": ["plakoto"], "target": 1}, "journal": {"path": "j.sqlite3"}},
                          "scenario")
    assert config.source == "scenario" and config.match_rules.sequence == ("plakoto",)
    assert config.journal_path.resolve() == (tmp_path / "j.sqlite3").resolve()   # no file: from the working folder
    with pytest.raises(ConfigError) as caught:
        parse_config({"leds": {"brightness": 2}}, "scenario")
    assert [str(problem).split(":")[0] for problem in caught.value.problems] == ["scenario"]


def test_a_missing_or_unparsable_file_is_one_clear_problem(tmp_path, write_config):
    assert problems_of(tmp_path / "absent.toml") == [f"{tmp_path / 'absent.toml'}: (file): no such file"]
    assert "(syntax): is not valid TOML" in problems_of(write_config("[match\n"))[0]


def test_config_check_and_show(write_config, capsys):
    path = write_config("[leds]\nbrightness = 0.2\n")
    assert main(["config", "check", "--config", str(path)]) == 0
    assert "configuration OK" in capsys.readouterr().out
    assert main(["config", "show", "--config", str(path)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert any(line.startswith("leds.brightness = 0.2") and line.endswith(f"# {path}") for line in shown)
    bad = write_config("[leds]\nbrightness = 2\n")
    assert main(["config", "check", "--config", str(bad)]) == 2
    error = capsys.readouterr().err
    assert "nothing was started" in error and "leds.brightness: 2 is not valid" in error


def test_the_hil_rig_report_is_off_unless_set_and_must_be_a_boolean(write_config):
    assert load_config().report_leds is False
    assert load_config(write_config("[hil]\nreport_leds = true\n")).report_leds is True
    assert any("hil.report_leds" in problem for problem in problems_of(write_config('[hil]\nreport_leds = "yes"\n')))
    assert any("hil.colour" in problem for problem in problems_of(write_config("[hil]\ncolour = 1\n")))


def test_the_web_table_sets_the_companions_socket_address_and_hashed_pin(tmp_path):
    pin = hash_pin("5791")
    config = parse_config({"web": {"socket": "sock", "host": "0.0.0.0", "port": 9000, "pin": pin}}, "c.toml",
                          relative_to=tmp_path / "c.toml")
    assert config.web.socket == tmp_path / "sock" and (config.web.host, config.web.port) == ("0.0.0.0", 9000)
    assert pin_matches(config.web.pin, "5791") and not pin_matches(config.web.pin, "5790")
    assert {s.key: s.value for s in config.settings()}["web.pin"] == "set (hashed)"    # never shown


def test_a_web_table_with_a_plain_pin_or_a_bad_port_is_refused_with_each_problem(tmp_path):
    with pytest.raises(ConfigError) as refused:
        parse_config({"web": {"port": 0, "pin": "1234", "colour": "red"}}, "c.toml")
    assert str(refused.value).splitlines() == [
        "c.toml: web.colour: unknown key; allowed: socket, host, port, pin, hosts",
        "c.toml: web.pin: is not a hashed PIN; allowed: the line `tavli-board web-pin` prints",
        "c.toml: web.port: 0 is not valid; allowed: an integer from 1 to 65535"]
