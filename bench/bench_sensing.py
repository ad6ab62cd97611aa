"""Sensor-link benchmarks: decoder and stabiliser throughput, lift latency and CPU share.

    .venv/bin/python bench/bench_sensing.py [--seconds 10] [--json bench/results/sensing.json]

1. decoder: 28-channel snapshot frames decoded per second on one core (fed in 64-byte reads);
2. pipeline: frames per second through session -> channel map -> stabiliser (every snapshot
   different, the worst case), in virtual time;
3. live: the real BoardSensor on a real pty against `tavli-board sim-mcu` in its own process,
   configured for 50 snapshots per second: this process's CPU share (goal: under 2 % of a core)
   and the time from a lift on the simulated board to the host's BoardChanging (goal: < 150 ms).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import queue
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import BoardChanging, BoardStable, LinkUp
from firmware_host.sensing.sensor import BoardSensor

CONFIG = load_sensing_config()
CHANNELS = CONFIG.sensors.channels.channel_count


def snapshot_stream(count: int) -> bytes:
    frames = []
    for seq in range(count):
        counts = tuple(((seq + channel) % 6, (seq * 3 + channel) % 5) for channel in range(CHANNELS))
        frames.append(p.encode(p.Snapshot(seq & 0xFF, seq & 0xFFFF, counts)))
    return b"".join(frames)


def bench_decoder(count: int = 20_000) -> float:
    stream = snapshot_stream(count)
    decoder = p.FrameDecoder()
    started = time.perf_counter()
    for start in range(0, len(stream), 64):
        decoder.feed(stream[start:start + 64])
    elapsed = time.perf_counter() - started
    assert decoder.counters.frames == count and decoder.counters.total_errors == 0
    return count / elapsed


def bench_pipeline(count: int = 20_000) -> float:
    """Session, channel map and stabiliser, with a snapshot that differs from the last every time."""
    clock = ManualClock()
    events: list = []
    sensor = BoardSensor(CONFIG, events.append, clock)
    # The link is never started: it has no port, so whatever the session sends goes nowhere.
    sensor.opened(0.0)
    hello = p.Hello(0, 1, (1, 0, 0), b"BENCHMRK", 1, p.HelloReason.REQUESTED, CHANNELS, CONFIG.sensors.scan_hz,
                    CONFIG.sensors.debounce_scans, CONFIG.sensors.snapshot_interval_ms, CONFIG.sensors.heartbeat_ms)
    sensor.received(p.encode(hello), 0.0)
    frames = [p.encode(p.Snapshot((seq + 1) & 0xFF, seq & 0xFFFF,
                                  tuple(((seq + c) % 2, c % 2) for c in range(CHANNELS)))) for seq in range(count)]
    started = time.perf_counter()
    for frame in frames:
        now = clock.advance(0.02)
        sensor.received(frame, now)
        sensor.tick(now)
    elapsed = time.perf_counter() - started
    assert sum(isinstance(event, BoardChanging) for event in events) >= count - 1
    return count / elapsed


def bench_live(seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        link = Path(directory) / "tavli-sensors"
        sim = subprocess.Popen([sys.executable, "-m", "firmware_host", "sim-mcu", "--pty", str(link)],
                               stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            sim.stderr.readline()
            sensors = dataclasses.replace(CONFIG.sensors, scan_hz=50, snapshot_interval_ms=20)
            serial = dataclasses.replace(CONFIG.serial, port=str(link))
            events: queue.SimpleQueue = queue.SimpleQueue()
            sensor = BoardSensor(dataclasses.replace(CONFIG, sensors=sensors, serial=serial), events.put)
            sensor.start()
            wait_for(events, LinkUp, 10)
            wait_for(events, BoardStable, 10)
            frames_before = sensor.session.decoder.counters.frames
            cpu_before, wall_before = time.process_time(), time.monotonic()
            time.sleep(seconds)
            cpu = time.process_time() - cpu_before
            wall = time.monotonic() - wall_before
            frames = sensor.session.decoder.counters.frames - frames_before
            latencies = []
            for index in range(10):
                lifted_at = time.monotonic()
                sim.stdin.write("lift 13 white\n" if index % 2 == 0 else "place 13\n")
                sim.stdin.flush()
                wait_for(events, BoardChanging, 5)
                latencies.append(time.monotonic() - lifted_at)
                time.sleep(0.4)
            sensor.stop()
        finally:
            sim.kill()
    return {"frames_per_s": frames / wall, "cpu_share_percent": 100 * cpu / wall,
            "lift_to_changing_ms_median": 1000 * statistics.median(latencies),
            "lift_to_changing_ms_max": 1000 * max(latencies)}


def wait_for(events: queue.SimpleQueue, kind: type, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while True:
        event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        if isinstance(event, kind):
            return event


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the live CPU measurement")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    results = {
        "decoder_frames_per_s": bench_decoder(),
        "pipeline_frames_per_s": bench_pipeline(),
        **{f"live_{key}": value for key, value in bench_live(args.seconds).items()},
    }
    for key, value in results.items():
        print(f"{key:36} {value:12.1f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
