"""The simulated MCU's end of the cable: a pseudo-terminal, a TCP socket or a real serial device.

All three behave like a UART: reads never block (b"" when nothing came), writes never block (bytes
with nobody to take them are lost, as on a wire), and `unplug()` / `replug()` make the host's end
fail and come back, at the same name (`port`) the host was told to open.
"""
from __future__ import annotations

import errno
import os
import socket
import tty
from pathlib import Path
from typing import Protocol

import serial


class Transport(Protocol):
    port: str      # what the host opens: a device path or a pyserial URL

    def read(self) -> bytes: ...
    def write(self, data: bytes) -> None: ...
    def unplug(self) -> None: ...
    def replug(self) -> None: ...
    def close(self) -> None: ...


class PtyTransport:
    """A pseudo-terminal whose slave is reachable at the stable symlink `link` (as udev would name it)."""

    def __init__(self, link: Path | str) -> None:
        self.link = Path(link)
        self.port = str(self.link)
        self._master: int | None = None
        self._slave: int | None = None
        self.replug()

    def replug(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(master)
        os.set_blocking(master, False)
        # Holding the slave open keeps the pty alive between host sessions, like a device node.
        self._master, self._slave = master, slave
        temporary = self.link.with_name(self.link.name + ".new")
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(os.ttyname(slave))
        temporary.replace(self.link)

    def unplug(self) -> None:
        if self._master is None:
            return
        self.link.unlink(missing_ok=True)
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = None

    def close(self) -> None:
        self.unplug()

    def read(self) -> bytes:
        if self._master is None:
            return b""
        try:
            return os.read(self._master, 4096)
        except BlockingIOError:
            return b""
        except OSError as error:
            if error.errno == errno.EIO:   # no host has the slave open
                return b""
            raise

    def write(self, data: bytes) -> None:
        if self._master is None:
            return
        try:
            os.write(self._master, data)
        except BlockingIOError:
            pass   # the host is not reading and the pty buffer is full: the bytes are lost, as on a wire


class TcpTransport:
    """Listens on `host:port` for one host at a time (pyserial `socket://host:port`); port 0 picks one."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self.host = host
        self._bound_port = port
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None
        self.replug()
        self.port = f"socket://{self.host}:{self._bound_port}"

    def replug(self) -> None:
        if self._listener is not None:
            return
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self._bound_port))
        listener.listen(1)
        listener.setblocking(False)
        self._bound_port = listener.getsockname()[1]
        self._listener = listener

    def unplug(self) -> None:
        self._drop_client()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def close(self) -> None:
        self.unplug()

    def read(self) -> bytes:
        self._accept()
        if self._client is None:
            return b""
        try:
            data = self._client.recv(4096)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:   # the host hung up
            self._drop_client()
        return data

    def write(self, data: bytes) -> None:
        self._accept()
        if self._client is None:
            return
        try:
            self._client.send(data)
        except BlockingIOError:
            pass   # the host is not reading: lost, as on a wire
        except OSError:
            self._drop_client()

    def _accept(self) -> None:
        if self._listener is None:
            return
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        client.setblocking(False)
        self._drop_client()   # a new connection replaces the old one, like re-opening a serial port
        self._client = client

    def _drop_client(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class SerialDeviceTransport:
    """A real serial device on this machine (a USB-serial adapter wired to a Pi's UART)."""

    def __init__(self, device: str, baudrate: int = 115200) -> None:
        self.port = device
        self._serial = serial.Serial(baudrate=baudrate, timeout=0, write_timeout=0)
        self._serial.port = device
        self.replug()

    def replug(self) -> None:
        if not self._serial.is_open:
            self._serial.open()

    def unplug(self) -> None:
        self._serial.close()

    def close(self) -> None:
        self.unplug()

    def read(self) -> bytes:
        if not self._serial.is_open:
            return b""
        return self._serial.read(self._serial.in_waiting or 1)

    def write(self, data: bytes) -> None:
        if not self._serial.is_open:
            return
        try:
            self._serial.write(data)
        except serial.SerialTimeoutException:
            pass   # the output buffer is full: lost, as on a wire
