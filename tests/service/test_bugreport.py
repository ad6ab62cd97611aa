import os
import stat
import tarfile
import time

from firmware_host.cli import main
from firmware_host.controller.orientation import Orientation
from firmware_host.journal import Journal
from firmware_host.rules import WHITE, Position, Rules, legal_plays
from firmware_host.rules.match import MatchRules
from firmware_host.service.bugreport import build_bug_report
from firmware_host.service.rawlog import RawFrameRecorder


def contents(bundle) -> dict[str, str]:
    with tarfile.open(bundle) as archive:
        return {member.name.split("/", 1)[1]: archive.extractfile(member).read().decode()
                for member in archive.getmembers()}


def test_the_bundle_holds_config_log_journal_and_the_last_minute_of_frames(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[journal]\npath = "journal.sqlite3"\n[logging]\nfile = "log/t.log"\nbackups = 2\n'
                      'raw_frames_dir = "raw"\n')
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "t.log.1").write_text("older line\n")
    (tmp_path / "log" / "t.log").write_text("newest line\n")
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("tapa",)))
    journal.record_fault("link-lost", "unplugged")
    now = time.time()
    recorder = RawFrameRecorder(tmp_path / "raw", wall_clock=lambda: now - 120)
    recorder.record("rx", b"\x00\xaa")            # two minutes ago: not in the report
    recorder._wall_clock = lambda: now - 5
    recorder.record("rx", b"\x00\xbb")
    recorder.close()
    files = contents(build_bug_report(config, tmp_path / "out" / "report.tar.gz", now))
    assert files["config/config.toml"] == config.read_text()
    assert 'journal.path = "' in files["config/effective.txt"] and "board.toml" in files["README.txt"]
    assert "[button]" in files["config/board.toml"]
    assert files["log/tail.log"] == "older line\nnewest line\n"
    assert '"fault": "link-lost"' in files["journal/tail.jsonl"]
    assert files["raw-frames/last-minute.txt"].strip().endswith("rx 00 bb") and "aa" not in files["raw-frames/last-minute.txt"]
    assert "journal/last-board.svg" not in files       # no position journaled yet


def test_the_bundle_draws_the_last_journaled_position_as_the_board_lay(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[journal]\npath = "journal.sqlite3"\n[logging]\nfile = "t.log"\nraw_frames_dir = "raw"\n')
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.start_match(MatchRules(sequence=("portes",)))
    start = Position.start("portes")
    journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE, position=start,
                       orientation=Orientation.SEATS_SWAPPED.value)
    journal.record_roll(WHITE, (6, 5))
    play = next(play for play in legal_plays(start, (6, 5)) if [m.origin for m in play.moves] == ["24", "18"])
    journal.record_play(WHITE, (6, 5), play)
    journal.close()
    svg = contents(build_bug_report(config, tmp_path / "report.tar.gz"))["journal/last-board.svg"]
    assert "the board lay seats-swapped" in svg and "portes, black to play" in svg
    # White's checker on 13 (24 -> 18 -> 13) lies on physical point 12 with the seats swapped: 6 there now.
    assert 'data-location="12" data-white="6" data-black="0"' in svg


def test_the_bundle_is_readable_by_its_owner_only_whatever_the_umask(tmp_path):
    output = tmp_path / "report.tar.gz"
    output.write_text("an older report, world-readable")
    output.chmod(0o644)
    previous = os.umask(0)
    try:
        build_bug_report(None, output)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    with tarfile.open(output) as archive:
        assert {member.mode for member in archive.getmembers()} == {0o600}


def test_a_broken_configuration_still_gives_a_report_that_says_why(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[leds]\nbrightness = 7\n")
    output = tmp_path / "report.tar.gz"
    assert main(["bug-report", "--config", str(config), "--output", str(output)]) == 0
    files = contents(output)
    assert "leds.brightness: 7 is not valid" in files["config/effective.txt"]
    assert files["config/config.toml"] == config.read_text()
    assert "cannot be read" in files["journal/tail.jsonl"] or "no journal" in files["journal/tail.jsonl"]
    assert f"bug report written to {output}" in capsys.readouterr().out


def test_no_secret_goes_into_the_bundle_whoever_makes_it(tmp_path, capsys):
    from firmware_host.config import hash_pin

    hashed = hash_pin("2468")
    config = tmp_path / "config.toml"
    config.write_text(f'[journal]\npath = "journal.sqlite3"\n[logging]\nfile = "t.log"\nraw_frames_dir = "raw"\n'
                      f'[web]\nport = 8080\npin = "{hashed}"\n'
                      f'[pins.button]\npin = 17\n')   # a GPIO number, not a secret: kept
    (tmp_path / "t.log").write_text(f"a line quoting the file: pin = {hashed}\n")
    output = tmp_path / "report.tar.gz"
    assert main(["bug-report", "--config", str(config), "--output", str(output)]) == 0
    files = contents(output)
    assert not any(hashed.split("$")[-1] in text or "scrypt$" in text for text in files.values())
    assert 'pin = "(removed from the bug report)"' in files["config/config.toml"]
    assert "port = 8080" in files["config/config.toml"] and "pin = 17" in files["config/config.toml"]
