"""The unit and the udev rule (install.sh and the staged tree: tests/install/test_install.py)."""
import re
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


def test_the_web_companion_runs_apart_so_the_referee_keeps_no_network():
    referee, web = ((SYSTEMD / name).read_text() for name in ("tavli-board.service", "tavli-board-web.service"))
    assert "PrivateNetwork=yes" in referee and "RestrictAddressFamilies=AF_UNIX\n" in referee
    assert not re.search(r"^PrivateNetwork=", web, re.M) and "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" in web
    for line in ("User=tavli", "NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=\n",
                 "PrivateDevices=yes", "IPAddressDeny=any"):
        assert line in web
    shipped = load_config(SYSTEMD / "config.toml")
    assert str(shipped.web.socket).startswith("/run/tavli-board/")   # the referee's RuntimeDirectory
