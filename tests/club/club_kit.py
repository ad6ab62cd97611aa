"""What the club's tests share beside their fixtures."""
import time


def wait_until(condition, what: str, timeout_s: float = 20.0):
    """`condition()`'s first true value, polled until it comes; fails with `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return value


def hub_key_text(folder) -> str:
    """The public key of the hub whose configuration is in `folder` (its key_file by default: hub.key
    beside it, made here if the hub has not made it yet), as a board's [club] hub_key takes it."""
    from firmware_host.club.envelope import public_key_text
    from firmware_host.service.club import board_key

    return public_key_text(board_key(folder / "hub.key"))
