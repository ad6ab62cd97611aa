"""The web companion's fixtures: the referee service on the simulated board, with its companion socket,
and the web application talking to it (in this process through Starlette's TestClient, or as
`tavli-board web` in a process of its own for the browser tests)."""
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web companion needs the `web` extra (starlette, uvicorn)")

from firmware_host.config import hash_pin, load_config  # noqa: E402
from firmware_host.service.run import Service  # noqa: E402

PIN = "2468"


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


@pytest.fixture(scope="module")
def referee():
    folder = Path(tempfile.mkdtemp(prefix="tb-web-"))
    referee = Referee(write_config(folder))
    yield referee
    referee.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def web(referee):
    from starlette.testclient import TestClient

    from firmware_host.web.app import create_app

    app = create_app(load_config(referee.config_path))
    with TestClient(app, base_url="http://testserver") as client:
        deadline = time.monotonic() + 20
        while app.state.companion.link.snapshot is None:
            assert time.monotonic() < deadline, "the web application never heard from the service"
            time.sleep(0.05)
        client.get("/")    # the CSRF cookie
        yield client


def csrf_headers(client) -> dict:
    return {"X-CSRF-Token": client.cookies.get("tavli_csrf"), "Content-Type": "application/json"}
