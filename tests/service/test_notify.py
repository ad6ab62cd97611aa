"""READY, STATUS, STOPPING and the watchdog, checked against a fake NOTIFY_SOCKET."""
import logging
import os
import socket

import pytest

from firmware_host.service.notify import SystemdNotifier


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_ready_status_and_stopping_reach_systemd(systemd):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path)})
    notifier.ready("link up")
    notifier.status("game 2 of 5")
    notifier.stopping()
    assert systemd.received() == ["READY=1\nSTATUS=link up", "STATUS=game 2 of 5", "STOPPING=1"]


def test_the_watchdog_is_pinged_at_half_its_interval_from_the_loop(systemd):
    clock = Clock()
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": "10000000",
                                "WATCHDOG_PID": str(os.getpid())}, clock)
    assert notifier.watchdog_interval_s == 10 and notifier.ping_interval_s == 5
    notifier.ready()
    systemd.received()
    clock.now += 4.9
    assert notifier.seconds_to_next_ping() == pytest.approx(0.1)
    assert not notifier.ping_if_due() and systemd.received() == []
    clock.now += 0.1
    assert notifier.ping_if_due() and systemd.received() == ["WATCHDOG=1"]
    clock.now += 3
    assert not notifier.ping_if_due()
    clock.now += 30  # a loop that hung this long has missed its pings: systemd would have killed it
    assert notifier.ping_if_due() and systemd.received() == ["WATCHDOG=1"]
    assert notifier.seconds_to_next_ping() == pytest.approx(5)


def test_an_abstract_socket_address_works(tmp_path):
    name = f"tavli-board-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(b"\0" + name.encode())
    server.settimeout(1.0)
    try:
        SystemdNotifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert server.recv(100) == b"READY=1"
    finally:
        server.close()


def test_a_watchdog_meant_for_another_process_is_not_pinged(systemd):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": "1000000",
                                "WATCHDOG_PID": str(os.getpid() + 1)})
    assert notifier.ping_interval_s is None and notifier.seconds_to_next_ping() is None


def test_outside_systemd_nothing_is_sent():
    notifier = SystemdNotifier({})
    assert not notifier.enabled
    notifier.ready()
    assert not notifier.ping_if_due() and notifier.failures == 0


def test_a_socket_that_is_gone_is_logged_once_and_never_raises(tmp_path, caplog):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "gone"), "WATCHDOG_USEC": "2000000"}, Clock())
    with caplog.at_level(logging.ERROR):
        notifier.ready()
        notifier.ready()
    assert notifier.failures == 2
    assert [record.getMessage() for record in caplog.records] == [
        f"cannot tell systemd READY through NOTIFY_SOCKET {str(tmp_path / 'gone')!r}: [Errno 2] No such file or directory"]
