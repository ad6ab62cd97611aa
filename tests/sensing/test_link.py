"""The link thread's pieces that need no peer: backoff, finding the MCU, opening and failing to open."""
import dataclasses
import socket
import threading
from types import SimpleNamespace

import serial

from firmware_host.sensing.clock import MonotonicClock
from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.events import LinkLost
from firmware_host.sensing.link import Backoff, SerialLink, find_mcu_port, open_port
from firmware_host.sensing.sensor import BoardSensor

CONFIG = load_sensing_config()


def test_backoff_doubles_up_to_its_maximum_and_resets():
    backoff = Backoff(0.25, 1.0)
    assert [backoff.next_delay() for _ in range(5)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    backoff.reset()
    assert backoff.next_delay() == 0.25


def test_the_mcu_is_found_by_usb_vid_and_pid():
    ports = [SimpleNamespace(device="/dev/ttyACM1", vid=0x2E8A, pid=0x0005),
             SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001),
             SimpleNamespace(device="/dev/ttyACM0", vid=0x2E8A, pid=0x0005),
             SimpleNamespace(device="/dev/ttyAMA0", vid=None, pid=None)]
    assert find_mcu_port(0x2E8A, 0x0005, ports) == "/dev/ttyACM0"
    assert find_mcu_port(0x1234, 0x0005, ports) is None


def test_ports_open_from_any_pyserial_url():
    port = open_port("loop://", CONFIG.serial)
    try:
        port.write(b"\x01\x02")
        assert port.read(2) == b"\x01\x02"
    finally:
        port.close()


def test_a_port_that_cannot_be_opened_is_reported_once_and_retried_with_backoff():
    events, tries = [], threading.Semaphore(0)

    def refusing_opener(url, settings):
        tries.release()
        raise serial.SerialException(f"[Errno 2] could not open port {url}")

    settings = dataclasses.replace(CONFIG.serial, port="/dev/ttyNOPE", reconnect_min_s=0.01, reconnect_max_s=0.02)
    sensor = BoardSensor(dataclasses.replace(CONFIG, serial=settings), events.append, opener=refusing_opener)
    sensor.start()
    try:
        for _ in range(4):
            assert tries.acquire(timeout=5)
    finally:
        sensor.stop()
    assert events == [LinkLost("cannot open /dev/ttyNOPE: [Errno 2] could not open port /dev/ttyNOPE")]


def test_without_a_port_and_without_the_usb_mcu_the_link_says_so():
    events, asked = [], threading.Event()

    def finder(vid, pid):
        asked.set()
        return None

    settings = dataclasses.replace(CONFIG.serial, port="", reconnect_min_s=0.01, reconnect_max_s=0.02)
    sensor = BoardSensor(dataclasses.replace(CONFIG, serial=settings), events.append, finder=finder)
    sensor.start()
    try:
        assert asked.wait(5)
    finally:
        sensor.stop()
    assert events == [LinkLost("no sensor MCU found (USB 2e8a:0005)")]


def test_a_bug_above_the_port_is_reported_and_the_link_reopens(caplog):
    events, opened = [], threading.Semaphore(0)

    def opener(url, settings):
        opened.release()
        return open_port("loop://", settings)

    settings = dataclasses.replace(CONFIG.serial, port="loop://", reconnect_min_s=0.01, reconnect_max_s=0.02)
    sensor = BoardSensor(dataclasses.replace(CONFIG, serial=settings), events.append, opener=opener)
    sensor.session.received = lambda data, now: 1 / 0   # loop:// echoes our hello request back into it
    sensor.start()
    try:
        assert opened.acquire(timeout=5) and opened.acquire(timeout=5)
    finally:
        sensor.stop()
    assert events[0] == LinkLost("internal error: ZeroDivisionError('division by zero')")
    assert "unexpected error" in caplog.text


def test_stopping_while_the_link_thread_closes_its_port_is_quiet():
    """The link thread may see the stop and close the port between `stop` reading it and waking it:
    pyserial's cancel_read then writes to a closed pipe (EBADF), which must not escape `stop`."""
    opened = threading.Event()

    class ClosedUnderfoot:
        def __init__(self, port):
            self.port = port

        def __getattr__(self, name):
            return getattr(self.port, name)

        def cancel_read(self):
            raise OSError(9, "Bad file descriptor")

    def opener(url, settings):
        opened.set()
        return ClosedUnderfoot(open_port("loop://", settings))

    settings = dataclasses.replace(CONFIG.serial, port="loop://")
    sensor = BoardSensor(dataclasses.replace(CONFIG, serial=settings), lambda event: None, opener=opener)
    sensor.start()
    assert opened.wait(5)
    sensor.stop()
    assert not sensor.link._thread.is_alive()


class Received:
    """A link handler that keeps what it is handed, read by read."""

    def __init__(self, wanted: int) -> None:
        self.reads: list[bytes] = []
        self.wanted = wanted
        self.all_in = threading.Event()
        self.open = threading.Event()

    def opened(self, now):
        self.open.set()

    def tick(self, now): pass

    def lost(self, reason): pass

    def received(self, data, now):
        self.reads.append(data)
        if sum(map(len, self.reads)) >= self.wanted:
            self.all_in.set()


def test_bytes_waiting_on_a_socket_url_are_read_together_not_one_at_a_time():
    """Issue 29: pyserial's socket:// says one byte is waiting whenever any is, so junk at line rate
    was read, recorded, traced and decoded a byte at a time (the trace ring grew by a record a byte)."""
    junk = bytes(range(1, 256)) * 32          # 8,160 bytes, no frame delimiter among them
    with socket.create_server(("127.0.0.1", 0)) as server:
        settings = dataclasses.replace(CONFIG.serial, port=f"socket://127.0.0.1:{server.getsockname()[1]}")
        handler = Received(len(junk))
        link = SerialLink(settings, MonotonicClock(), handler)
        link.start()
        try:
            peer, _ = server.accept()
            with peer:
                assert handler.open.wait(30), "the link never opened the port"   # (opening empties the socket)
                peer.sendall(junk)
                assert handler.all_in.wait(60), "the link never read the junk"
        finally:
            link.stop()
    assert b"".join(handler.reads) == junk
    assert len(handler.reads) <= 8   # as the bytes came (loopback: in one or a few pieces), never 8,160 reads
