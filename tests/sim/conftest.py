"""Fixtures: a running simulated MCU and a BoardSensor connected to it."""
import pytest

from firmware_host.sim.transport import PtyTransport, TcpTransport
from sim_rig import Rig


@pytest.fixture
def pty_rig(tmp_path):
    rig = Rig(PtyTransport(tmp_path / "tavli-sensors"))
    yield rig
    rig.close()


@pytest.fixture
def tcp_rig():
    rig = Rig(TcpTransport(0))
    yield rig
    rig.close()
