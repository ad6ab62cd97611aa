"""A real Mosquitto broker for the club's tests, started by the tests on a free loopback port
(scripts/system-packages.sh installs Debian's mosquitto); killed and restarted at will."""
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    def __init__(self, folder: Path, port: int, extra: str = ""):
        self.folder, self.port = folder, port
        self.config = folder / "mosquitto.conf"
        self.config.write_text(f"listener {port} 127.0.0.1\npersistence false\nlog_dest file {folder / 'log'}\n"
                               + (extra or "allow_anonymous true\n"))
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert self.process.poll() is None, f"mosquitto ended: {(self.folder / 'log').read_text()}"
                time.sleep(0.05)
        raise AssertionError("mosquitto did not listen within 10 s")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture
def broker(tmp_path):
    if not Path(MOSQUITTO).exists():
        pytest.skip("mosquitto is not installed (scripts/system-packages.sh installs it)")
    broker = Broker(tmp_path, free_port())
    broker.start()
    yield broker
    if broker.process.poll() is None:
        broker.kill()


@pytest.fixture
def web_port():
    """A free loopback port for the hub's pages."""
    return free_port()
