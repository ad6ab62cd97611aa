"""Fixtures of the service tests."""
import pytest
from systemd_kit import FakeSystemd


@pytest.fixture
def systemd(tmp_path):
    fake = FakeSystemd(tmp_path / "notify")
    yield fake
    fake.socket.close()
