"""The web companion's test kit: a config file with a socket and a PIN, the referee service running on
the simulated board on a thread, and the headers of a page's POST."""
import socket
import threading
from pathlib import Path

from firmware_host.config import hash_pin, load_config
from firmware_host.service.run import Service

PIN = "2468"
# The companion answers to the names it is served on (localhost among them), never TestClient's "testserver".
BASE_URL = "http://localhost"


def write_config(folder: Path, port: int = 8080) -> Path:
    path = folder / "config.toml"
    path.write_text(f'hardware = "simulated"\n'
                    f'[match]\nsequence = "tavli"\ntarget = 5\n'
                    f'[journal]\npath = "{folder / "journal.sqlite3"}"\n'
                    f'[logging]\nfile = "{folder / "tavli-board.log"}"\nraw_frames_dir = "{folder / "raw"}"\n'
                    f'[web]\nsocket = "{folder / "companion.sock"}"\nport = {port}\npin = "{hash_pin(PIN)}"\n')
    return path


class Referee:
    """The service running on a thread, on a config file of its own."""

    def __init__(self, config_path: Path):
        self.config_path = config_path
        self.service = Service.open(load_config(config_path))
        self.thread = threading.Thread(target=self.service.run)
        self.thread.start()

    @property
    def board(self):
        return self.service.hardware.simulation.board

    @property
    def controller(self):
        return self.service.loop.controller

    def stop(self) -> None:
        self.service.stop()
        self.thread.join(20)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def csrf_headers(client) -> dict:
    return {"X-CSRF-Token": client.cookies.get("tavli_csrf"), "Content-Type": "application/json"}
