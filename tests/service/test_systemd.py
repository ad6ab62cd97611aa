"""The unit and the udev rule (install.sh and the staged tree: tests/install/test_install.py)."""
from pathlib import Path

from firmware_host.commands.service import udev_rule
from firmware_host.config import load_config

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"


def test_the_unit_promises_what_the_service_needs():
    unit = (SYSTEMD / "tavli-board.service").read_text()
    for line in ("Type=notify", "Restart=always", "WatchdogSec=", "User=tavli", "SupplementaryGroups=gpio spi dialout",
                 "StateDirectory=tavli-board", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
                 "PrivateTmp=yes", "DevicePolicy=closed", "ExecStopPost=/opt/tavli-board/.venv/bin/tavli-board leds-off"):
        assert line in unit


def test_the_committed_udev_rule_is_the_one_the_shipped_config_generates():
    assert (SYSTEMD / "99-tavli-board.rules").read_text() == udev_rule(load_config(SYSTEMD / "config.toml"))


def test_a_uart_link_names_the_pis_uart(board, write_board, tmp_path):
    board["sensors"]["mcu"]["link"] = "uart"
    config = tmp_path / "config.toml"
    config.write_text(f'board_file = "{write_board(board)}"\n')
    rule = udev_rule(load_config(config))
    assert 'SUBSYSTEM=="tty", KERNEL=="ttyAMA0", SYMLINK+="tavli-sensors", GROUP="dialout"' in rule
    assert "idVendor" not in rule
