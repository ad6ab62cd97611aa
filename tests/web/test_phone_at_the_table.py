"""A phone at the table (issue 30): the demo offers its companion to the local network only when asked,
says so plainly with the address as a QR code and a PIN made up for the run, the Status page shows the
same QR code, and after the match the companion stays up until the person stops the demo."""
import io
import json
import os
import pty
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from web_kit import free_port

from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.demo import Demo, Settings
from firmware_host.demo.rig import DEMO_PIN, say_where_to_watch
from firmware_host.rules import Position
from firmware_host.rules.match import MatchRules
from firmware_host.service import addresses
from firmware_host.service.addresses import lan_urls

WAIT_S = 60


def test_the_addresses_a_phone_opens(monkeypatch):
    import ipaddress
    monkeypatch.setattr(addresses, "_own_addresses", lambda: [ipaddress.ip_address(a) for a in
                                                              ("127.0.0.1", "192.168.1.20", "fe80::1", "2001:db8::7")])
    monkeypatch.setattr(addresses.socket, "gethostname", lambda: "tavli")
    assert lan_urls("127.0.0.1", 8080) == [] and lan_urls("::1", 8080) == []      # this machine only
    assert lan_urls("0.0.0.0", 8080) == ["http://192.168.1.20:8080/", "http://tavli.local:8080/"]
    assert lan_urls("::", 80) == ["http://192.168.1.20/", "http://[2001:db8::7]/", "http://tavli.local/"]
    assert lan_urls("192.168.1.20", 8080) == ["http://192.168.1.20:8080/"]


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_for_companion(url: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while get(url + "api/snapshot")[0] != 200:
        assert time.monotonic() < deadline, "the companion never had a snapshot"
        time.sleep(0.2)


def test_on_the_local_network_the_output_says_so_with_a_qr_code_and_a_pin_of_its_own(tmp_path):
    out = io.StringIO()
    port = free_port()
    settings = Settings(MatchRules(sequence="portes", target=1), web_port=port, web_host="0.0.0.0", pin="482913",
                        out=out)
    with Demo(settings, tmp_path, laid_out(Position.start("portes"), Orientation.AS_WIRED)) as demo:
        say_where_to_watch(demo, out)
        wait_for_companion(demo.web_url)
        status, body = get(demo.web_url + "api/status")
        phone_urls = json.loads(body)["phone_urls"]
        status_qr, qr = get(demo.web_url + "phone-qr.svg")
    said = out.getvalue()
    assert "OPEN TO YOUR LOCAL NETWORK" in said and "changes need the PIN 482913" in said
    assert DEMO_PIN not in said and "█" in said                       # a QR code drawn in the terminal
    assert phone_urls and phone_urls[0] in said and phone_urls == lan_urls("0.0.0.0", port)
    assert status_qr == 200 and qr.startswith(b"<svg")


def test_on_this_machine_only_there_is_no_address_for_a_phone(tmp_path):
    out = io.StringIO()
    settings = Settings(MatchRules(sequence="portes", target=1), web_port=free_port(), out=out)
    with Demo(settings, tmp_path, laid_out(Position.start("portes"), Orientation.AS_WIRED)) as demo:
        say_where_to_watch(demo, out)
        wait_for_companion(demo.web_url)
        assert json.loads(get(demo.web_url + "api/status")[1])["phone_urls"] == []
        status, body = get(demo.web_url + "phone-qr.svg")
    assert status == 404 and "this machine only" in json.loads(body)["error"]
    assert f"this machine only; the settings PIN is {DEMO_PIN}" in out.getvalue()


def test_the_demo_made_up_pin_is_six_digits_and_the_lan_demo_listens_on_every_address(monkeypatch):
    from firmware_host.commands.demo import _companion_reach
    pins = {_companion_reach("lan")["pin"] for _ in range(20)}
    assert all(len(pin) == 6 and pin.isdigit() for pin in pins) and len(pins) > 1
    assert _companion_reach("lan")["web_host"] == "0.0.0.0" and _companion_reach("local") == {}


def test_after_the_match_the_companion_stays_up_until_ctrl_c(tmp_path):
    port = free_port()
    controller, terminal = pty.openpty()   # a person at a terminal
    demo = subprocess.Popen([sys.executable, "-m", "firmware_host", "demo", "--match", "portes", "--target", "1",
                             "--speed", "20", "--web-port", str(port)], stdin=terminal, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            # Ctrl-C as at a terminal, even where these tests run with it ignored (a background job's lot).
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(terminal)
    try:
        output = ""
        deadline = time.monotonic() + 4 * WAIT_S
        while "stays up at" not in output:
            assert demo.poll() is None and time.monotonic() < deadline, output[-2000:]
            output += demo.stdout.readline()
        assert get(f"http://127.0.0.1:{port}/api/snapshot")[0] == 200     # still there after the match
        demo.send_signal(signal.SIGINT)
        rest, _ = demo.communicate(timeout=WAIT_S)
        assert demo.returncode == 0 and "companion closed" in rest and "Traceback" not in rest
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        os.close(controller)


def test_the_demos_match_can_be_looked_at_afterwards_with_history(tmp_path, capfd):
    """Issue 30: after the demo, `history` said there was no journal (it was in a temporary folder)."""
    from firmware_host.cli import main
    from firmware_host.config import state_home
    assert main(["demo", "--match", "portes", "--target", "1", "--speed", "20", "--web-port", "0"]) == 0
    journal = state_home() / "demo" / "journal.sqlite3"
    said = capfd.readouterr().out
    assert f"the match is journaled in {journal}: `tavli-board history --journal {journal}`" in said
    assert main(["history", "--journal", str(journal)]) == 0
    listing = capfd.readouterr().out
    assert "portes" in listing and "1" in listing
