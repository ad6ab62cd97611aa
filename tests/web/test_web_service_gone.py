"""A page whose referee service is gone says so (issue 29: a companion left running after its demo kept
showing the old game with a footer that said "live"): the event stream tells every open page when the
service goes, and a page opened later gets the last board marked as not live."""
import http.client
import json
import subprocess
import sys
import time

from web_kit import Referee, free_port, write_config

WAIT_S = 60


def events(port: int):
    """The companion's server-sent events as (event, data) pairs, comments skipped."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    connection.request("GET", "/events", headers={"Host": "localhost"})
    response = connection.getresponse()
    assert response.status == 200
    event = None
    while line := response.fp.readline():
        line = line.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: "):
            yield event, json.loads(line[len("data: "):])


def test_open_and_new_pages_hear_that_the_service_is_gone(tmp_path):
    port = free_port()
    config = write_config(tmp_path, port)
    referee = Referee(config)
    web = subprocess.Popen([sys.executable, "-m", "firmware_host", "web", "--config", str(config)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                stream = events(port)
                kind, data = next(stream)
                if kind == "snapshot":
                    break
            except OSError:
                pass
            assert web.poll() is None and time.monotonic() < deadline, "no snapshot from tavli-board web"
            time.sleep(0.2)
        assert data["live"] is True
        referee.stop()
        assert next(event for event in stream if event[0] == "link") == ("link", {"connected": False})
        later = events(port)
        assert next(later) == ("link", {"connected": False})
        kind, data = next(later)
        assert kind == "snapshot" and data["live"] is False
    finally:
        web.kill()
        web.wait(10)
        referee.stop()


def test_a_quiet_event_stream_stays_open_and_brings_the_next_snapshot(monkeypatch):
    """Was: the keep-alive's timeout cancelled the wait and with it the subscription, so the stream
    ended with an error (a traceback in the log) after the second quiet period."""
    import asyncio
    from types import SimpleNamespace

    from firmware_host.web import app as web_app

    monkeypatch.setattr(web_app, "STREAM_KEEPALIVE_S", 0.05)
    snapshots: asyncio.Queue = asyncio.Queue()

    async def subscribe():
        while True:
            yield await snapshots.get()

    link = SimpleNamespace(connected=True, subscribe=subscribe)
    companion = SimpleNamespace(link=link, snapshot_svg=lambda snapshot: "<svg/>")
    request = SimpleNamespace(app=SimpleNamespace(state=SimpleNamespace(companion=companion)))

    async def read() -> list[str]:
        body = (await web_app.events(request)).body_iterator
        seen = [await anext(body) for _ in range(3)]           # three quiet periods
        await snapshots.put({"seq": 1})
        seen.append(await anext(body))
        await body.aclose()
        return seen

    seen = asyncio.run(asyncio.wait_for(read(), 30))
    assert seen[:3] == [": still here\n\n"] * 3
    assert seen[3].startswith("event: snapshot\n") and '"seq":1' in seen[3] and '"live":true' in seen[3]
