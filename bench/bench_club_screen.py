"""The café screen under a café's evening: boards publishing their views at game rate through one
Mosquitto to `tavli-board club hub`, and the time until a screen following the hub's event stream
(`/events`) has the change (issue 31: play to café screen, p95 under 500 ms).

    .venv/bin/python bench/bench_club_screen.py [--boards 100] [--seconds 60] [--screens 3] [--json FILE]

Every board is the real `ClubPublisher` (its own MQTT connection, signing key and thread) with an
empty journal; each shows a new view every 2 to 3 s (a turn of a quick player is a roll, checkers
moving and the play: three views in about 8 s). A view carries the position's checkers (drawn by the
hub as the café screen's picture) and a number in its match's id, so the screen's event names the
view it shows. The time runs from `show()` on the board to the event line read by each of
`--screens` clients of the hub's event stream; it includes the board's own pacing (at most two views
a second), the broker, the hub's records, the drawing and the stream. The hub's CPU and memory are
read from /proc. Views of the first `--warmup` seconds are not counted (the boards logging in).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.journal import Journal
from firmware_host.rules import Position
from firmware_host.service.club import ClubPublisher, board_key
from machine import machine_text

CLUB = "bench"
VIEW_EVERY_S = (2.0, 3.0)
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def a_view(marker: int, dice: list[int], reading: dict) -> dict:
    """A board's view as `GameView.to_json` gives it, with `marker` as its match's id."""
    return {"state": "moving", "overlay_return": None, "seats": {"white": "person", "black": "person"},
            "match": {"id": marker, "sequence": ["portes"], "target": 5, "score": {"white": 1, "black": 2},
                      "games": [], "winner": None},
            "game": {"number": 2, "variant": "portes"}, "position": {"turn": "white"}, "dice": dice,
            "reading": reading, "scene": {"marks": {}, "dice": dice, "dice_signal": None, "turn": "white",
                                          "score": {"white": 1, "black": 2, "target": 5}}}


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Screen(threading.Thread):
    """One café screen: the hub's event stream read line by line, each (board, marker) with its time."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.seen = url, {}

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "events", timeout=60) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    now = time.monotonic()
                    for table in json.loads(line[6:])["tables"]:
                        self.seen.setdefault((table["board"], table.get("match")), now)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--screens", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    logging.getLogger("firmware_host.service.club").setLevel(logging.ERROR)   # each board's disconnection at the end
    folder = Path(tempfile.mkdtemp(prefix="tb-bench-club-screen-"))
    broker_port, web_port = free_port(), free_port()
    (folder / "mosquitto.conf").write_text(f"listener {broker_port} 127.0.0.1\npersistence false\n"
                                           "log_dest none\nallow_anonymous true\n"
                                           "max_queued_messages 10000\n")
    broker = subprocess.Popen([MOSQUITTO, "-c", str(folder / "mosquitto.conf")])
    keys = {f"table-{number:03d}": Ed25519PrivateKey.generate() for number in range(1, args.boards + 1)}
    registered = "".join(f'{name} = "{public_key_text(key.public_key())}"\n' for name, key in keys.items())
    (folder / "hub.toml").write_text(f'club = "{CLUB}"\ndatabase = "hub.sqlite3"\n[broker]\nhost = "127.0.0.1"\n'
                                     f'port = {broker_port}\n[boards]\n{registered}[web]\nport = {web_port}\n')
    hub_key = public_key_text(board_key(folder / "hub.key"))   # the hub's (hub.key beside hub.toml), made before it starts
    time.sleep(0.5)
    hub = subprocess.Popen([sys.executable, "-m", "firmware_host", "club", "hub", "--config", str(folder / "hub.toml")],
                           stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{web_port}/"
    reading = laid_out(Position.start("portes"), Orientation.AS_WIRED).to_json()
    publishers = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "api/tables", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the hub's pages never answered")
                time.sleep(0.2)
        screens = [Screen(url) for _ in range(args.screens)]
        for screen in screens:
            screen.start()
        for name, key in keys.items():
            Journal.open(folder / f"{name}.sqlite3").close()
            publisher = ClubPublisher(ClubSettings(broker="127.0.0.1", port=broker_port, club=CLUB, board=name,
                                                   hub_key=hub_key),
                                      folder / f"{name}.sqlite3", key=key)
            publisher.start()
            publishers.append(publisher)
        rng = random.Random(2026)
        shown: dict[tuple[str, int], float] = {}
        due = {name: time.monotonic() + rng.uniform(*VIEW_EVERY_S) for name in keys}
        markers = dict.fromkeys(keys, 0)
        start = time.monotonic()
        cpu_from, cpu_at = None, None
        rss = []
        while time.monotonic() - start < args.seconds:
            name = min(due, key=due.get)
            time.sleep(max(0.0, due[name] - time.monotonic()))
            markers[name] += 1
            dice = [rng.randint(1, 6), rng.randint(1, 6)]
            at = time.monotonic()
            publishers[list(keys).index(name)].show(a_view(markers[name], dice, reading))
            if at - start >= args.warmup:
                shown[name, markers[name]] = at
                if cpu_from is None:
                    cpu_from, cpu_at = cpu_s(hub.pid), at
            due[name] = at + rng.uniform(*VIEW_EVERY_S)
            if len(shown) % 50 == 0:
                rss.append(rss_mb(hub.pid))
        cpu_share = (cpu_s(hub.pid) - cpu_from) / (time.monotonic() - cpu_at)
        time.sleep(3)   # the last views on their way
        latencies = [screen.seen[key] - at for screen in screens for key, at in shown.items() if key in screen.seen]
        missing = sum(1 for screen in screens for key in shown if key not in screen.seen)
        # A screen shows the newest view of a board: a view overtaken within the board's pacing is never sent.
        ms = [value * 1000 for value in latencies]
        record = {
            "what": "a board's view shown -> the café screen's event stream has it (each of the screens)",
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine_text(),
            "command": " ".join([Path(sys.executable).name, *sys.argv]),
            "boards": args.boards, "seconds": args.seconds, "warmup_s": args.warmup, "screens": args.screens,
            "views_timed": len(shown), "events_timed": len(ms), "views_never_seen_by_a_screen": missing,
            "latency_ms": {"p50": round(statistics.median(ms), 1), "p95": round(percentile(ms, 0.95), 1),
                           "p99": round(percentile(ms, 0.99), 1), "max": round(max(ms), 1)},
            "goal": "p95 under 500 ms",
            "hub_cpu_share_of_one_core": round(cpu_share, 3),
            "hub_rss_mb": {"max": round(max(rss, default=rss_mb(hub.pid)), 1), "end": round(rss_mb(hub.pid), 1)},
        }
        print(json.dumps(record, indent=2))
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(record, indent=2) + "\n")
    finally:
        for publisher in publishers:
            publisher.close()
        hub.terminate()
        hub.wait(20)
        broker.kill()
        broker.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
