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
