"""`tavli-board web` on a real socket: no number of idle or half-sent connections keeps the owner out,
every connection is bounded in time, and the log stays small (issue 29: 1,100 idle half-sent requests
under a 1,024 open-files limit made every request time out and wrote 607 MB of errors)."""
import http.client
import resource
import socket
import subprocess
import sys
import time

import pytest
from web_kit import free_port, write_config

from firmware_host.web.server import CLIENT_CONNECTIONS, HEAD_TIMEOUT_S

OPEN_FILES = 256          # the server's open-files limit, soft and hard: it cannot raise it
ATTACKERS, PER_ATTACKER = 20, 15


def low_open_files_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


@pytest.fixture
def server(tmp_path):
    port = free_port()
    log = tmp_path / "web.log"
    with log.open("wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "firmware_host", "web", "--config",
                                    str(write_config(tmp_path, port))], stdout=output, stderr=subprocess.STDOUT,
                                   preexec_fn=low_open_files_limit)
    try:
        deadline = time.monotonic() + 60
        while not answers(port):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "tavli-board web never answered"
            time.sleep(0.2)
        yield port, log
    finally:
        process.kill()
        process.wait(10)


def answers(port: int, source: str = "127.0.0.1", timeout_s: float = 10) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s, source_address=(source, 0))
        connection.request("GET", "/status", headers={"Host": "localhost"})
        return connection.getresponse().status == 200
    except OSError:
        return False


def half_sent(port: int, source: str) -> socket.socket | None:
    """A connection that sends the start of a request head and then nothing."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        return sock
    except OSError:
        return None


def closed_by_server(sock: socket.socket, timeout_s: float) -> bool:
    """Whether the server closes the connection within `timeout_s` (after a refusal or not)."""
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            if sock.recv(4096) == b"":
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        pass
    return False


def test_half_sent_requests_from_many_addresses_never_keep_the_owner_out_and_are_closed(server):
    port, log = server
    idle = [half_sent(port, f"127.0.1.{attacker + 1}") for attacker in range(ATTACKERS) for _ in range(PER_ATTACKER)]
    try:
        assert ATTACKERS * PER_ATTACKER > OPEN_FILES
        assert answers(port, "127.0.0.1"), "the owner's request was not answered"
        assert answers(port, "127.0.0.2"), "a second device's request was not answered"
        # Each half-sent connection is closed by the server: at once (over a limit) or when its head is late.
        held = [sock for sock in idle if sock is not None]
        assert all(closed_by_server(sock, 3 * HEAD_TIMEOUT_S) for sock in held)
        assert answers(port)
    finally:
        for sock in idle:
            if sock is not None:
                sock.close()
    assert log.stat().st_size < 20_000, log.read_text()[-2000:]


def test_one_client_holds_a_bounded_number_of_connections(server):
    port, _ = server
    held = [half_sent(port, "127.0.0.3") for _ in range(CLIENT_CONNECTIONS + 10)]
    try:
        refused = [sock for sock in held[CLIENT_CONNECTIONS:] if sock is not None and closed_by_server(sock, 5)]
        assert len(refused) == 10
        assert answers(port, "127.0.0.4")
    finally:
        for sock in held:
            if sock is not None:
                sock.close()


def test_a_body_sent_too_slowly_is_refused(server):
    port, _ = server
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(b"POST /api/referee HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Cookie: tavli_csrf=token\r\nX-CSRF-Token: token\r\nContent-Length: 100\r\n\r\n{\"act")
        answer = chunk = sock.recv(4096)
        while chunk and not answer.endswith(b"}"):        # the head and the JSON body may come apart
            answer += (chunk := sock.recv(4096))
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within" in answer, answer[:300]


def test_a_client_that_reads_nothing_is_dropped_once_the_server_cannot_write(monkeypatch):
    """A stalled reader of an event stream: the transport's buffer stays full (writing paused)."""
    import asyncio
    from unittest import mock

    import uvicorn
    from uvicorn.server import ServerState

    from firmware_host.web import server as web_server

    monkeypatch.setattr(web_server, "WRITE_STALL_S", 0.05)

    async def run() -> tuple[bool, bool]:
        limits = web_server.ConnectionLimits(total=8)
        protocol_class = type("Protocol", (web_server.BoundedH11Protocol,), {"limits": limits})
        config = uvicorn.Config(lambda scope, receive, send: None, http=protocol_class, log_config=None)
        config.load()
        protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
        transport = mock.Mock(is_closing=lambda: False)
        transport.get_extra_info.side_effect = lambda name, default=None: \
            ("127.0.0.1", 40000) if name == "peername" else ("127.0.0.1", 8080) if name == "sockname" else default
        protocol.connection_made(transport)
        protocol.pause_writing()
        protocol.resume_writing()                       # it read in time: kept
        await asyncio.sleep(0.1)
        kept = not transport.abort.called
        protocol.pause_writing()                        # and now it reads nothing more
        await asyncio.sleep(0.1)
        return kept, transport.abort.called

    kept, dropped = asyncio.run(run())
    assert kept and dropped
