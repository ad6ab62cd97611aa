"""The sensor MCU's scan budget, counted from the firmware itself: its scan loop, node and drivers
(hardware/firmware/tavli_mcu) run under CPython against the register-level fakes of the TCA9548As,
NAU7802s and TMAG5273s (tests/sensing/micropython/i2c_chips.py) on a virtual clock, where every
transaction takes its bus time at 400 kHz and nothing else takes any time.

Prints, in the board file's colour mode: the transactions of one scan by kind, its bits and bus time,
the highest scan rate the bus allows, the time from a checker placed to the snapshot that reports it
(over placements at every phase of the scan period), and the time from a dead or browned-out ADC to
its channel's reading going away and to "unreadable" in a snapshot.

    python bench/bench_scan.py [--json FILE]

The time MicroPython itself takes per transaction on the Pico (tens of microseconds) is not in the
bus time; neither is a checker's mechanical settling (the steadiness window waits for it).
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "sensing"))

from sensor_bus_kit import CHECKER_FIELD_MT, FakeSensorBoard, loadcells  # noqa: E402

from firmware_host.sensing import protocol  # noqa: E402
from firmware_host.sensing.config import load_sensing_config  # noqa: E402
from firmware_host.sim.firmware import firmware_module  # noqa: E402

BUS_HZ = 400_000
COUNTS_PER_GRAM = 400
PLACED_ON = 10          # point 11
PHASES = 10             # placements spread over one scan period


class Firmware:
    """main.py's wiring over the fakes: bus, ADCs, Hall sensors, decoder, node and scan loop."""

    def __init__(self) -> None:
        mcu = load_sensing_config().sensors.mcu
        self.mcu = mcu
        self.board = board = FakeSensorBoard(28)
        board.start()
        board.chips.bit_us = 1e6 / BUS_HZ
        weighing = firmware_module("weighing")
        calibration = weighing.Calibration([0] * 28, [COUNTS_PER_GRAM] * 28)
        if mcu.colour_by == "magnet":
            decoder = firmware_module("counting").CountDecoder(
                28, mcu.checker_g, mcu.count_window_g, mcu.steady_g, mcu.steady_scans,
                (mcu.hall_threshold_mt, mcu.black_field_max_mt, mcu.white_field_min_mt))
            hall = board.hall
        else:
            decoder = weighing.MassDecoder(mcu.white_checker_g, mcu.black_checker_g, mcu.mass_tolerance_g)
            hall = None
        self.sensors = loadcells.LoadCellSensors(board.bank, calibration, decoder, hall)
        self.decoder = protocol.FrameDecoder()
        self.snapshots: list[tuple[float, tuple]] = []
        self.node = firmware_module("node").Node(28, bytes(8), 1, self._write)
        self.loop = firmware_module("scanloop").ScanLoop(self.node, self.sensors.read_counts, lambda: b"", lambda: None,
                                                         board.time, board.time.sleep_ms)
        self.node.boot(board.time())

    def _write(self, data: bytes) -> None:
        for frame in self.decoder.feed(data):
            if isinstance(frame, protocol.Snapshot):
                self.snapshots.append((self.board.time.ms, frame.counts))

    def period(self) -> None:
        spare = self.loop.step()
        if spare > 0:
            self.board.time.sleep_ms(spare)

    def until(self, wanted, limit_ms: float = 10_000) -> float:
        """Scan periods until a snapshot after now satisfies `wanted(counts)`; its time."""
        seen = len(self.snapshots)
        deadline = self.board.time.ms + limit_ms
        while self.board.time.ms < deadline:
            self.period()
            for at, counts in self.snapshots[seen:]:
                if wanted(counts):
                    return at
            seen = len(self.snapshots)
        raise RuntimeError("not reported within %d ms" % limit_ms)

    def load(self, channel: int, checkers: int) -> None:
        self.board.chips.adcs[channel].raw = int(checkers * self.mcu.checker_g * COUNTS_PER_GRAM)
        self.board.chips.halls[channel].field_mt = CHECKER_FIELD_MT["white"] if checkers else 0.0


def scan_budget(firmware: Firmware) -> dict:
    chips = firmware.board.chips
    firmware.until(lambda counts: None not in counts)
    chips.tally.clear()
    before = chips.transactions, chips.wire_bits
    firmware.sensors.read_counts()
    transactions, bits = chips.transactions - before[0], chips.wire_bits - before[1]
    bus_ms = bits / BUS_HZ * 1000
    return {"transactions": transactions, "by_kind": dict(sorted(chips.tally.items())), "bits": bits,
            "bus_ms_at_400khz": round(bus_ms, 2), "highest_scan_hz_on_the_bus": round(1000 / bus_ms, 1),
            "scan_hz": firmware.node.scan_hz, "bus_share_at_scan_hz": round(bus_ms * firmware.node.scan_hz / 1000, 2),
            "adc_samples_per_s": round(1000 / loadcells.CONVERSION_MS)}


def placement_latency(firmware: Firmware) -> dict:
    period = firmware.node.scan_period_ms
    latencies = []
    time = firmware.board.time
    for phase in range(PHASES):
        firmware.load(PLACED_ON, 0)
        firmware.until(lambda counts: counts[PLACED_ON] == (0, 0))
        scan_started = time.ms
        firmware.loop.step()
        time.sleep_ms(max(0.0, period * phase / PHASES - (time.ms - scan_started)))
        placed = time.ms
        firmware.load(PLACED_ON, 1)
        time.sleep_ms(max(0.0, period - (time.ms - scan_started)))
        latencies.append(firmware.until(lambda counts: counts[PLACED_ON] == (1, 0)) - placed)
    return {"placed_to_reported_ms": {"min": round(min(latencies), 1), "max": round(max(latencies), 1)},
            "steady_scans": firmware.mcu.steady_scans if firmware.mcu.colour_by == "magnet" else None,
            "debounce_scans": firmware.node.debouncer.scans, "scan_period_ms": period}


def fault_latency(firmware: Firmware, channel: int, fault: str) -> dict:
    """From the fault to the first scan without the channel's reading, to "unreadable" in a snapshot
    (None if it never came: the chip was set up again first), and to a reading again."""
    adc = firmware.board.chips.adcs[channel]
    firmware.until(lambda counts: counts[channel] == (0, 0))
    started = firmware.board.time.ms
    if fault == "dead":
        adc.dead = True
    else:
        adc.brown_out()
    gone = unreadable = back = None
    while firmware.board.time.ms - started < 5000 and (unreadable is None or fault != "dead") and back is None:
        seen = len(firmware.snapshots)
        scan_at = firmware.board.time.ms
        counts = firmware.sensors.read_counts()
        firmware.node.scan(counts, int(scan_at))
        if counts[channel] is None and gone is None:
            gone = scan_at - started
        if gone is not None and counts[channel] is not None:
            back = scan_at - started
        if any(snapshot[channel] is None for _, snapshot in firmware.snapshots[seen:]) and unreadable is None:
            unreadable = scan_at - started
        firmware.board.time.sleep_ms(max(0.0, firmware.node.scan_period_ms - (firmware.board.time.ms - scan_at)))
    adc.dead = False
    return {"no_reading_after_ms": rounded(gone), "unreadable_in_a_snapshot_after_ms": rounded(unreadable),
            "reading_again_after_ms": rounded(back)}


def rounded(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    firmware = Firmware()
    record = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.node()} {platform.machine()}, Python {platform.python_version()}, shared and loaded "
                   "(virtual time: the figures do not depend on the machine or its load)",
        "command": "python bench/bench_scan.py" + (f" --json {options.json}" if options.json else ""),
        "colour_by": firmware.mcu.colour_by,
        "scan": scan_budget(firmware),
        "placement": placement_latency(firmware),
        "dead_adc": fault_latency(firmware, 20, "dead"),
        "browned_out_adc": fault_latency(firmware, 21, "brown-out"),
        "bounds": {"fresh_ms": loadcells.FRESH_MS, "unreadable_after_ms": firmware_module("node").UNREADABLE_AFTER_MS,
                   "transaction_timeout_us": firmware_module("bus").TRANSACTION_TIMEOUT_US,
                   "scan_ms_with_sda_stuck_for_good": stuck_bus_scan_ms(), "watchdog_ms": 2000},
    }
    text = json.dumps(record, indent=2)
    print(text)
    if options.json:
        options.json.write_text(text + "\n")
    return 0


def stuck_bus_scan_ms() -> float:
    """A scan's time when SDA is held low for good: every transaction times out and clears the bus."""
    firmware = Firmware()
    firmware.until(lambda counts: None not in counts)
    firmware.board.chips.hold_sda(-1)
    started = firmware.board.time.ms
    firmware.sensors.read_counts()
    return round(firmware.board.time.ms - started, 1)


if __name__ == "__main__":
    sys.exit(main())
