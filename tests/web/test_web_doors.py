"""The companion's doors (issue 29): the bug report needs the PIN and holds no secret, a wrong PIN locks
out its own client only (and guessing from many addresses stays slow), a foreign Host is refused (DNS
rebinding), and the odd inputs that were server errors are refused with a 4xx saying what is wrong."""
import io
import json
import socket
import tarfile
import time

import pytest
from starlette.testclient import TestClient
from web_kit import BASE_URL, PIN, csrf_headers, write_config

from firmware_host.config import load_config
from firmware_host.rules import Position
from firmware_host.web.app import create_app
from firmware_host.web.guard import (CLIENT_TRIES, CLIENT_WINDOW_S, TOTAL_TRIES, TOTAL_WINDOW_S, LocalAddresses,
                                     PinGuard, client_key, host_name)


@pytest.fixture
def app(tmp_path):
    """The companion with no service behind its socket: the PIN is checked before the service is asked."""
    return create_app(load_config(write_config(tmp_path)))


def device(app, address: str) -> TestClient:
    client = TestClient(app, base_url=BASE_URL, client=(address, 40000))
    client.get("/")      # the CSRF cookie
    return client


def save(client: TestClient, pin: str):
    return client.post("/api/settings", headers=csrf_headers(client), json={"pin": pin, "settings": {}})


# == the bug report ===================================================================================

def test_the_bug_report_needs_the_pin_and_holds_no_pin_hash(app, tmp_path):
    owner = device(app, "192.168.1.20")
    assert owner.get("/bug-report").status_code == 401
    assert owner.post("/bug-report", headers=csrf_headers(owner), json={}).status_code == 401
    assert owner.post("/bug-report", headers=csrf_headers(owner), json={"pin": "0000"}).status_code == 403
    report = owner.post("/bug-report", headers=csrf_headers(owner), json={"pin": PIN})
    assert report.status_code == 200 and report.headers["content-type"] == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(report.content)) as bundle:
        texts = {member.name.split("/", 1)[1]: bundle.extractfile(member).read().decode() for member in bundle}
    assert "config/config.toml" in texts and 'socket = "' in texts["config/config.toml"]
    assert 'pin = "(removed from the bug report)"' in texts["config/config.toml"]
    assert not any("scrypt$" in text for text in texts.values())


# == wrong PINs ========================================================================================

def test_one_device_guessing_never_locks_out_another(app):
    attacker, owner = device(app, "192.168.1.66"), device(app, "192.168.1.20")
    answers = [save(attacker, "0000").status_code for _ in range(CLIENT_TRIES + 2)]
    assert answers == [403] * CLIENT_TRIES + [429, 429]
    assert save(owner, PIN).status_code == 200
    assert save(attacker, PIN).status_code == 429          # the locked device waits, even with the right PIN


def test_guessing_from_many_addresses_is_bounded_in_total_and_the_owners_device_still_works(app):
    owner = device(app, "192.168.1.20")
    assert save(owner, PIN).status_code == 200             # the owner's device, known from before
    wrong = []
    for number in range(TOTAL_TRIES + 5):
        answer = save(device(app, f"10.0.{number // 200}.{number % 200 + 1}"), "0000")
        wrong.append(answer.status_code)
    assert wrong == [403] * TOTAL_TRIES + [429] * 5
    assert "several devices" in save(device(app, "10.9.9.9"), PIN).json()["error"]
    assert save(owner, PIN).status_code == 200


def test_the_pin_guard_forgets_wrong_tries_after_their_windows():
    now = [0.0]
    guard = PinGuard(clock=lambda: now[0])
    for _ in range(CLIENT_TRIES):
        guard.tried("a")
    assert guard.refusal("a") and guard.refusal("b") is None
    now[0] = CLIENT_WINDOW_S
    assert guard.refusal("a") is None
    for number in range(TOTAL_TRIES):
        guard.tried(f"c{number}")
    assert "several devices" in guard.refusal("d")
    now[0] += TOTAL_WINDOW_S
    assert guard.refusal("d") is None


def test_a_client_is_an_ipv4_address_or_an_ipv6_slash_64():
    assert client_key("192.168.1.20") != client_key("192.168.1.21")
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1") != client_key("2001:db8:0:1::1")
    assert client_key("::ffff:192.168.1.20") == client_key("192.168.1.20")


# == the Host header ====================================================================================

@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "127.0.1.1",
                                  socket.gethostname(), "tavli.example"])
def test_the_companion_answers_to_its_own_names_and_addresses(tmp_path, host):
    config = write_config(tmp_path)
    config.write_text(config.read_text() + 'hosts = ["tavli.example"]\n')
    client = TestClient(create_app(load_config(config)), base_url=f"http://{host}")
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "localhost.evil.example", "192.0.2.1", "",
                                  "[::1", "localhost:http"])
def test_a_foreign_host_is_refused_so_dns_rebinding_reaches_nothing(app, host):
    client = TestClient(app, base_url="http://localhost")
    page = client.get("/", headers={"Host": host})
    assert page.status_code == 400 and "does not answer to the host name" in page.json()["error"]
    client.get("/")
    changed = client.post("/api/referee", json={"action": "enter"},
                          headers={**csrf_headers(client), "Host": host, "Origin": f"http://{host}"})
    assert changed.status_code == 400 and "does not answer to the host name" in changed.json()["error"]


def test_any_host_when_the_configuration_says_so(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text() + 'hosts = ["*"]\n')
    assert TestClient(create_app(load_config(config)), base_url="http://anything.example").get("/").status_code == 200


def test_host_names_and_local_addresses():
    assert host_name("Tavli.Local:8080") == "tavli.local" and host_name("[::1]:80") == "::1"
    assert host_name("localhost.:8080") == "localhost" and host_name("evil.example.") == "evil.example"
    assert host_name("a:b") is None and host_name("[::1]x") is None
    addresses = LocalAddresses()
    assert "127.0.0.9" in addresses and "::1" in addresses
    assert "192.0.2.1" not in addresses and "tavli.local" not in addresses   # TEST-NET-1: nobody's


def test_a_bad_hosts_setting_is_refused_with_what_is_allowed(tmp_path):
    from firmware_host.config import ConfigError
    config = write_config(tmp_path)
    config.write_text(config.read_text() + 'hosts = ["http://x:80"]\n')
    with pytest.raises(ConfigError, match=r"web.hosts: \['http://x:80'\] is not valid; allowed: a list of host names"):
        load_config(config)


# == odd inputs =============================================================================================

def superscript_position() -> dict:
    position = Position.start("portes").to_json()
    position["white"]["points"]["²⁴"] = position["white"]["points"].pop("24")
    return position


def test_the_odd_inputs_that_were_server_errors_are_refused_with_what_is_wrong(web, referee):
    deadline = time.monotonic() + 20
    while referee.controller.match_id is None:      # a journal with a match: the export's checks are reached
        assert time.monotonic() < deadline, "no match in the journal"
        time.sleep(0.05)
    portes = json.dumps(Position.start("portes").to_json())
    headers = csrf_headers(web)
    answers = {
        "history ²": web.get("/history/².json"),
        "history ٣": web.get("/history/٣.json"),
        "board.svg GET ²⁴": web.get("/board.svg", params={"position": json.dumps(superscript_position())}),
        "board.svg POST ²⁴": web.post("/board.svg", headers=headers, json={"position": superscript_position()}),
        "5,000 digits POST": web.post("/board.svg", headers=headers, content='{"position": ' + "9" * 5000 + "}"),
        "5,000 digits GET": web.get("/board.svg", params={"position": "9" * 5000}),
        "palette []": web.post("/board.svg", headers=headers, json={"position": json.loads(portes), "palette": []}),
        "orientation []": web.post("/board.svg", headers=headers, json={"position": json.loads(portes),
                                                                         "orientation": []}),
        "nested 60,000 deep": web.post("/board.svg", headers=headers, content="[" * 60_000),
    }
    for what, answer in answers.items():
        assert 400 <= answer.status_code < 500, (what, answer.status_code, answer.text[:200])
        assert answer.json()["error"], what
    assert answers["history ٣"].json()["error"] == "no match '٣' in the journal"
    assert "digits" in answers["5,000 digits POST"].json()["error"]
    assert answers["palette []"].json()["error"].startswith("palette [] is not valid")


def test_a_reading_of_any_count_is_drawn_without_listing_every_checker(web):
    for count in (16, 10**100, 10**9):      # were: an OverflowError, or a list of 10**9 names (8 GB)
        drawn = web.post("/board.svg", headers=csrf_headers(web),
                         json={"reading": {"white": {"points": {"6": count}}, "black": {}}})
        assert drawn.status_code == 200 and f">{count}</text>" in drawn.text
