"""Fixtures of the service tests."""
import pytest
from systemd_kit import FakeSystemd


@pytest.fixture
def systemd(tmp_path):
    fake = FakeSystemd(tmp_path / "notify")
    yield fake
    fake.socket.close()


@pytest.fixture
def config_file(tmp_path):
    """A configuration of the simulated board with its journal, log and raw frames in `tmp_path`."""
    path = tmp_path / "config.toml"
    path.write_text(f'hardware = "simulated"\n'
                    f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                    f'[logging]\nfile = "{tmp_path / "log" / "tavli-board.log"}"\n'
                    f'raw_frames_dir = "{tmp_path / "raw"}"\n')
    return path
