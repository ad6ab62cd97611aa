"""The web companion's fixtures: the referee service on the simulated board with its companion socket,
and the web application talking to it in this process through Starlette's TestClient."""
import shutil
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web companion needs the `web` extra (starlette, uvicorn)")

from firmware_host.config import load_config  # noqa: E402
from web_kit import BASE_URL, Referee, write_config  # noqa: E402


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
    with TestClient(app, base_url=BASE_URL) as client:
        deadline = time.monotonic() + 20
        # The simulated board starts set up: the first game begins, then nothing changes by itself.
        while app.state.companion.link.snapshot is None or referee.controller.state != "opening_roll":
            assert time.monotonic() < deadline, "the web application never heard from the service"
            time.sleep(0.05)
        client.get("/")    # the CSRF cookie
        yield client
