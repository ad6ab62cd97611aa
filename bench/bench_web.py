"""Web companion benchmarks: how fast a board change reaches a browser, what the web process costs,
and what the browsers cost the referee.

    .venv/bin/python bench/bench_web.py [--changes 60] [--json bench/results/web.json]

The referee service runs here on the simulated board (the simulated MCU scanning at its real rate,
the real sensor link over a pseudo-terminal, the real loop), `tavli-board web` in a process of its
own, and a real headless Chromium (Debian's chromium, through Selenium) shows the Live page:

- latency:   a checker slides on the simulated board (the time is taken just before) until the page's
             SVG shows it (a MutationObserver notes the time the browser changed the DOM). Goal: p95
             under 250 ms. It includes the MCU's scan (40 Hz) and the link, as on the real board.
- web RSS:   the web process's resident memory with 5 live clients (the browser and 4 more event
             streams). Goal: under 45 MB.
- referee:   the loop's work per event (the controller and every observer, the companion's snapshot
             included), with no client and with 5, under the same slides. Goal: unchanged.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from firmware_host.config import hash_pin, load_config
from firmware_host.service.run import Service

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
SLIDE_PAUSE_S = 0.35        # between slides: the board settles (quiet time 300 ms) as under a hand


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(folder: Path, port: int) -> Path:
    path = folder / "config.toml"
    path.write_text(f'hardware = "simulated"\n[journal]\npath = "{folder / "journal.sqlite3"}"\n'
                    f'[logging]\nfile = "{folder / "log"}"\nraw_frames_dir = "{folder / "raw"}"\n'
                    f'[web]\nsocket = "{folder / "companion.sock"}"\nport = {port}\npin = "{hash_pin("0000")}"\n')
    return path


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class TimedLoop:
    """Wraps the loop's per-event work (`EventLoop._handle`: the controller and the observers), timed
    on the loop thread's own CPU clock (what the referee spends) and on the wall clock (which also
    counts waiting for the CPU and the GIL, shared here with the browser and the web process)."""

    def __init__(self, loop) -> None:
        self.loop, self.cpu, self.wall, self.recording = loop, [], [], False
        handle = loop._handle

        def timed(event) -> None:
            cpu, wall = time.thread_time(), time.perf_counter()
            handle(event)
            if self.recording:
                self.cpu.append(time.thread_time() - cpu)
                self.wall.append(time.perf_counter() - wall)
        loop._handle = timed

    def measure(self, work) -> dict[str, float]:
        self.cpu, self.wall, self.recording = [], [], True
        work()
        self.recording = False
        return {"events": len(self.cpu), "cpu_mean_us": round(statistics.mean(self.cpu) * 1e6, 1),
                "cpu_p95_us": round(percentile(self.cpu, 0.95) * 1e6, 1),
                "wall_mean_us": round(statistics.mean(self.wall) * 1e6, 1),
                "wall_p95_us": round(percentile(self.wall, 0.95) * 1e6, 1)}


def slides(board, count: int) -> None:
    """White's checker from 13 to 9 and back, `count` times."""
    for index in range(count):
        board.slide(13, 9, "white") if index % 2 == 0 else board.slide(9, 13, "white")
        time.sleep(SLIDE_PAUSE_S)


def stream(url: str, stop: threading.Event) -> None:
    """An event-stream client that reads everything until `stop`."""
    with urllib.request.urlopen(url + "events", timeout=30) as response:
        while not stop.is_set() and response.readline():
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=60, help="board changes timed (default %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    folder = Path(tempfile.mkdtemp(prefix="tb-bench-web-"))
    port = free_port()
    config_path = write_config(folder, port)
    service = Service.open(load_config(config_path))
    timed = TimedLoop(service.loop)
    loop_thread = threading.Thread(target=service.run, daemon=True)
    loop_thread.start()
    board = service.hardware.simulation.board
    web = subprocess.Popen([sys.executable, "-m", "firmware_host", "web", "--config", str(config_path)],
                           stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    figures: dict[str, object] = {"machine": os.uname().machine, "cpus": os.cpu_count(),
                                  "load_average_at_start": round(os.getloadavg()[0], 1)}
    stop = threading.Event()
    driver = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "api/snapshot", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("tavli-board web never answered")
                time.sleep(0.2)
        time.sleep(1.0)
        figures["web_rss_mb_idle"] = round(rss_mb(web.pid), 1)

        # The referee's work per event with no client at all.
        figures["referee_per_event_no_client"] = timed.measure(lambda: slides(board, 30))

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tempfile.mkdtemp(prefix="tb-bench-chromium-")
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                     f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
        driver.get(url)
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"))
        driver.execute_script("""
            window.boardChanges = [];
            new MutationObserver(() => {
              const group = document.querySelector('#board g.location[data-location="13"]');
              if (group) window.boardChanges.push([performance.timeOrigin + performance.now(), +group.dataset.white]);
            }).observe(document.getElementById('board'), {childList: true});""")
        streams = [threading.Thread(target=stream, args=(url, stop), daemon=True) for _ in range(4)]
        for client in streams:
            client.start()
        time.sleep(1.0)

        # The same slides with the 5 clients watching (nothing else of this process busy meanwhile).
        figures["referee_per_event_5_clients"] = timed.measure(lambda: slides(board, 30))
        latencies = []

        def timed_slides() -> None:
            for index in range(args.changes):
                wanted = 4 if index % 2 == 0 else 5
                seen = len(driver.execute_script("return window.boardChanges"))
                started = time.time()
                board.slide(13, 9, "white") if index % 2 == 0 else board.slide(9, 13, "white")
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    changes = driver.execute_script("return window.boardChanges")
                    shown = [at for at, white in changes[seen:] if white == wanted]
                    if shown:
                        latencies.append(shown[0] / 1000 - started)
                        break
                    time.sleep(0.005)
                time.sleep(SLIDE_PAUSE_S)

        timed_slides()
        figures["browsers_streaming"] = json.loads(urllib.request.urlopen(url + "api/status").read())["browsers"]
        figures["web_rss_mb_5_clients"] = round(rss_mb(web.pid), 1)
        figures["latency_ms"] = {"changes": len(latencies), "median": round(statistics.median(latencies) * 1e3, 1),
                                 "p95": round(percentile(latencies, 0.95) * 1e3, 1),
                                 "max": round(max(latencies) * 1e3, 1)}
        shutil.rmtree(profile, ignore_errors=True)
    finally:
        stop.set()
        if driver is not None:
            driver.quit()
        web.terminate()
        web.wait(10)
        service.stop()
        loop_thread.join(20)
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
