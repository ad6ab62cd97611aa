"""Test setup shared by the whole suite.

Every test runs with HOME and the XDG base folders in a temporary folder of its own (`_private_home`),
so no test reads or writes the developer's own configuration, journal or state.

Blinka chooses its board when `board` is first imported, and off a Pi it only offers the
OS-agnostic board (with a NEOPIXEL pin, so the real `neopixel` module imports) when this variable
is set; so it is set here, at module level, before any test module can import `board`.
"""
import copy
import shutil
import tempfile
import os
import tomllib
from pathlib import Path

import pytest
import tomli_w

os.environ["BLINKA_OS_AGNOSTIC"] = "1"

BOARD_FILE = Path(__file__).resolve().parents[1] / "hardware" / "board.toml"
XDG_FOLDERS = {"XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state", "XDG_DATA_HOME": ".local/share",
               "XDG_CACHE_HOME": ".cache", "XDG_RUNTIME_DIR": "run"}


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory, monkeypatch) -> Path:
    """HOME, the XDG folders and the temporary folder (TMPDIR, for this process and the processes it
    starts) of this test: empty, temporary, its own; so what a killed child leaves goes with the test's."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    (home / "tmp").mkdir(mode=0o700)
    monkeypatch.setenv("TMPDIR", str(home / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(home / "tmp"))
    for variable, folder in XDG_FOLDERS.items():
        (home / folder).mkdir(parents=True, mode=0o700)
        monkeypatch.setenv(variable, str(home / folder))
    return home


@pytest.fixture(scope="session")
def shipped_board_file() -> Path:
    """hardware/board.toml as shipped."""
    return BOARD_FILE


@pytest.fixture(scope="session")
def _shipped_board() -> dict:
    with BOARD_FILE.open("rb") as file:
        return tomllib.load(file)


@pytest.fixture
def board(_shipped_board) -> dict:
    """A private copy of the shipped board file's tables, for a test to change and `write_board`."""
    return copy.deepcopy(_shipped_board)


@pytest.fixture
def write_board(tmp_path):
    """Writes a board document as TOML into a temporary file and returns its path."""

    def write(document: dict) -> Path:
        path = tmp_path / "board.toml"
        path.write_text(tomli_w.dumps(document))
        return path

    return write


@pytest.fixture(autouse=True)
def _hermetic_home(monkeypatch, tmp_path_factory):
    """HOME and the XDG folders in a temporary folder: no test reads or writes the user's. The
    runtime folder's path is kept short, as a Unix socket's path must be (under 108 bytes)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, folder in (("XDG_STATE_HOME", ".local/state"), ("XDG_CONFIG_HOME", ".config"),
                         ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(name, str(home / folder))
    runtime = Path(tempfile.mkdtemp(prefix="tb-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium():
    """A real headless Chromium (Debian's chromium and chromium-driver, through Selenium), 1100x900, on a
    profile of its own; the test is skipped where they are not installed."""
    browser_binary = Path("/usr/bin/chromium")
    driver_binary = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not browser_binary.exists() or not Path(driver_binary).exists():
        pytest.skip("chromium and chromium-driver are not installed (scripts/system-packages.sh installs them)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")
    profile = tempfile.mkdtemp(prefix="tb-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(browser_binary)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1100,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver_binary), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
