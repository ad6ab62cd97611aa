"""What the club's tests share beside their fixtures."""
import time


def wait_until(condition, what: str, timeout_s: float = 20.0):
    """`condition()`'s first true value, polled until it comes; fails with `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return value
