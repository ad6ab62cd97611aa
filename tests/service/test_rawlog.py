"""The last minute of the link's bytes, recorded at the transport."""
import serial

from firmware_host.sensing.config import SerialSettings
from firmware_host.sensing.link import open_port
from firmware_host.service.rawlog import SEGMENTS, RawFrameRecorder, recent_frames


class Clock:
    def __init__(self, now=1_700_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


def test_the_last_window_is_always_kept_and_older_bytes_go(tmp_path):
    clock = Clock()
    recorder = RawFrameRecorder(tmp_path, window_s=60, wall_clock=clock)
    for second in range(200):
        recorder.record("rx", bytes([second]))
        clock.now += 1
    lines = recent_frames(tmp_path, 60, clock.now)
    assert len(lines) == 60 and lines[0].endswith(f"rx {140:02x}") and lines[-1].endswith(f"rx {199:02x}")
    stored = sum(len((tmp_path / name).read_text().splitlines()) for name in SEGMENTS)
    assert 60 <= stored <= 120


def test_junk_at_line_rate_never_fills_the_folder_and_the_newest_bytes_are_kept(tmp_path):
    """Issue 29: a flood of bytes within one window (the folder is RAM on the Pi) stays within the
    stated 1 MiB for both files."""
    clock = Clock()
    recorder = RawFrameRecorder(tmp_path, window_s=60, wall_clock=clock)
    for chunk in range(40_000):          # 40,000 reads of 12 bytes within 20 s: over 2.5 MB of lines
        recorder.record("rx", bytes([chunk % 256]) * 12)
        clock.now += 0.0005
    stored = sum((tmp_path / name).stat().st_size for name in SEGMENTS if (tmp_path / name).exists())
    newest = recent_frames(tmp_path, 60, clock.now)[-1]
    assert stored <= 1024 * 1024 + len(newest) + 1
    assert newest.endswith(" ".join([f"{39_999 % 256:02x}"] * 12))


def test_a_restart_keeps_the_newer_file(tmp_path):
    clock = Clock()
    first = RawFrameRecorder(tmp_path, window_s=60, wall_clock=clock)
    first.record("tx", b"\x00\x01")
    first.close()
    clock.now += 5
    RawFrameRecorder(tmp_path, window_s=60, wall_clock=clock).record("rx", b"\x02")
    assert [line.split(" ", 1)[1] for line in recent_frames(tmp_path, 60, clock.now)] == ["tx 00 01", "rx 02"]


def test_a_wrapped_port_records_what_it_reads_and_writes(tmp_path):
    recorder = RawFrameRecorder(tmp_path)
    port = recorder.wrap(open_port)("loop://", SerialSettings(exclusive=False))
    port.write(b"\x00\x05\x01")
    assert port.read(3) == b"\x00\x05\x01" and port.in_waiting == 0
    port.close()
    recorder.close()
    assert [line.split(" ", 1)[1] for line in recent_frames(tmp_path)] == ["tx 00 05 01", "rx 00 05 01"]
    assert isinstance(port._port, serial.SerialBase)


def test_a_folder_that_cannot_be_written_disables_recording_without_an_error(tmp_path):
    (tmp_path / "blocker").write_text("")
    recorder = RawFrameRecorder(tmp_path / "blocker" / "raw")
    recorder.record("rx", b"\x01")
    assert recent_frames(tmp_path / "blocker" / "raw") == []
