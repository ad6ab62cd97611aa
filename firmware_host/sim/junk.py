"""Junk on the sensor line, as a damaged or confused MCU (or a bad cable) sends it: random bytes, and
frames with a good CRC and any sequence number, which the host's decoder takes: snapshots of any
counts (now and then an unreadable channel), heartbeats, and hellos of this board with any boot
nonce (an MCU that seems to restart). For tests and benches of the host under a flood.

    rng = random.Random(29)
    transport.write(junk(rng, 115, sensors))      # 10 ms of junk at 115200 baud
"""
from __future__ import annotations

import random

from firmware_host.sensing import protocol as p
from firmware_host.sensing.config import SensorSettings

LINE_RATE = 115200 // 10      # bytes a second at 115200 baud: 8 data bits, a start and a stop bit


def junk(rng: random.Random, size: int, sensors: SensorSettings) -> bytes:
    """`size` bytes of junk, cut where `size` ends."""
    out = bytearray()
    channels = sensors.channels.channel_count
    while len(out) < size:
        kind = rng.randrange(4)
        seq = rng.randrange(256)
        if kind == 0:
            out += rng.randbytes(rng.randrange(1, 64))
            continue
        if kind == 1:
            frame = p.Snapshot(seq, rng.randrange(65536), tuple(
                None if rng.random() < 0.05 else (rng.randrange(16), rng.randrange(15)) for _ in range(channels)))
        elif kind == 2:
            frame = p.Heartbeat(seq, rng.randrange(65536), rng.randrange(256))
        else:
            frame = p.Hello(seq, p.PROTOCOL_VERSION, p.MIN_FIRMWARE, b"JUNKJUNK", rng.randrange(65536),
                            p.HelloReason.BOOT, channels, sensors.scan_hz, sensors.debounce_scans,
                            sensors.snapshot_interval_ms, sensors.heartbeat_ms)
        out += p.encode(frame)
    return bytes(out[:size])
