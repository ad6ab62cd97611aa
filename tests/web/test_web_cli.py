"""The companion's commands: `web-pin`, and the options of `web` and `demo --web-port` (exit 2 with one line)."""
import subprocess
import sys

import pytest

from firmware_host.cli import main
from firmware_host.config import pin_matches


def test_web_pin_prints_a_hashed_pin_line_and_refuses_a_short_one():
    made = subprocess.run([sys.executable, "-m", "firmware_host", "web-pin"], input="8642\n", capture_output=True,
                          text=True, timeout=60)
    assert made.returncode == 0
    line = made.stdout.strip()
    assert line.startswith('pin = "scrypt$') and "8642" not in line
    assert pin_matches(line.split('"')[1], "8642") and not pin_matches(line.split('"')[1], "8643")
    short = subprocess.run([sys.executable, "-m", "firmware_host", "web-pin"], input="12\n", capture_output=True,
                           text=True, timeout=60)
    assert short.returncode == 2 and short.stderr.strip().endswith("a PIN needs at least 4 characters")


@pytest.mark.parametrize("argv, message", [
    (["demo", "--web-port", "70000"], "--web-port 70000 is not valid: from 1 to 65535, or 0 for no companion"),
    (["web", "--port", "0"], "--port 0 is not valid: from 1 to 65535"),
])
def test_a_bad_port_is_a_usage_error(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip().endswith(message)


def test_web_on_a_busy_port_is_one_line_and_a_non_zero_exit(tmp_path):
    import socket

    from web_kit import write_config

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "firmware_host", "web", "--config", str(write_config(tmp_path, port))],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"tavli-board web: cannot listen on 127.0.0.1:{port}: another program listens there (an earlier demo or "
        "`tavli-board web` still running?)"]


def test_the_log_says_each_message_a_few_times_a_minute_and_then_how_many_lines_it_left_out():
    import logging

    from firmware_host.web.server import LOG_BURST, LOG_TOTAL, LOG_WINDOW_S, RateLimitedLog

    now = [0.0]
    limit = RateLimitedLog(clock=lambda: now[0])

    def record(template: str = "accept failed: %s") -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, template, ("EMFILE",), None)
    assert sum(limit.filter(record()) for _ in range(100)) == LOG_BURST
    assert sum(limit.filter(record(f"kind {number}: %s")) for number in range(1000)) == LOG_TOTAL - LOG_BURST
    now[0] = LOG_WINDOW_S
    later = record()
    assert limit.filter(later)
    # The 95 left out were said on the first "kind" line; the kinds past the total are said now.
    assert later.getMessage() == f"accept failed: EMFILE (and {1000 - (LOG_TOTAL - LOG_BURST)} lines left out before it)"
