"""`tavli-board run`, the systemd service, on the simulated board: as a child process talking to a fake
systemd, and in this process where its LEDs and journal can be looked at."""
import dataclasses
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.hil.remote import StatusTap
from firmware_host.service.trace import parse_trace
from firmware_host.journal import Journal, JournalReader, Kind
from firmware_host.leds.render import OFF
from firmware_host.rules import WHITE
from firmware_host.service.notify import SystemdNotifier
from firmware_host.service.run import Service

WATCHDOG_USEC = 200_000   # pings every 0.1 s: several within the test
FIRST_GAME = "game 1 of tavli (portes)"
FIRST_MATCH = f"match 1, {FIRST_GAME}"   # once its first game begins, the match has its number


def test_a_bad_configuration_exits_2_with_the_error_and_opens_nothing(tmp_path, config_file, capsys):
    config_file.write_text(config_file.read_text() + 'hardware_typo = 1\n')
    assert main(["run", "--config", str(config_file)]) == 2
    error = capsys.readouterr().err
    assert "the configuration is not usable, nothing was started" in error and "hardware_typo" in error
    assert not (tmp_path / "journal.sqlite3").exists() and not (tmp_path / "log").exists()


def test_the_service_tells_systemd_ready_pings_the_watchdog_and_stops_cleanly_on_sigterm(tmp_path, config_file,
                                                                                       systemd):
    environment = {**os.environ, "NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config_file)],
                             env=environment, stderr=subprocess.PIPE, text=True)
    try:
        assert systemd.wait_for("READY=1")[-1].startswith(f"READY=1\nSTATUS={FIRST_GAME}: ")
        systemd.wait_for("WATCHDOG=1")
        systemd.wait_for("WATCHDOG=1")
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 0, child.stderr.read()
    finally:
        child.kill()
        child.wait()
    assert {message for message in systemd.wait_for("STOPPING=1") if not message.startswith("STATUS=")} <= \
        {"WATCHDOG=1", "STOPPING=1"}
    with JournalReader.open(tmp_path / "journal.sqlite3") as journal:
        assert [event.data["what"] for event in journal.tail(2)] == ["started", "stopped"]


@pytest.fixture
def config(config_file):
    return load_config(config_file)


def run_until_ready(service):
    """Run `service` on a thread until it has told systemd it is ready; returns the thread."""
    ready = threading.Event()
    service.loop.observers.append(lambda view, event: service.ready and ready.set())
    thread = threading.Thread(target=service.run)
    thread.start()
    assert ready.wait(20), "the service never became ready"
    return thread


def test_the_leds_are_dark_after_a_stop(config, systemd):
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    thread = run_until_ready(service)
    service.stop()
    thread.join(20)
    frames = service.hardware.strip.frames
    assert any(pixel != OFF for frame in frames for pixel in frame), "the board was never lit"
    assert set(frames[-1]) == {OFF}
    assert systemd.received()[-1] == "STOPPING=1"


def test_systemd_hears_the_state_of_the_match_whenever_it_changes(config, systemd):
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    thread = run_until_ready(service)
    try:
        # The simulated board starts laid out for portes: once read, the opening roll is due.
        assert systemd.wait_for("READY=1")[-1].startswith(f"READY=1\nSTATUS={FIRST_GAME}: ")
        assert systemd.wait_for(f"STATUS={FIRST_MATCH}: opening roll")[-1] == \
            f"STATUS={FIRST_MATCH}: opening roll; white 0, black 0 (to 5)"
        pin = config.pins.button.pin
        while service.loop.controller.state == "opening_roll":   # ties roll again
            service.hardware.simulation.press_button(pin)
            time.sleep(0.1)
            service.hardware.simulation.release_button(pin)
            time.sleep(0.1)
        status = systemd.wait_for(f"STATUS={FIRST_MATCH}: ", timeout_s=5)[-1]
        assert re.fullmatch(rf"STATUS={re.escape(FIRST_MATCH)}: (white|black) to (roll|move [1-6]-[1-6]); "
                            r"white 0, black 0 \(to 5\)", status), status
    finally:
        service.stop()
        thread.join(20)
    assert systemd.received()[-1] == "STOPPING=1"


def test_the_unfinished_match_in_the_journal_goes_on_where_it_stopped(config, systemd, caplog):
    with Journal.open(config.journal_path) as journal:
        match_id = journal.start_match(config.match_rules)
        journal.start_game("portes", config.rules_for("portes"), starter=WHITE)
        journal.record_roll(WHITE, (6, 5))
    caplog.set_level(logging.INFO, logger="firmware_host.service.run")
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    thread = run_until_ready(service)
    try:
        # The simulated board shows the portes start: the journaled position, so White plays the 6-5.
        assert systemd.wait_for(f"STATUS=match {match_id}, {FIRST_GAME}: white to move 6-5")
    finally:
        service.stop()
        thread.join(20)
    assert f"resuming match {match_id} (white 0, black 0), game 1 of portes, white to play 6-5" in caplog.text
    with JournalReader.open(config.journal_path) as journal:
        assert journal.match_ids() == [match_id]   # taken up, not abandoned for a new one
        started = [event for event in journal.tail(10) if event.data.get("what") == "started"]
    assert started[0].data["resumed"] == {
        "match": match_id, "score": {"white": 0, "black": 0},
        "game": {"number": 1, "variant": "portes", "side_to_move": "white", "pending_roll": [6, 5], "last_play": None}}


def test_an_unplugged_sensor_mcu_still_makes_the_service_ready_in_link_lost(config, systemd):
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    service.hardware.simulation.mcu.unplug()
    thread = run_until_ready(service)
    state = service.loop.controller.state
    service.stop()
    thread.join(20)
    assert state == "link_lost"
    assert systemd.received() == [f"READY=1\nSTATUS=sensor link lost, waiting for the board; {FIRST_GAME}: setting up "
                                  "the board; white 0, black 0 (to 5)", "STOPPING=1"]


def test_an_mcu_that_never_answers_makes_the_service_ready_in_link_lost(config, systemd):
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    service.hardware.simulation.mcu.go_silent()   # the port opens; no hello, no frame ever comes
    thread = run_until_ready(service)
    state = service.loop.controller.state
    service.stop()
    thread.join(20)
    assert state == "link_lost"
    assert systemd.received()[0].startswith("READY=1\nSTATUS=sensor link lost, waiting for the board; ")
    with JournalReader.open(config.journal_path) as journal:
        [fault] = [event for event in journal.tail(10) if event.kind is Kind.FAULT]
    assert fault.data["fault"] == "link_lost" and fault.data["message"].startswith("no frame for ")


def test_a_hung_loop_stops_pinging_the_watchdog_so_systemd_restarts_it(config, systemd):
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path),
                                                    "WATCHDOG_USEC": str(WATCHDOG_USEC)}))
    hung, release = threading.Event(), threading.Event()

    def hang(view, event):
        if event == "hang":   # the loop's thread is stuck here, as in a search that never ends
            hung.set()
            release.wait(10)
    service.loop.observers.append(hang)
    thread = run_until_ready(service)
    try:
        systemd.wait_for("WATCHDOG=1")
        service.loop.post("hang")
        assert hung.wait(5)
        systemd.received()
        time.sleep(3 * WATCHDOG_USEC / 1e6)
        assert "WATCHDOG=1" not in systemd.received()
        release.set()
        systemd.wait_for("WATCHDOG=1", timeout_s=5)
    finally:
        release.set()
        service.stop()
        thread.join(20)


def test_a_corrupt_journal_is_moved_aside_and_the_service_starts_on_a_new_one(config, caplog):
    config.journal_path.write_bytes(b"not a database at all, a power cut mid-copy perhaps" * 100)
    service = Service.open(config)
    thread = run_until_ready(service)
    service.stop()
    thread.join(20)
    [moved] = config.journal_path.parent.glob(f"{config.journal_path.name}.corrupt-*")
    assert moved.read_bytes().startswith(b"not a database at all")
    assert f"moved it aside to {moved}" in caplog.text
    with JournalReader.open(config.journal_path) as journal:
        assert [event.data["what"] for event in journal.tail(10) if event.kind is Kind.SERVICE] == \
            ["journal_moved_aside", "journal_opened", "started", "stopped"]   # the new journal is born saying it


@pytest.mark.parametrize("report_leds", [False, True])
def test_the_led_status_goes_over_the_sensor_link_only_when_a_hil_rig_asks_for_it(config, systemd, report_leds):
    config = dataclasses.replace(config, report_leds=report_leds)
    service = Service.open(config, SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)}))
    thread = run_until_ready(service)
    try:
        systemd.wait_for(f"STATUS={FIRST_MATCH}: opening roll")
        time.sleep(0.3)   # the reporter writes on the link's thread
    finally:
        service.stop()
        thread.join(20)
    tap = StatusTap()
    tap.feed(b"".join(record.value for record in parse_trace(service.trace.lines()).records if record.kind == "tx"))
    states = [status.state for _, status in tap.statuses]
    assert ("opening_roll" in states) == report_leds and bool(states) == report_leds


def test_real_hardware_off_a_pi_without_a_sensor_board_says_what_is_missing_and_starts_nothing(tmp_path, capsys,
                                                                                                 monkeypatch):
    """Issue 30: `run --config systemd/config.toml` on a laptop printed three ERROR lines and waited for ever."""
    from firmware_host.hw import pimodel
    monkeypatch.setattr(pimodel, "MODEL_FILE", tmp_path / "no-device-tree")
    config = tmp_path / "config.toml"
    config.write_text(f'hardware = "real"\n[serial]\nport = "{tmp_path / "tavli-sensors"}"\n'
                      f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n[logging]\nfile = "{tmp_path / "log"}"\n')
    assert main(["run", "--config", str(config)]) == 2
    said = capsys.readouterr().err
    assert "this machine is not a Raspberry Pi" in said and f"no sensor board is at {tmp_path / 'tavli-sensors'}" in said
    assert "`tavli-board demo`" in said and 'hardware = "simulated"' in said and len(said.strip().splitlines()) == 1
    assert not (tmp_path / "journal.sqlite3").exists()      # nothing was started
