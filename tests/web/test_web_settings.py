"""What the settings page may change and how it is written: only its tables and keys, checked by the
config parser, the file replaced whole or not at all."""
import pytest

from firmware_host.config import ConfigError, load_config
from firmware_host.rules import Color
from firmware_host.web.settings import SettingsRefused, merged_document, save_settings, settings_form


def test_changes_are_laid_over_the_file_and_other_tables_are_refused():
    document = {"hardware": "simulated", "match": {"sequence": "tavli"}, "house_rules": {"plakoto": {"mother_rule": True}}}
    merged = merged_document(document, {"match": {"target": 3}, "house_rules": {"plakoto": {"mother_loss_points": 3},
                                                                                  "fevga": {"prime_rule": "none"}}})
    assert merged == {"hardware": "simulated", "match": {"sequence": "tavli", "target": 3},
                      "house_rules": {"plakoto": {"mother_rule": True, "mother_loss_points": 3},
                                      "fevga": {"prime_rule": "none"}}}
    assert document["match"] == {"sequence": "tavli"}          # the caller's document untouched
    for changes, message in (([1], "settings: an object of tables"),
                             ({"hardware": {"x": 1}}, "settings.hardware: not settable from the web page"),
                             ({"leds": {"count": 5}}, "settings.leds.count: not settable from the web page; allowed: "
                                                      "brightness, palette"),
                             ({"match": 5}, "settings.match: an object (a TOML table)"),
                             ({"house_rules": {"fevga": 1}}, "settings.house_rules.fevga: an object of rules")):
        with pytest.raises(SettingsRefused, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
            merged_document(document, changes)


def test_a_refused_change_leaves_the_file_as_it_was_and_an_accepted_one_replaces_it(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# my board\nhardware = "simulated"\n[journal]\npath = "j.sqlite3"\n')
    path.chmod(0o640)
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"match.target: 0 is not valid"):
        save_settings(path, {"match": {"target": 0}})
    assert path.read_bytes() == before and list(tmp_path.iterdir()) == [path]   # no temporary file left
    config = save_settings(path, {"match": {"sequence": "portes,fevga", "target": 9}, "sensors": {"quiet_ms": 250}})
    assert config.match_rules.sequence == ("portes", "fevga") and config.match_rules.target == 9
    assert load_config(path).sensing.sensors.quiet_ms == 250
    assert load_config(path).journal_path == tmp_path / "j.sqlite3"            # the rest of the file kept
    assert path.stat().st_mode & 0o777 == 0o640


def test_the_form_lists_every_house_rule_of_every_game_with_its_default_and_explanation(tmp_path):
    form = settings_form(load_config(None))
    assert [game["game"] for game in form["house_rules"]][:3] == ["portes", "tavla", "plakoto"]
    fevga = next(game for game in form["house_rules"] if game["game"] == "fevga")
    rule = next(rule for rule in fevga["rules"] if rule["name"] == "start_rule")
    assert rule["default"] == "first_checker" and rule["kind"] == "choice" and "passed the opponent's" in rule["explanation"]
    doubles = next(rule for rule in fevga["rules"] if rule["name"] == "head_rule_first_roll_doubles")
    assert doubles["kind"] == "dice" and doubles["default"] == [3, 4, 6]
    assert {setting["key"] for setting in form["settings"]} >= {"match.sequence", "leds.brightness", "sensors.grace_ms"}
    assert form["pin_set"] is False


def test_a_seat_is_chosen_person_or_bot_checked_by_the_parser_and_written_to_match(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('hardware = "simulated"\n[match]\nsequence = "portes"\n')
    form = {setting["key"]: setting for setting in settings_form(load_config(path))["settings"]}
    assert form["match.white"]["value"] == "person" and form["match.white"]["choices"] == ["person", "bot"]
    assert form["match.black"]["label"] == "Black is played by" and "the bot" in form["match.black"]["explanation"]
    before = path.read_bytes()
    for seat in ("robot", True, 1):
        with pytest.raises(ConfigError, match=r"match.black: .* is not valid; allowed: .*person.*bot"):
            save_settings(path, {"match": {"black": seat}})
        assert path.read_bytes() == before
    config = save_settings(path, {"match": {"black": "bot"}})
    assert config.bots == {Color.BLACK}
    reread = load_config(path)
    assert reread.bots == {Color.BLACK} and reread.match_rules.sequence == ("portes",)
    assert {setting["key"]: setting["value"] for setting in settings_form(reread)["settings"]}["match.black"] == "bot"
