"""A fake systemd for the service tests: where NOTIFY_SOCKET points."""
import socket


class FakeSystemd:
    """A datagram socket where systemd would listen for notifications."""

    def __init__(self, path):
        self.path = path
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(path))
        self.socket.setblocking(False)

    def received(self) -> list[str]:
        """The messages that came since the last call."""
        messages = []
        try:
            while True:
                messages.append(self.socket.recv(4096).decode())
        except BlockingIOError:
            return messages

    def wait_for(self, wanted: str, timeout_s: float = 20.0) -> list[str]:
        """Every message up to and including the first that begins with `wanted`; fails after `timeout_s`."""
        seen = []
        self.socket.settimeout(timeout_s)
        try:
            while not (seen and seen[-1].startswith(wanted)):
                try:
                    seen.append(self.socket.recv(4096).decode())
                except TimeoutError:
                    raise AssertionError(f"no {wanted} from the service within {timeout_s} s; "
                                         f"it sent {seen}") from None
        finally:
            self.socket.setblocking(False)
        return seen
