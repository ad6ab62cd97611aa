"""Issue 29: junk on the sensor line, poured into the real service (its link thread, the loop, the
journal, the raw-frame log and the trace ring) over socket:// (which pyserial reads a byte at a
time) and over a pseudo-terminal, from the simulated MCU's end. What it leaves behind is bounded:
each fault is one episode in the journal, however often the junk makes it come back, and the
raw-frame log stays within its stated 1 MiB. Amounts are counted, never timed: the junk is poured
slice by slice, each once the link has read the one before."""
import random
import threading
import time

import pytest

from firmware_host.config import load_config
from firmware_host.journal import Kind
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.rawlog import SEGMENTS
from firmware_host.service.run import Service
from firmware_host.sim.board import OPENING_LAYOUT, SimBoard
from firmware_host.sim.junk import junk
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.sim.transport import PtyTransport, TcpTransport

SLICE = 2048
SLICES = 300          # 600 KB: nearly a minute of junk at 115200 baud
PATIENCE_S = 60       # only against a hang: how long a slice may take to be read


@pytest.fixture(params=["socket", "pty"])
def service(request, tmp_path, systemd):
    transport = TcpTransport() if request.param == "socket" else PtyTransport(tmp_path / "sensors")
    (tmp_path / "config.toml").write_text(
        f'hardware = "real"\n[serial]\nport = "{transport.port}"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
        f'[logging]\nraw_frames_dir = "{tmp_path / "raw"}"\n[web]\nsocket = "{tmp_path / "companion.sock"}"\n')
    config = load_config(tmp_path / "config.toml")
    mcu = SimulatedMcu(SimBoard(BoardReading.loads(OPENING_LAYOUT)), config.sensing.sensors.channels, transport,
                       colour_by=config.sensing.sensors.mcu.colour_by).start()
    service = Service.open(config)
    thread = threading.Thread(target=service.run)
    thread.start()
    yield service, transport
    service.stop()
    thread.join(30)
    mcu.stop()


def pour(service, transport, sensors) -> None:
    """Junk slice by slice, each once the link has read (at least) as many bytes as were poured."""
    counters = service.hardware.sensor.session.decoder.counters
    rng, poured = random.Random(29), counters.bytes_received
    for _ in range(SLICES):
        transport.write(junk(rng, SLICE, sensors))
        poured += SLICE
        give_up = time.monotonic() + PATIENCE_S
        while counters.bytes_received < poured and time.monotonic() < give_up:
            time.sleep(0.005)
        poured = max(poured, counters.bytes_received)   # a slice the line dropped is not waited for


def test_junk_leaves_one_journal_record_per_fault_episode_and_a_capped_raw_log(service, tmp_path):
    service, transport = service
    pour(service, transport, service.config.sensing.sensors)
    journal = service.journal.tail(1_000_000)
    began = [(e.data["fault"], e.data.get("location"), e.data.get("fault_kind")) for e in journal if e.kind is Kind.FAULT]
    assert began, "the junk raised no fault: it did not reach the service"
    # A fault begins an episode again only after one closed: at most once more than its closings.
    closed = [(e.data["fault"], e.data.get("location"), e.data.get("fault_kind"))
              for e in journal if e.kind is Kind.FAULT_CLEARED]
    for fault in set(began):
        assert began.count(fault) <= closed.count(fault) + 1, fault
    assert all(e.data["count"] >= 1 for e in journal if e.kind is Kind.FAULT_CLEARED)
    raw = sum((tmp_path / "raw" / name).stat().st_size for name in SEGMENTS if (tmp_path / "raw" / name).exists())
    assert raw <= 1024 * 1024 + 4 * 4096   # the stated 1 MiB, and a line of at most one read
