"""The companion socket of the service (docs/companion-protocol.md): snapshots on every change, checked
commands, and a referee that a slow, silent or dead client costs nothing."""
import json
import socket
import threading
import time

import pytest

from firmware_host.config import load_config
from firmware_host.service import companion as companion_module
from firmware_host.service.run import Service
from firmware_host.leds.scene import Mark, Scene
from firmware_host.rules import Color
from firmware_host.sensing.reading import BoardReading


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'hardware = "simulated"\n'
                    f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                    f'[logging]\nfile = "{tmp_path / "tavli-board.log"}"\n'
                    f'raw_frames_dir = "{tmp_path / "raw"}"\n'
                    f'[match]\nsequence = "tavli"\ntarget = 5\n')
    return path


@pytest.fixture
def service(config_file):
    service = Service.open(load_config(config_file))
    thread = threading.Thread(target=service.run)
    thread.start()
    yield service
    service.stop()
    thread.join(20)
    assert not thread.is_alive()


class Client:
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(str(path))
        self.socket.settimeout(10)
        self.file = self.socket.makefile("rb")

    def send(self, data) -> None:
        self.socket.sendall((data if isinstance(data, bytes) else json.dumps(data).encode()) + b"\n")

    def next(self, wanted=lambda message: True) -> dict:
        while True:
            line = self.file.readline()
            assert line, "the service closed the connection"
            message = json.loads(line)
            if wanted(message):
                return message

    def snapshot(self, wanted=lambda snapshot: True) -> dict:
        return self.next(lambda message: message["type"] == "snapshot" and wanted(message))

    def reply(self, request) -> dict:
        self.send(request)
        return self.next(lambda message: message["type"] == "reply")

    def close(self) -> None:
        self.file.close()
        self.socket.close()


@pytest.fixture
def client(service):
    client = Client(service.config.web.socket)
    yield client
    client.close()


def white_points(snapshot) -> dict:
    return snapshot["reading"]["white"]["points"]


def test_a_client_hears_the_board_at_once_and_every_change_of_it(service, client):
    first = client.snapshot(lambda s: s["reading"] is not None)
    assert first["protocol"] == companion_module.PROTOCOL_VERSION
    assert white_points(first) == {"6": 5, "8": 3, "13": 5, "24": 2}      # the simulated board's opening
    assert first["match"]["sequence"] == ["portes", "plakoto", "fevga"] and first["match"]["target"] == 5
    board = service.hardware.simulation.board
    board.lift(13, "white")
    lifted = client.snapshot(lambda s: s["reading"] and white_points(s).get("13") == 4)
    assert lifted["changing"] or lifted["reading"]["white"]["points"]["13"] == 4
    board.place(9, "white")
    placed = client.snapshot(lambda s: s["reading"] and white_points(s).get("9") == 1 and not s["changing"])
    assert placed["seq"] > first["seq"]


def test_snapshots_are_sent_only_when_something_changed(service, client):
    snapshot = client.snapshot(lambda s: s["reading"] is not None and not s["changing"])
    client.socket.settimeout(1.0)
    with pytest.raises(TimeoutError):   # a board standing still, no timer: nothing more to say
        while True:
            later = client.next()
            assert later["seq"] > snapshot["seq"]
            snapshot = later


def test_bad_commands_get_a_reply_that_says_what_is_wrong_and_change_nothing(service, client):
    before = client.snapshot(lambda s: s["reading"] is not None)
    replies = [client.reply(request) for request in (
        b"not json", b"[1, 2]", {"command": "reboot"}, {"command": "referee", "action": "explode"},
        {"command": "referee"}, {"command": "snapshot", "extra": 1}, {"command": "new_match", "match": "tavli"},
        {"command": "new_match", "match": {"target": 0}}, {"command": "snapshot", "id": [1]},
        {"command": "referee", "action": "next", "id": 7})]
    errors = [reply["error"] for reply in replies]
    assert all(not reply["ok"] for reply in replies)
    assert errors[0].startswith("not a JSON object")
    assert errors[2] == "unknown command 'reboot'; allowed: snapshot, referee, new_match, apply_settings, self_test"
    assert "action 'explode' is not valid" in errors[3] and "action None" in errors[4]
    assert errors[5] == "snapshot: unknown key 'extra'; allowed: none"
    assert errors[6] == "new_match: match must be an object (a TOML table)"
    assert "new match: match.target: 0 is not valid; allowed: an integer from 1 to 99" in errors[7]
    assert errors[9] == "not in referee mode" and replies[9]["id"] == 7
    client.send({"command": "snapshot"})
    after = client.snapshot()
    assert after["match"] == before["match"] and after["state"] == before["state"]


def test_a_new_match_before_the_first_game_takes_its_preset_target_and_house_rules(service, client):
    client.snapshot(lambda s: s["reading"] is not None)
    reply = client.reply({"command": "new_match", "id": "m1", "match": {"sequence": "fevga", "target": 3},
                          "house_rules": {"fevga": {"start_table_scope": "both"}}})
    assert reply["ok"], reply
    assert reply["id"] == "m1" and reply["sequence"] == ["fevga"] and reply["target"] == 3
    snapshot = client.snapshot(lambda s: s["match"]["sequence"] == ["fevga"])
    assert snapshot["game"]["variant"] == "fevga" and snapshot["game"]["rules"]["start_table_scope"] == "both"
    assert snapshot["state"] == "setup"                  # the board still shows portes: set it up for fevga
    assert snapshot["verdict"]["kind"] == "setup" and snapshot["verdict"]["steps"]


def test_a_new_match_refuses_seats_which_are_settings(service, client):
    client.snapshot()
    reply = client.reply({"command": "new_match", "match": {"sequence": "portes", "black": "bot"}})
    assert not reply["ok"] and reply["error"] == ("new_match: match.black is a setting, not a match's: who plays a "
                                                  "side changes with the settings (apply_settings), from that side's "
                                                  "next roll")
    assert service.loop.controller.bots == frozenset() and service.loop.controller.match_rules.sequence != ("portes",)


def test_seats_are_applied_from_the_file_without_a_restart(service, client, config_file):
    client.snapshot()
    config_file.write_text(config_file.read_text().replace('target = 5', 'target = 5\nwhite = "bot"'))
    applied = client.reply({"command": "apply_settings"})
    assert applied["ok"] and applied["changed"] == ["match.white"] and applied["restart"] == []
    assert service.loop.controller.bots == {Color.WHITE}
    assert client.snapshot(lambda s: s["seats"]["white"] == "bot")["seats"] == {"white": "bot", "black": "person"}


def test_a_line_too_long_is_refused_and_the_client_dropped(service, client):
    client.snapshot()
    client.send(b"x" * (companion_module.LINE_LIMIT + 10))
    reply = client.next(lambda message: message["type"] == "reply")
    assert reply["error"] == f"a command line is longer than {companion_module.LINE_LIMIT} bytes"
    assert client.file.readline() == b""     # dropped
    other = Client(service.config.web.socket)
    try:
        assert other.snapshot()["type"] == "snapshot"     # the service is unaffected
    finally:
        other.close()


def test_a_client_that_never_reads_costs_the_loop_nothing_and_hears_only_the_newest(service, client):
    companion = service.companion
    client.snapshot()
    silent = Client(service.config.web.socket)   # connected, never reads
    time.sleep(0.3)
    big = {"type": "snapshot", "padding": "p" * 20_000}
    started = time.perf_counter()
    for _ in range(2000):   # 40 MB offered to a client that reads nothing
        companion.publish(big)
    per_publish = (time.perf_counter() - started) / 2000
    assert per_publish < 0.005, f"publishing took {per_publish * 1e3:.2f} ms a snapshot"
    queues = [len(c.queue) for c in companion._clients.values()]
    assert max(queues) <= companion_module.QUEUE_LIMIT
    last_seq = companion._sequence
    # The board is still refereed: a change is still seen by a client that does read.
    service.hardware.simulation.board.lift(6, "white")
    client.snapshot(lambda s: s.get("reading") and s["reading"]["white"]["points"].get("6") == 4)
    # The silent client, reading at last, skips what fell off its queue and reaches the newest.
    seqs = []
    silent.socket.settimeout(5)
    while not seqs or seqs[-1] < last_seq:
        seqs.append(silent.next()["seq"])
    assert len(seqs) < 2000
    silent.close()


def test_a_dead_client_is_dropped_and_the_rest_go_on(service, client):
    client.snapshot()
    dead = Client(service.config.web.socket)
    dead.socket.shutdown(socket.SHUT_RDWR)
    dead.close()
    service.hardware.simulation.board.lift(24, "white")
    client.snapshot(lambda s: s["reading"] and s["reading"]["white"]["points"].get("24") == 1)
    deadline = time.monotonic() + 5
    while service.companion.clients != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.companion.clients == 1


def test_settings_are_applied_from_the_file_or_refused_with_the_parsers_message(service, client, config_file):
    client.snapshot()
    text = config_file.read_text()
    config_file.write_text(text.replace("target = 5", "target = 500"))
    refused = client.reply({"command": "apply_settings"})
    assert not refused["ok"] and "match.target: 500 is not valid; allowed: an integer from 1 to 99" in refused["error"]
    config_file.write_text(text.replace("target = 5", "target = 7") + "[leds]\nbrightness = 0.5\n")
    applied = client.reply({"command": "apply_settings"})
    assert applied["ok"], applied
    assert applied["changed"] == ["leds.brightness", "match.target"] and applied["restart"] == []
    assert service.loop.controller.match_rules.target == 7
    renderer = service.loop.renderer          # a steady white mark at full intensity: half of 255 now
    frame = renderer.render(Scene({"1": Mark.LIFTED_ORIGIN}), 0.0)
    assert max(frame[renderer.layout.locations["1"][0]]) in range(125, 130)


def test_a_socket_that_cannot_be_opened_leaves_the_referee_running(config_file, tmp_path, caplog):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the socket's folder should be")
    config_file.write_text(config_file.read_text() + f'[web]\nsocket = "{blocked / "companion.sock"}"\n')
    service = Service.open(load_config(config_file))
    thread = threading.Thread(target=service.run)
    thread.start()
    try:
        assert service.companion is None
        assert "web companion: cannot open its socket" in caplog.text
        deadline = time.monotonic() + 10
        while service.loop.controller.sensed is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert service.loop.controller.sensed == BoardReading.loads(
            service.hardware.simulation.board.reading().dumps())
    finally:
        service.stop()
        thread.join(20)


def press(service) -> None:
    pin = service.config.pins.button.pin
    service.hardware.simulation.press_button(pin)
    time.sleep(0.1)
    service.hardware.simulation.release_button(pin)
    time.sleep(0.1)


def test_referee_mode_is_entered_paged_and_left_from_the_socket(service, client):
    client.snapshot(lambda s: s["state"] == "opening_roll")
    refused = client.reply({"command": "referee", "action": "enter"})
    assert refused["error"] == "referee mode opens during a game (now: opening roll)"
    deadline = time.monotonic() + 20
    while service.loop.controller.state != "moving":      # ties roll again; a non-starter's first roll
        assert time.monotonic() < deadline, service.loop.controller.state
        press(service)
    entered = client.reply({"command": "referee", "action": "enter"})
    assert entered["ok"] and entered["state"] == "referee"
    first = client.snapshot(lambda s: s["state"] == "referee")
    assert first["referee"]["page"] == "legal_play" and first["referee"]["index"] == 0
    assert client.reply({"command": "referee", "action": "next"})["ok"]
    second = client.snapshot(lambda s: s["referee"] and s["referee"]["index"] == 1)
    assert second["referee"]["of"] == first["referee"]["of"]
    left = client.reply({"command": "referee", "action": "leave"})
    assert left["ok"] and left["state"] == "moving"
    refused = client.reply({"command": "new_match", "match": {"target": 3}})["error"]
    assert refused.startswith("a match is under way") and "(now: match 1, game 1 of tavli (portes): " in refused


def test_settings_that_need_a_restart_end_the_service_for_systemd_to_start_again(config_file):
    service = Service.open(load_config(config_file))
    thread = threading.Thread(target=service.run)
    thread.start()
    client = Client(service.config.web.socket)
    try:
        client.snapshot()
        config_file.write_text(config_file.read_text() + "[sensors]\nquiet_ms = 250\n")
        reply = client.reply({"command": "apply_settings"})
        assert reply["ok"] and reply["restart"] == ["sensors.quiet_ms"] and reply["restarting"] is True
        thread.join(20)
        assert not thread.is_alive()                     # stopped cleanly: Restart=always starts it again
    finally:
        client.close()
        service.stop()
        thread.join(20)


def test_a_second_service_on_the_same_socket_leaves_the_first_ones_alone(service, client, config_file, caplog):
    client.snapshot()
    second = Service.open(load_config(config_file))
    try:
        assert second.companion is None and "another service already answers on" in caplog.text
    finally:
        second.hardware.close()
        second.journal.close()
    other = Client(service.config.web.socket)      # the first still takes new clients
    try:
        assert other.snapshot()["type"] == "snapshot"
    finally:
        other.close()


def test_a_socket_left_by_a_killed_service_is_replaced(config_file):
    config = load_config(config_file)
    config.web.socket.parent.mkdir(parents=True, exist_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(config.web.socket))
    stale.close()                                   # the file stays, nobody listens
    service = Service.open(config)
    try:
        assert service.companion is not None
    finally:
        service.companion.close()
        service.hardware.close()
        service.journal.close()


def test_the_sensor_mcus_self_test_is_asked_for_and_its_result_published(service, client):
    client.snapshot(lambda s: s["link"]["up"])
    assert client.reply({"command": "self_test"}) == {"type": "reply", "id": None, "ok": True, "command": "self_test",
                                                      "requested": True}
    assert client.snapshot(lambda s: s["link"]["selftest"] is not None)["link"]["selftest"] == \
        {"passed": True, "failures": []}
    service.hardware.simulation.mcu.fail_self_test([("point:7", 3)])
    client.send({"command": "self_test"})
    failed = client.snapshot(lambda s: s["link"]["selftest"] and not s["link"]["selftest"]["passed"])
    assert failed["link"]["selftest"]["failures"] == [["point:7", "out_of_range"]]
