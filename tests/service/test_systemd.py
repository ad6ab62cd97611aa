"""The unit, the udev rule and install.sh, checked with systemd-analyze as CI's machine has it."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_host.config import load_config
from firmware_host.commands.service import udev_rule

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "systemd"
TAVLI_BOARD = ROOT / ".venv" / "bin" / "tavli-board"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed (Debian package systemd)")


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """install.sh run in staging mode, installing to this checkout so that ExecStart exists here."""
    destdir = tmp_path_factory.mktemp("stage")
    result = subprocess.run(["bash", str(SYSTEMD / "install.sh")], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DESTDIR": str(destdir), "PREFIX": str(ROOT),
                                 "TAVLI_BOARD": str(TAVLI_BOARD)})
    assert result.returncode == 0, result.stdout + result.stderr
    return destdir


@needs_analyze
def test_the_unit_verifies_without_a_word_on_stderr(staged):
    unit = staged / "etc" / "systemd" / "system" / "tavli-board.service"
    assert f"ExecStart={TAVLI_BOARD} run --config /etc/tavli-board/config.toml" in unit.read_text()
    result = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    # systemd-analyze verify exits 0 even when it finds errors: anything on stderr is a failure.
    assert result.returncode == 0 and result.stderr == ""


@needs_analyze
def test_the_unit_is_hardened_to_an_exposure_of_3_or_better(staged):
    unit = staged / "etc" / "systemd" / "system" / "tavli-board.service"
    result = subprocess.run([ANALYZE, "security", "--offline=true", str(unit)], capture_output=True, text=True,
                            timeout=60)
    exposure = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout).group(1))
    assert exposure <= 3.0, result.stdout


def test_the_unit_promises_what_the_service_needs():
    unit = (SYSTEMD / "tavli-board.service").read_text()
    for line in ("Type=notify", "Restart=always", "WatchdogSec=", "User=tavli", "SupplementaryGroups=gpio spi dialout",
                 "StateDirectory=tavli-board", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
                 "PrivateTmp=yes", "DevicePolicy=closed", "ExecStopPost=/opt/tavli-board/.venv/bin/tavli-board leds-off"):
        assert line in unit


def test_install_stages_config_udev_rule_and_unit(staged):
    config = staged / "etc" / "tavli-board" / "config.toml"
    assert config.read_text() == (SYSTEMD / "config.toml").read_text()
    rule = (staged / "etc" / "udev" / "rules.d" / "99-tavli-board.rules").read_text()
    assert rule == udev_rule(load_config(config))
    assert 'ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005", SYMLINK+="tavli-sensors"' in rule


def test_the_committed_udev_rule_is_the_one_the_shipped_config_generates():
    assert (SYSTEMD / "99-tavli-board.rules").read_text() == udev_rule(load_config(SYSTEMD / "config.toml"))


def test_install_keeps_an_existing_config_and_refuses_a_broken_one(tmp_path):
    config = tmp_path / "etc" / "tavli-board" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[leds]\nbrightness = 5\n")
    result = subprocess.run(["bash", str(SYSTEMD / "install.sh")], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DESTDIR": str(tmp_path), "PREFIX": str(ROOT),
                                 "TAVLI_BOARD": str(TAVLI_BOARD)})
    assert result.returncode != 0 and config.read_text() == "[leds]\nbrightness = 5\n"
    assert "keeping the existing /etc/tavli-board/config.toml" in result.stdout
    assert "leds.brightness: 5 is not valid" in result.stderr and "fix /etc/tavli-board/config.toml" in result.stderr
    assert not (tmp_path / "etc" / "systemd" / "system" / "tavli-board.service").exists()
