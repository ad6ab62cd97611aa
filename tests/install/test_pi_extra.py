"""The `pi` extra resolves, from wheels only, as pip on Pi OS Bookworm (aarch64, Python 3.11.2, glibc
2.36) would resolve it on a Pi 3, 4 and 5, and brings each LED driver only where it works.

pip's `--platform`/`--python-version` choose the wheels but evaluate environment markers against the
machine running pip, so pip runs here with its marker environment set to the Pi's (the kernel
release tells a Pi 5 from a Pi 3 or 4): the markers of the extra and of every dependency are
judged as on the Pi. Needs PyPI; skips with the reason when it cannot be reached.
"""
import json
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPI = ("pypi.org", 443)

# What `packaging.markers.default_environment()` gives on each board under Pi OS Bookworm 64-bit.
PI_OS_BOOKWORM = {"platform_machine": "aarch64", "sys_platform": "linux", "platform_system": "Linux",
                  "os_name": "posix", "implementation_name": "cpython", "platform_python_implementation": "CPython",
                  "python_version": "3.11", "python_full_version": "3.11.2", "implementation_version": "3.11.2"}
KERNELS = {"Pi 3": "6.6.51+rpt-rpi-v8", "Pi 4": "6.6.51+rpt-rpi-v8", "Pi 5": "6.6.51+rpt-rpi-2712"}
# glibc 2.36: every manylinux tag up to 2.36 (pip does not widen --platform by itself).
PLATFORMS = [f"manylinux_2_{minor}_aarch64" for minor in range(36, 16, -1)] + ["manylinux2014_aarch64"]

# pip with its marker environment replaced: argv[1] is a JSON environment, the rest pip's arguments.
PIP_AS_ON_A_PI = """
import json, sys
import pip._vendor.packaging.markers as markers
host = markers.default_environment
pi = json.loads(sys.argv[1])
markers.default_environment = lambda: {**host(), **pi}
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(PYPI, timeout=5).close()
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _pypi_reachable(), reason="PyPI (pypi.org:443) cannot be reached")


def _requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"] + project["optional-dependencies"]["pi"]


@pytest.fixture(scope="module")
def resolved(tmp_path_factory) -> dict[str, dict[str, str]]:
    """Board -> {distribution name (lower case): wheel file name} that pip would install."""
    folder = tmp_path_factory.mktemp("pi-extra")
    by_kernel: dict[str, dict[str, str]] = {}
    for kernel in sorted(set(KERNELS.values())):
        report = folder / f"{kernel}.json"
        environment = json.dumps({**PI_OS_BOOKWORM, "platform_release": kernel})
        platforms = [argument for platform in PLATFORMS for argument in ("--platform", platform)]
        result = subprocess.run(
            [sys.executable, "-c", PIP_AS_ON_A_PI, environment, "install", "--dry-run", "--ignore-installed",
             "--quiet", "--report", str(report), "--target", str(folder / "target"), "--only-binary=:all:",
             "--python-version", "3.11", *platforms, *_requirements()],
            capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        installs = json.loads(report.read_text())["install"]
        by_kernel[kernel] = {item["metadata"]["name"].lower().replace("_", "-"):
                             item["download_info"]["url"].rsplit("/", 1)[-1] for item in installs}
    return {board: by_kernel[kernel] for board, kernel in KERNELS.items()}


@pytest.mark.parametrize("board", KERNELS)
def test_the_pi_extra_resolves_from_wheels_for_aarch64(resolved, board):
    wheels = resolved[board]
    for name in ("adafruit-blinka", "rpi-lgpio", "lgpio", "gpiozero", "pyserial", "transitions"):
        assert name in wheels, f"{name} missing on a {board}"
    for wheel in wheels.values():
        platform = wheel.removesuffix(".whl").rsplit("-", 1)[-1]
        assert platform == "any" or "aarch64" in platform, wheel


@pytest.mark.parametrize("board", ["Pi 3", "Pi 4"])
def test_a_pi_1_to_4_gets_the_spi_driver_only(resolved, board):
    wheels = resolved[board]
    assert "adafruit-circuitpython-neopixel-spi" in wheels
    assert "adafruit-blinka-raspberry-pi5-neopixel" not in wheels
    assert "rpi-ws281x" not in wheels and "rpi.gpio" not in wheels


def test_a_pi_5_gets_its_pio_driver_and_no_rpi_ws281x(resolved):
    wheels = resolved["Pi 5"]
    assert "adafruit-blinka-raspberry-pi5-neopixel" in wheels and "adafruit-circuitpython-neopixel" in wheels
    assert "cp311" in wheels["adafruit-blinka-raspberry-pi5-neopixel"]
    assert "rpi-ws281x" not in wheels and "rpi.gpio" not in wheels
