"""What the service has loaded when it is ready (issue 33): what a feature needs is loaded when the
feature is first used, so that a board without the bot does not carry numpy (some 11 MB resident
on a Pi, a Zero 2 W having 512 MB)."""
import os
import signal
import subprocess
import sys

# Shared libraries of features the service at rest does not use: the bot (numpy and its BLAS).
HEAVY_LIBRARIES = ("numpy", "openblas")


def test_the_service_at_ready_has_not_loaded_numpy_when_no_seat_is_the_bot(tmp_path, systemd):
    config = tmp_path / "config.toml"
    config.write_text(f'hardware = "simulated"\n'
                      f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                      f'[logging]\nfile = "{tmp_path / "tavli-board.log"}"\n'
                      f'raw_frames_dir = "{tmp_path / "raw"}"\n'
                      f'[web]\nsocket = "{tmp_path / "companion.sock"}"\n')
    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
                             env={**os.environ, "NOTIFY_SOCKET": str(systemd.path)}, stderr=subprocess.PIPE,
                             text=True)
    try:
        systemd.wait_for("READY=1")
        with open(f"/proc/{child.pid}/maps") as maps:
            loaded = {line.split()[-1] for line in maps if "/" in line}
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 0, child.stderr.read()
    finally:
        child.kill()
        child.wait()
    assert [path for path in loaded if any(name in path for name in HEAVY_LIBRARIES)] == []
