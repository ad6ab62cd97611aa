"""systemd/install.sh run against a staged root folder, with the board's model faked.

The checkout it installs from is a copy owned by another user with a group-writable file in it; the
environment is made by a stand-in for python3 (whose pip records how it was called, and whose
tavli-board is this checkout's), so no network and no Pi are needed. The staged tree's owners,
modes, boot configuration and links are checked, and a second run must change nothing.
"""
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from firmware_host.commands.service import udev_rule
from firmware_host.config import load_config

ROOT = Path(__file__).resolve().parents[2]
TAVLI_BOARD = ROOT / ".venv" / "bin" / "tavli-board"
PREFIX = "/opt/tavli-board"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed (Debian package systemd)")
AS_ROOT = os.geteuid() == 0
CHECKOUT_OWNER = 4242

MODELS = {"Pi 3": "Raspberry Pi 3 Model B Plus Rev 1.3", "Pi 4": "Raspberry Pi 4 Model B Rev 1.5",
          "Pi 5": "Raspberry Pi 5 Model B Rev 1.0"}
PI_OS_CMDLINE = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes "
                 "rootwait quiet splash plymouth.ignore-serial-consoles cfg80211.ieee80211_regdom=GB")
PI_OS_CONFIG = "# For more options and information see\n# http://rptl.io/configtxt\ndtparam=audio=on\n\n[cm4]\notg_mode=1\n\n[all]\n"

# python3 -m venv DIR, faked: DIR/bin/pip appends its arguments to DIR/pip-calls.
FAKE_PYTHON = """#!/usr/bin/env bash
[[ "$1 $2" == "-m venv" ]] || { echo "fake python: $*" >&2; exit 2; }
mkdir -p "$3/bin"
printf '#!/usr/bin/env bash\\nprintf "%%s\\\\n" "$*" >> "%s/pip-calls"\\n' "$3" > "$3/bin/pip"
chmod 755 "$3/bin/pip"
ln -sfn "{tavli_board}" "$3/bin/tavli-board"
"""


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the parts of the checkout install.sh copies, owned by another user when we are root."""
    folder = tmp_path_factory.mktemp("checkout")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so")
    for name in ("firmware_host", "hardware", "systemd"):
        shutil.copytree(ROOT / name, folder / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, folder / name)
    (folder / "hardware" / "board.toml").chmod(0o666)   # group- and world-writable in the checkout
    if AS_ROOT:
        for path in [folder, *folder.rglob("*")]:
            os.lchown(path, CHECKOUT_OWNER, CHECKOUT_OWNER)
    return folder


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("python") / "python3"
    path.write_text(FAKE_PYTHON.replace("{tavli_board}", str(TAVLI_BOARD)))
    path.chmod(0o755)
    return path


def pi_root(folder: Path) -> Path:
    """An empty root folder with Pi OS Bookworm's boot files."""
    boot = folder / "boot" / "firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(PI_OS_CONFIG)
    (boot / "cmdline.txt").write_text(PI_OS_CMDLINE + "\n")
    return folder


def install(checkout: Path, fake_python: Path, root: Path, model: str | None) -> subprocess.CompletedProcess:
    model_file = root.parent / f"{root.name}-model"
    if model is not None:
        model_file.write_bytes(model.encode() + b"\0")
    result = subprocess.run(["bash", str(checkout / "systemd" / "install.sh")], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "DESTDIR": str(root), "MODEL_FILE": str(model_file),
                                              "PYTHON": str(fake_python)})
    return result


def installed(checkout, fake_python, root, model) -> str:
    result = install(checkout, fake_python, root, model)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def with_board_file(root: Path, checkout: Path, **settings) -> None:
    """A config that points at a board file with these settings (install.sh keeps it)."""
    board = (checkout / "hardware" / "board.toml").read_text()
    for key, value in settings.items():
        board = re.sub(rf'^{key} = "[^"]*"', f'{key} = "{value}"', board, flags=re.M)
    (root / "board.toml").write_text(board)
    config = root / "etc" / "tavli-board" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'board_file = "{root / "board.toml"}"\n')


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path's kind, mode, owner and content (or link target), the fake's own pip log left out."""
    state = {}
    for path in sorted(root.rglob("*")):
        if path.name == "pip-calls":
            continue
        info = path.lstat()
        content = os.readlink(path) if path.is_symlink() else (
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "")
        state[str(path.relative_to(root))] = (info.st_mode, info.st_uid, info.st_gid, content)
    return state


@pytest.fixture(scope="module")
def pi4(checkout, fake_python, tmp_path_factory) -> tuple[Path, str]:
    root = pi_root(tmp_path_factory.mktemp("pi4"))
    return root, installed(checkout, fake_python, root, MODELS["Pi 4"])


def test_the_program_is_roots_and_nobody_elses_to_change(pi4):
    root, _ = pi4
    program = root / PREFIX.lstrip("/")
    files = [path for path in program.rglob("*") if ".venv" not in path.parts]
    assert (program / "firmware_host" / "cli.py").is_file() and (program / "hardware" / "board.toml").is_file()
    for path in [program, *files]:
        mode = path.lstat().st_mode
        assert mode & 0o022 == 0, f"{path} is writable by group or others ({oct(mode)})"
        if AS_ROOT:
            assert (path.lstat().st_uid, path.lstat().st_gid) == (0, 0), f"{path} kept the checkout's owner"
    assert not (program / ".git").exists()


def test_a_regular_install_of_the_copy_with_the_pi_drivers_and_a_command_on_roots_path(pi4):
    root, _ = pi4
    (call,) = (root / PREFIX.lstrip("/") / ".venv" / "pip-calls").read_text().splitlines()
    assert call.split() == ["install", "--disable-pip-version-check", "--quiet", f"{root}{PREFIX}[pi,web]"]
    assert "-e" not in call.split() and "--editable" not in call
    link = root / "usr" / "local" / "bin" / "tavli-board"
    assert link.is_symlink() and os.readlink(link) == f"{PREFIX}/.venv/bin/tavli-board"


def test_config_udev_rule_and_unit_are_staged_readable_and_roots(pi4, checkout):
    root, _ = pi4
    config = root / "etc" / "tavli-board" / "config.toml"
    rule = root / "etc" / "udev" / "rules.d" / "99-tavli-board.rules"
    unit = root / "etc" / "systemd" / "system" / "tavli-board.service"
    web_unit = root / "etc" / "systemd" / "system" / "tavli-board-web.service"
    assert config.read_text() == (checkout / "systemd" / "config.toml").read_text()
    assert rule.read_text() == udev_rule(load_config(config))
    assert f"ExecStart={PREFIX}/.venv/bin/tavli-board run --config /etc/tavli-board/config.toml" in unit.read_text()
    assert f"ExecStart={PREFIX}/.venv/bin/tavli-board web --config /etc/tavli-board/config.toml" in web_unit.read_text()
    for path in (config, rule, unit, web_unit):
        assert path.stat().st_mode & 0o777 == 0o644


def config_block(root: Path) -> list[str]:
    text = (root / "boot" / "firmware" / "config.txt").read_text()
    assert text.startswith(PI_OS_CONFIG.rstrip("\n")), "the rest of config.txt must stay as it was"
    block = text[len(PI_OS_CONFIG.rstrip("\n")):].strip().splitlines()
    if not block:
        return []
    assert block[0].startswith("# >>> tavli-board") and block[1] == "[all]" and block[-1] == "# <<< tavli-board"
    return block[2:-1]


def cmdline(root: Path) -> list[str]:
    return (root / "boot" / "firmware" / "cmdline.txt").read_text().split()


def test_a_pi_4_gets_spi_a_whole_frame_per_transfer_and_a_steady_core_clock(pi4):
    root, output = pi4
    assert config_block(root) == ["dtparam=spi=on", "core_freq_min=500"]
    assert cmdline(root) == PI_OS_CMDLINE.split() + ["spidev.bufsiz=65536"]
    assert "board: Raspberry Pi 4 Model B Rev 1.5" in output and "reboot for it to take effect" in output


def test_a_second_run_changes_nothing(pi4, checkout, fake_python):
    root, _ = pi4
    before = snapshot(root)
    output = installed(checkout, fake_python, root, MODELS["Pi 4"])
    assert snapshot(root) == before
    assert "keeping the existing /etc/tavli-board/config.toml" in output and "reboot" not in output


def test_an_update_removes_files_the_checkout_no_longer_has(pi4, checkout, fake_python):
    root, _ = pi4
    stale = root / PREFIX.lstrip("/") / "firmware_host" / "gone.py"
    stale.write_text("")
    installed(checkout, fake_python, root, MODELS["Pi 4"])
    assert not stale.exists() and (root / PREFIX.lstrip("/") / ".venv" / "bin" / "pip").exists()


def test_a_pi_3_holds_the_core_clock_at_250_mhz(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    installed(checkout, fake_python, root, MODELS["Pi 3"])
    assert config_block(root) == ["dtparam=spi=on", "core_freq=250"]
    assert cmdline(root).count("spidev.bufsiz=65536") == 1


def test_a_pi_5_needs_nothing_for_its_leds(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    output = installed(checkout, fake_python, root, MODELS["Pi 5"])
    assert config_block(root) == [] and cmdline(root) == PI_OS_CMDLINE.split()
    assert "reboot" not in output


@pytest.mark.parametrize("board, lines, console_kept", [
    ("Pi 5", ["dtparam=uart0=on"], True),
    ("Pi 4", ["dtparam=spi=on", "core_freq_min=500", "enable_uart=1", "dtoverlay=disable-bt"], False),
    ("Pi 3", ["dtparam=spi=on", "core_freq=250", "enable_uart=1", "dtoverlay=disable-bt"], False),
])
def test_a_uart_link_gets_the_pl011_on_gpio14_and_15(checkout, fake_python, tmp_path, board, lines, console_kept):
    root = pi_root(tmp_path / "root")
    with_board_file(root, checkout, link="uart")
    installed(checkout, fake_python, root, MODELS[board])
    assert config_block(root) == lines
    assert ("console=serial0,115200" in cmdline(root)) is console_kept and "console=tty1" in cmdline(root)
    rule = (root / "etc" / "udev" / "rules.d" / "99-tavli-board.rules").read_text()
    assert 'KERNEL=="ttyAMA0", SYMLINK+="tavli-sensors"' in rule


def test_the_spi_driver_chosen_on_a_pi_5_gets_spi_without_a_core_clock_setting(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    with_board_file(root, checkout, driver="neopixel_spi")
    installed(checkout, fake_python, root, MODELS["Pi 5"])
    assert config_block(root) == ["dtparam=spi=on"] and cmdline(root)[-1] == "spidev.bufsiz=65536"


def test_switching_back_to_usb_takes_the_uart_settings_out_again(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    with_board_file(root, checkout, link="uart")
    installed(checkout, fake_python, root, MODELS["Pi 5"])
    with_board_file_text = (root / "board.toml").read_text().replace('link = "uart"', 'link = "usb"')
    (root / "board.toml").write_text(with_board_file_text)
    installed(checkout, fake_python, root, MODELS["Pi 5"])
    assert config_block(root) == []


def test_off_a_pi_the_boot_files_are_left_alone(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    output = installed(checkout, fake_python, root, None)
    assert "not a Raspberry Pi" in output and config_block(root) == [] and cmdline(root) == PI_OS_CMDLINE.split()


def test_install_keeps_an_existing_config_and_refuses_a_broken_one(checkout, fake_python, tmp_path):
    root = pi_root(tmp_path / "root")
    config = root / "etc" / "tavli-board" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[leds]\nbrightness = 5\n")
    result = install(checkout, fake_python, root, MODELS["Pi 4"])
    assert result.returncode != 0 and config.read_text() == "[leds]\nbrightness = 5\n"
    assert "keeping the existing /etc/tavli-board/config.toml" in result.stdout
    assert "leds.brightness: 5 is not valid" in result.stderr and "fix /etc/tavli-board/config.toml" in result.stderr
    assert not (root / "etc" / "systemd" / "system" / "tavli-board.service").exists()


@pytest.fixture(scope="module", params=["tavli-board.service", "tavli-board-web.service"])
def relocated_unit(pi4, tmp_path_factory, request) -> Path:
    """Each staged unit (the referee's, the web companion's) with its paths moved to where the staged
    tree lies (systemd-analyze checks that ExecStart exists)."""
    root, _ = pi4
    text = (root / "etc" / "systemd" / "system" / request.param).read_text()
    unit = tmp_path_factory.mktemp("unit") / request.param
    unit.write_text(text.replace(PREFIX, f"{root}{PREFIX}"))
    return unit


@needs_analyze
def test_the_unit_verifies_without_a_word_on_stderr(relocated_unit):
    result = subprocess.run([ANALYZE, "verify", str(relocated_unit)], capture_output=True, text=True, timeout=60)
    # systemd-analyze verify exits 0 even when it finds errors: anything on stderr is a failure.
    assert result.returncode == 0 and result.stderr == ""


@needs_analyze
def test_the_unit_is_hardened_to_an_exposure_of_3_or_better(relocated_unit):
    """The web companion's too, with the network it needs allowed (the referee's has none)."""
    result = subprocess.run([ANALYZE, "security", "--offline=true", str(relocated_unit)], capture_output=True,
                            text=True, timeout=60)
    exposure = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout).group(1))
    assert exposure <= 3.0, result.stdout


def test_a_regular_install_carries_the_board_file_and_the_firmware(tmp_path, checkout):
    """What install.sh's pip puts in site-packages works without the checkout beside it."""
    source = tmp_path / "source"   # pip builds in the source tree: a copy, not this checkout
    shutil.copytree(checkout, source)
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(source)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    check = subprocess.run(
        [sys.executable, "-c", "import firmware_host; print(firmware_host.__file__); "
                               "from firmware_host.cli import main; raise SystemExit(main(['config', 'check']))"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={**os.environ, "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"})
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith(f"{site}/firmware_host/")   # the installed copy, not this checkout
    assert (site / "hardware" / "board.toml").is_file() and (site / "hardware" / "firmware" / "tavli_mcu").is_dir()
    assert {path.name for path in (site / "firmware_host" / "web" / "static").iterdir()} == {"app.js", "app.css", "kit.js"}
    assert {path.name for path in (site / "firmware_host" / "hub" / "static").iterdir()} == {"hub.js", "hub.css"}
    # The rules' compiled search is built where this environment's install built it (a compiler).
    built_here = importlib.util.find_spec("firmware_host.rules._search") is not None
    assert bool(list((site / "firmware_host" / "rules").glob("_search*.so"))) == built_here
