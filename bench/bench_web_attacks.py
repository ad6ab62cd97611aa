"""The web companion's doors under attack (issue 29), against a real server on 127.0.0.1 only.

    .venv/bin/python bench/bench_web_attacks.py [--lockout-s 75] [--json bench/web-attacks.json]

The referee service runs here on the simulated board; `tavli-board web` in a process of its own with an
open-files limit of 1,024 (soft and hard: it cannot raise it; systemd's default soft limit). The
attacks, each bounded in count and time, come from loopback addresses (127.0.0.2 and up) so that each
is a client of its own; the owner is 127.0.0.1:

- odd inputs: the six requests that were 500s, and more of their kind (deep JSON, huge counts,
  a foreign Host, a long header, bad bytes in the path);
- the bug report without the PIN, with a wrong one, and with the right one (then: any PIN hash in it?);
- DNS rebinding: Host and Origin a foreign name, entering referee mode;
- the lockout: one device sends a wrong PIN twice a second for `--lockout-s` while the owner gives
  the right PIN every 5 s;
- guessing from 60 addresses, 3 wrong PINs each: how many PINs are actually checked;
- 1,100 half-sent requests from 55 addresses (20 each) while the owner loads a page;

and 5 pages (their event streams) stay open throughout, as phones at the table would.

It reports: 5xx answers (goal 0), tracebacks in the web process's output (0), the owner's refusals
(0), the wrong PINs checked (at most 20 an hour), the web process's open files and memory at their
highest, its log's size, and how many of the half-sent connections the server closed.
"""
from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import platform
import resource
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from bench_web import free_port, write_config   # the service's config, PIN 0000, as bench_web.py runs it
from firmware_host.config import load_config
from firmware_host.rules import Position
from firmware_host.service.run import Service
from firmware_host.web.guard import TOTAL_TRIES
from firmware_host.web.server import HEAD_TIMEOUT_S

PIN = "0000"             # write_config's
WRONG_PIN = "1111"
WEB_OPEN_FILES = 1024
OWNER = "127.0.0.1"
CSRF = {"Cookie": "tavli_csrf=bench", "X-CSRF-Token": "bench", "Content-Type": "application/json"}


class Tally:
    """Every answer's status, and the 5xx among them with what was asked."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers = 0
        self.wrong_pins_checked = 0      # answered "wrong PIN": the PIN was hashed and compared
        self.server_errors: list[str] = []
        self.no_answer: list[str] = []

    def note(self, what: str, status: int | None, data: bytes = b"") -> None:
        with self.lock:
            if status is None:
                self.no_answer.append(what)
                return
            self.answers += 1
            self.wrong_pins_checked += status == 403 and b'"wrong PIN"' in data
            if status >= 500:
                self.server_errors.append(f"{status} {what}")


def ask(port: int, tally: Tally, method: str, path: str, *, source: str = OWNER, headers: dict | None = None,
        body: bytes | None = None, timeout_s: float = 15.0) -> tuple[int | None, bytes]:
    headers = {"Host": "localhost", **(headers or {})}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s, source_address=(source, 0))
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        status, data = response.status, response.read()
    except (OSError, http.client.HTTPException):
        status, data = None, b""
    finally:
        connection.close()
    tally.note(f"{method} {path[:80]}", status, data)
    return status, data


def post_json(port: int, tally: Tally, path: str, data, source: str = OWNER, headers: dict | None = None):
    return ask(port, tally, "POST", path, source=source, headers={**CSRF, **(headers or {})},
               body=json.dumps(data).encode())


# == the attacks =========================================================================================

def odd_inputs(port: int, tally: Tally) -> dict:
    portes = Position.start("portes").to_json()
    superscript = json.loads(json.dumps(portes))
    superscript["white"]["points"]["²⁴"] = superscript["white"]["points"].pop("24")
    quoted = lambda data: urllib_quote(json.dumps(data))   # noqa: E731
    requests = [
        ("GET", "/history/%C2%B2.json", None, None), ("GET", "/history/%D9%A3.json", None, None),
        ("GET", f"/board.svg?position={quoted(superscript)}", None, None),
        ("POST", "/board.svg", CSRF, json.dumps({"position": superscript}).encode()),
        ("POST", "/board.svg", CSRF, b'{"position": ' + b"9" * 5000 + b"}"),
        ("GET", "/board.svg?position=" + "9" * 5000, None, None),
        ("POST", "/board.svg", CSRF, json.dumps({"position": portes, "palette": []}).encode()),
        ("POST", "/board.svg", CSRF, json.dumps({"position": portes, "orientation": {}}).encode()),
        ("POST", "/board.svg", CSRF, b"[" * 60_000),
        ("GET", "/board.svg?position=" + "%5B" * 2000, None, None),
        ("POST", "/board.svg", CSRF, json.dumps({"reading": {"white": {"points": {"6": 10 ** 100}}}}).encode()),
        ("POST", "/board.svg", CSRF, json.dumps({"reading": {"white": {"points": {"6": 10 ** 9}}}}).encode()),
        ("POST", "/board.svg", CSRF, b'{"position": "\xff\xfe"}'),
        ("POST", "/board.svg", CSRF, json.dumps({"position": portes, "marks": {"\u00b2": "illegal"}}).encode()),
        ("POST", "/api/settings", CSRF, json.dumps({"pin": ["2468"], "settings": []}).encode()),
        ("POST", "/api/new-match", CSRF, json.dumps({"pin": "0" * 10_000}).encode()),
        ("POST", "/api/referee", CSRF, json.dumps({"action": {"enter": 1}}).encode()),
        ("GET", "/history/99999999999999999999999999999.json", None, None),
        ("GET", "/history/1.%E2%82%AC", None, None), ("GET", "/%00", None, None), ("GET", "/%ff%fe", None, None),
        ("GET", "/api/status?" + "a=1&" * 2000, None, None),
        ("GET", "/", {"X-Long": "x" * 20_000}, None), ("GET", "/", {"Host": "\u00e9vil.example"}, None),
        ("BREW", "/", None, None), ("GET", "/static/../../config.toml", None, None),
        ("GET", "/static/%2e%2e/app.py", None, None), ("GET", "/events", {"Host": "evil.example"}, None),
    ]
    statuses = []
    for method, path, headers, body in requests:
        status, _ = ask(port, tally, method, path, headers=headers, body=body)
        statuses.append([f"{method} {path[:50]}", (body or b"")[:50].decode("utf-8", "replace"), status])
    return {"requests": len(requests), "statuses": statuses}


def urllib_quote(text: str) -> str:
    from urllib.parse import quote
    return quote(text, safe="")


def bug_report(port: int, tally: Tally) -> dict:
    no_pin_get, _ = ask(port, tally, "GET", "/bug-report")
    no_pin_post, _ = post_json(port, tally, "/bug-report", {})
    wrong, _ = post_json(port, tally, "/bug-report", {"pin": WRONG_PIN})
    right, data = post_json(port, tally, "/bug-report", {"pin": PIN})
    with tarfile.open(fileobj=io.BytesIO(data)) as bundle:
        texts = [bundle.extractfile(member).read() for member in bundle if member.isfile()]
    return {"without_pin_get": no_pin_get, "without_pin_post": no_pin_post, "wrong_pin": wrong, "right_pin": right,
            "parts": len(texts), "pin_hashes_inside": sum(text.count(b"scrypt$") for text in texts)}


def rebinding(port: int, tally: Tally) -> dict:
    foreign = {"Host": "rebind.example:8080", "Origin": "http://rebind.example:8080"}
    page, _ = ask(port, tally, "GET", "/", headers=foreign)
    enter, _ = post_json(port, tally, "/api/referee", {"action": "enter"}, headers=foreign)
    snapshot, _ = ask(port, tally, "GET", "/api/snapshot", headers=foreign)
    return {"page": page, "enter_referee_mode": enter, "snapshot": snapshot}


def lockout(port: int, tally: Tally, duration_s: float) -> dict:
    stop = threading.Event()
    attacker: dict[int | None, int] = {}

    def attack() -> None:
        while not stop.is_set():
            status, _ = post_json(port, tally, "/api/settings", {"pin": WRONG_PIN, "settings": {}}, source="127.0.0.2")
            attacker[status] = attacker.get(status, 0) + 1
            stop.wait(0.5)
    thread = threading.Thread(target=attack)
    thread.start()
    owner = []
    deadline = time.monotonic() + duration_s
    while time.monotonic() < deadline:
        time.sleep(5)
        owner.append(post_json(port, tally, "/api/settings", {"pin": PIN, "settings": {}})[0])
    stop.set()
    thread.join()
    return {"seconds": duration_s, "attacker_answers": {str(k): v for k, v in attacker.items()},
            "owner_tries": len(owner), "owner_refused": sum(1 for status in owner if status != 200)}


def many_addresses(port: int, tally: Tally) -> dict:
    answers: dict[str, int] = {}
    for number in range(60):
        for _ in range(3):
            status, data = post_json(port, tally, "/api/settings", {"pin": WRONG_PIN, "settings": {}},
                                     source=f"127.0.2.{number + 1}")
            key = "wrong PIN (checked)" if status == 403 else f"{status} {json.loads(data or b'{}').get('error', '')[:50]}"
            answers[key] = answers.get(key, 0) + 1
    owner, _ = post_json(port, tally, "/api/settings", {"pin": PIN, "settings": {}})
    newcomer, _ = post_json(port, tally, "/api/settings", {"pin": PIN, "settings": {}}, source="127.0.3.1")
    return {"guesses": 180, "addresses": 60, "answers": answers, "owner_after": owner,
            "new_device_with_the_right_pin_during_the_lock": newcomer}


def connection_flood(port: int, tally: Tally, sampler: "Sampler") -> dict:
    held: list[socket.socket] = []
    opened = failed = 0
    for address in range(55):
        for _ in range(20):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"127.0.4.{address + 1}", 0))
                sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
                held.append(sock)
                opened += 1
            except OSError:
                failed += 1
    fds_while_held = sampler.fds()
    owner = []
    for _ in range(5):
        started = time.monotonic()
        status, _ = ask(port, tally, "GET", "/status", timeout_s=30)
        owner.append((status, round(time.monotonic() - started, 3)))
    time.sleep(HEAD_TIMEOUT_S + 5)
    closed = 0
    for sock in held:
        sock.setblocking(False)
        try:
            closed += sock.recv(4096) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        sock.close()
    # Closed at once (over a limit, or making room) or when the head timeout passed.
    return {"half_sent_opened": opened, "could_not_connect": failed, "web_open_files_while_held": fds_while_held,
            "owner_page_loads": [{"status": s, "seconds": t} for s, t in owner],
            "closed_by_the_server": closed, "head_timeout_s": HEAD_TIMEOUT_S}


class Browser(threading.Thread):
    """A page's event stream held open through the attacks: the events and keep-alive comments it
    got, and whether it is still open at the end."""

    def __init__(self, port: int, source: str) -> None:
        super().__init__(daemon=True)
        self.port, self.source = port, source
        self.snapshots = self.comments = 0
        self.ended: str | None = None
        self.connection: http.client.HTTPConnection | None = None

    def run(self) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                     source_address=(self.source, 0))
        try:
            self.connection.request("GET", "/events", headers={"Host": "localhost"})
            response = self.connection.getresponse()
            while line := response.fp.readline():
                self.snapshots += line.startswith(b"event: snapshot")
                self.comments += line.startswith(b": still here")
            self.ended = "closed by the server"
        except (OSError, http.client.HTTPException) as error:
            self.ended = f"failed: {error}"


class Sampler(threading.Thread):
    """The web process's open files and resident memory, sampled every 0.2 s; the highest kept."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop = pid, threading.Event()
        self.max_fds = self.max_rss_mb = 0.0

    def fds(self) -> int:
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return 0

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def run(self) -> None:
        while not self.stop.wait(0.2):
            self.max_fds = max(self.max_fds, self.fds())
            self.max_rss_mb = max(self.max_rss_mb, self.rss_mb())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lockout-s", type=float, default=75.0, help="how long the lockout attack runs")
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))   # this side holds 1,100 sockets
    load_at_start = os.getloadavg()[0]
    folder = Path(tempfile.mkdtemp(prefix="tavli-web-attacks-"))
    port = free_port()
    config_path = write_config(folder, port)
    service = Service.open(load_config(config_path))
    service_thread = threading.Thread(target=service.run, daemon=True)
    service_thread.start()
    log = folder / "web.log"
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (WEB_OPEN_FILES, WEB_OPEN_FILES))  # noqa: E731
    with log.open("wb") as output:
        web = subprocess.Popen([sys.executable, "-m", "firmware_host", "web", "--config", str(config_path)],
                               stdout=output, stderr=subprocess.STDOUT, preexec_fn=limit)
    tally = Tally()
    record: dict = {}
    started = time.monotonic()
    try:
        deadline = time.monotonic() + 60
        while ask(port, Tally(), "GET", "/api/snapshot")[0] != 200:
            if web.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"tavli-board web did not start: {log.read_text()[-500:]}")
            time.sleep(0.3)
        sampler = Sampler(web.pid)
        sampler.start()
        record["web_rss_mb_at_start"] = round(sampler.rss_mb(), 1)
        record["web_open_files_at_start"] = sampler.fds()
        browsers = [Browser(port, f"127.0.5.{number + 1}") for number in range(5)]
        for browser in browsers:
            browser.start()
        for name, attack in (("odd_inputs", lambda: odd_inputs(port, tally)),
                             ("bug_report", lambda: bug_report(port, tally)),
                             ("dns_rebinding", lambda: rebinding(port, tally)),
                             ("lockout", lambda: lockout(port, tally, args.lockout_s)),
                             ("many_addresses", lambda: many_addresses(port, tally)),
                             ("connection_flood", lambda: connection_flood(port, tally, sampler))):
            began = time.monotonic()
            record[name] = attack()
            record[name]["phase_seconds"] = round(time.monotonic() - began, 1)
            print(f"{name}: {json.dumps(record[name])[:300]}", flush=True)
        final, _ = ask(port, tally, "GET", "/status")
        record["browsers"] = [{"snapshots": b.snapshots, "keep_alive_comments": b.comments,
                               "open_at_end": b.ended is None, "ended": b.ended} for b in browsers]
        sampler.stop.set()
        text = log.read_bytes()
        record["summary"] = {
            "answers": tally.answers, "server_errors_5xx": len(tally.server_errors),
            "server_error_requests": tally.server_errors[:20], "no_answer": len(tally.no_answer),
            "tracebacks_in_web_output": text.count(b"Traceback"),
            "owner_refused_in_lockout": record["lockout"]["owner_refused"],
            "wrong_pins_checked_in_the_run": tally.wrong_pins_checked,
            "wrong_pins_checked_bound_per_hour": TOTAL_TRIES,
            "web_open_files_max": sampler.max_fds, "web_open_files_limit": WEB_OPEN_FILES,
            "web_rss_mb_at_start": record["web_rss_mb_at_start"], "web_rss_mb_max": round(sampler.max_rss_mb, 1), "web_log_bytes": len(text),
            "web_alive_at_end": web.poll() is None,
            "browsers_streaming_at_end": sum(browser.ended is None for browser in browsers), "owner_page_at_end": final,
            "seconds": round(time.monotonic() - started, 1)}
        print(json.dumps(record["summary"], indent=2))
    finally:
        web.kill()
        web.wait(10)
        service.stop()
        service_thread.join(20)
        shutil.rmtree(folder, ignore_errors=True)
    record = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}",
              "note": "a shared development machine, loaded by other work while this ran (load average below)",
              "load_average_at_start": load_at_start,
              "command": "python bench/bench_web_attacks.py " + " ".join(sys.argv[1:]), **record}
    if args.json:
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0 if not record["summary"]["server_errors_5xx"] and not record["summary"]["tracebacks_in_web_output"] else 1


if __name__ == "__main__":
    sys.exit(main())
