"""A real Mosquitto broker for the club's tests, started by the tests on a free loopback port
(scripts/system-packages.sh installs Debian's mosquitto); killed and restarted at will. `secured_broker`
starts one on the configuration `tavli-board club broker-config` wrote."""
import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from club_kit import wait_until

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    def __init__(self, folder: Path, port: int, extra: str = "", config: Path | None = None):
        """Anonymous clients welcome on `port`, or the broker `config` describes (which listens on `port`)."""
        self.folder, self.port = folder, port
        self.config = config or folder / "mosquitto.conf"
        if config is None:
            self.config.write_text(f"listener {port} 127.0.0.1\npersistence false\nlog_dest file {folder / 'log'}\n"
                                   + (extra or "allow_anonymous true\n"))
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.folder / "log", "ab") as log:   # a generated configuration logs to stderr
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=log)
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


class SecuredBrokers:
    """Mosquittos on the files `tavli-board club broker-config` wrote: `port` is free for the hub's
    configuration to name; `start(folder)` runs the broker that folder's mosquitto.conf describes."""

    def __init__(self, folder: Path):
        self.folder, self.port, self.started = folder, free_port(), []

    def start(self, config_folder: Path) -> Broker:
        # Included as Debian's mosquitto.conf includes conf.d; run as this user (Mosquitto started as root
        # would become the user "mosquitto", who cannot read a test's folder).
        config = self.folder / "broker-main.conf"
        config.write_text(f"user {getpass.getuser()}\ninclude_dir {config_folder}\n")
        broker = Broker(self.folder, self.port, config=config)
        broker.start()
        self.started.append(broker)
        return broker


@pytest.fixture
def secured_broker(tmp_path):
    if not Path(MOSQUITTO).exists():
        pytest.skip("mosquitto is not installed (scripts/system-packages.sh installs it)")
    brokers = SecuredBrokers(tmp_path)
    yield brokers
    for broker in brokers.started:
        if broker.process.poll() is None:
            broker.kill()


@pytest.fixture
def wait_for():
    """Waits until `condition()` holds, failing with `what` after 20 s (`club_kit.wait_until`)."""
    return wait_until
