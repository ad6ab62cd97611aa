"""Serial junk at line rate against the real service: its memory, its journal and its raw-frame log
(issue 29, item 4).

Run: .venv/bin/python bench/bench_serial_junk.py [--minutes M] [--transport socket|pty|both]
                                                 [--code DIR] [--json FILE]

Each run starts `tavli-board run` as a child process (`--code`: the source tree it runs, default
this one), with `hardware = "real"` and its `[serial] port` on the simulated MCU of this process
(the real firmware logic scanning the opening position), over `socket://` (a TCP socket, which
pyserial reads one byte at a time) or over a pseudo-terminal. Beside the MCU's own frames, junk goes
down the same line at 115200 baud (11,520 bytes a second) for `--minutes` (`sim/junk.py`: random
bytes, and frames with a good CRC and random content: snapshots, heartbeats, hellos with any boot
nonce, as a damaged MCU might send); then the line carries only the MCU's frames for `--tail`
seconds, to see whether anything keeps growing once the junk stops. Every `--every` seconds: the
service's resident memory (VmRSS), the journal's size (the database and its -wal) and the raw-frame
log's (`raw-frames.*.log`); at the end, the journal's fault and fault-cleared records, counted.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from firmware_host.journal import JournalReader, Kind
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sim.board import OPENING_LAYOUT, SimBoard
from firmware_host.sensing.reading import BoardReading
from firmware_host.sim.junk import LINE_RATE, junk
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.sim.transport import PtyTransport, TcpTransport
from machine import machine_text

JUNK_PERIOD_S = 0.01


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def size_mb(paths) -> float:
    return sum(path.stat().st_size for path in paths if path.exists()) / 2**20


def fault_records(journal: Path) -> dict[str, int]:
    """The journal's fault and fault-cleared records, by kind and fault."""
    with JournalReader.open(journal) as reader:
        return dict(Counter(f"{event.kind.value} {event.data['fault']}" for event in reader.tail(10_000_000)
                            if event.kind in (Kind.FAULT, Kind.FAULT_CLEARED)))


def pour_junk(transport, stop: threading.Event, seed: int, sensors) -> None:
    """Junk at line rate, in 10 ms slices, until `stop`."""
    rng = random.Random(seed)
    per_slice = round(LINE_RATE * JUNK_PERIOD_S)
    next_at = time.monotonic()
    while not stop.is_set():
        transport.write(junk(rng, per_slice, sensors))
        next_at += JUNK_PERIOD_S
        stop.wait(max(0.0, next_at - time.monotonic()))


def run(kind: str, code: Path, minutes: float, tail_s: float, every_s: float, folder: Path) -> dict:
    transport = TcpTransport() if kind == "socket" else PtyTransport(folder / "sensors")
    sensors = load_sensing_config().sensors
    mcu = SimulatedMcu(SimBoard(BoardReading.loads(OPENING_LAYOUT)), sensors.channels, transport,
                       colour_by=sensors.mcu.colour_by).start()
    journal, raw = folder / "journal.sqlite3", folder / "raw"
    config = folder / "config.toml"
    config.write_text(f'hardware = "real"\n[serial]\nport = "{transport.port}"\n'
                      f'[journal]\npath = "{journal}"\n'
                      f'[logging]\nfile = "{folder / "log" / "tavli-board.log"}"\nraw_frames_dir = "{raw}"\n'
                      f'[web]\nsocket = "{folder / "companion.sock"}"\n')
    environment = {**os.environ, "PYTHONPATH": str(code), "HOME": str(folder), "XDG_RUNTIME_DIR": str(folder)}
    environment.pop("NOTIFY_SOCKET", None)
    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
                             env=environment, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop = threading.Event()
    junk = threading.Thread(target=pour_junk, args=(transport, stop, 29, sensors), daemon=True)
    samples = []
    try:
        time.sleep(every_s)   # started and up on the MCU's frames before the junk comes
        start = time.monotonic()
        junk.start()
        while (elapsed := time.monotonic() - start) < minutes * 60 + tail_s:
            if elapsed >= minutes * 60 and not stop.is_set():
                stop.set()
            if child.poll() is not None:
                raise RuntimeError(f"the service ended with {child.returncode}")
            samples.append({"s": round(elapsed, 1), "junk": not stop.is_set(), "rss_mb": round(rss_mb(child.pid), 1),
                            "journal_mb": round(size_mb([journal, Path(f"{journal}-wal")]), 2),
                            "raw_log_mb": round(size_mb(raw.glob("raw-frames.*.log")), 2)})
            print(kind, samples[-1], flush=True)
            time.sleep(every_s)
    finally:
        stop.set()
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        mcu.stop()
    during = [s for s in samples if s["junk"]]
    return {"samples": samples, "fault_records": fault_records(journal),
            "rss_mb_first_last_max": [samples[0]["rss_mb"], samples[-1]["rss_mb"], max(s["rss_mb"] for s in samples)],
            "rss_mb_growth_in_last_half_of_junk": round(during[-1]["rss_mb"] - during[len(during) // 2]["rss_mb"], 1),
            "journal_mb_last": samples[-1]["journal_mb"], "raw_log_mb_max": max(s["raw_log_mb"] for s in samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of junk (default: %(default)s)")
    parser.add_argument("--tail", type=float, default=60.0, help="seconds after the junk (default: %(default)s)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between samples (default: %(default)s)")
    parser.add_argument("--transport", choices=("socket", "pty", "both"), default="both")
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the source tree the service runs (default: this one)")
    parser.add_argument("--json", metavar="FILE", help="also write the record as JSON")
    args = parser.parse_args()
    kinds = ("socket", "pty") if args.transport == "both" else (args.transport,)
    results = {}
    for kind in kinds:
        with tempfile.TemporaryDirectory(prefix="bench-junk-") as folder:
            results[kind] = run(kind, args.code.resolve(), args.minutes, args.tail, args.every, Path(folder))
    record = {"bench": "serial junk at line rate (issue 29, item 4)",
              "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": machine_text(),
              "command": " ".join([Path(sys.executable).name, *sys.argv]), "code": str(args.code),
              "junk_bytes_per_s": LINE_RATE, "results": results}
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    for kind, result in results.items():
        print(kind, {key: value for key, value in result.items() if key != "samples"})


if __name__ == "__main__":
    main()
