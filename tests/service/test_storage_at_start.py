"""A full or read-only disk when `tavli-board run` starts: the service holds with the storage light
and a STATUS line saying why, pings the watchdog, retries, and takes the match up once the journal
opens; never a traceback, never an exit that systemd would restart in a loop."""
import os
import resource
import signal
import subprocess
import sys
import threading


from firmware_host.config import load_config
from firmware_host.journal import Journal, JournalError
from firmware_host.leds.render import OFF, Renderer
from firmware_host.leds.strips import CapturingStrip
from firmware_host.rules.match import MatchRules
from firmware_host.service.notify import SystemdNotifier
from firmware_host.service.run import STORAGE_FAULT_SCENE, open_journal_when_possible

WATCHDOG_USEC = 200_000


def full_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails (EFBIG) as on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_run_on_a_full_disk_holds_tells_systemd_why_and_stops_cleanly(tmp_path, config_file, systemd):
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.start_match(MatchRules())
    environment = {**os.environ, "NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config_file)],
                             env=environment, stderr=subprocess.PIPE, text=True, preexec_fn=full_disk)
    try:
        ready = systemd.wait_for("READY=1")[-1]
        assert ready.startswith("READY=1\nSTATUS=storage fault (cannot ") and "journal" in ready
        systemd.wait_for("WATCHDOG=1")
        systemd.wait_for("WATCHDOG=1")
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 0
    finally:
        child.kill()
        child.wait()
    errors = child.stderr.read()
    assert "Traceback" not in errors and "storage fault" in errors, errors
    assert not list(tmp_path.glob("journal.sqlite3.corrupt-*")) and not list(tmp_path.glob("journal.sqlite3.damaged-*"))
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        assert journal.resume() is not None and journal.damage is None


class Notes(SystemdNotifier):
    def __init__(self):
        super().__init__(environ={})
        self.said: list[str] = []

    def ready(self, status=None):
        self.said.append(f"READY {status}")

    def status(self, text):
        self.said.append(f"STATUS {text}")


def test_the_light_shows_and_the_opening_is_retried_until_the_journal_opens(tmp_path, config_file, monkeypatch):
    config = load_config(config_file)
    with Journal.open(config.journal_path) as journal:
        journal.start_match(MatchRules())
    failures = ["cannot write the journal: database or disk is full",
                "cannot read the journal: disk I/O error"]
    real_open = Journal.open.__func__

    def open_once_there_is_room(cls, path, **kwargs):
        if failures:
            raise JournalError(failures.pop(0))
        return real_open(cls, path, **kwargs)

    monkeypatch.setattr(Journal, "open", classmethod(open_once_there_is_room))
    strip, notes = CapturingStrip(config.leds.layout), Notes()
    journal = open_journal_when_possible(config, notes, threading.Event(), strip=strip, retry_s=0.05)
    assert journal is not None and journal.resume() is not None
    journal.close()
    assert notes.said[0].startswith("READY storage fault (cannot write the journal: database or disk is full)")
    assert notes.said[1].startswith("STATUS storage fault (cannot read the journal: disk I/O error)")
    light = Renderer.from_config(config.leds).render(STORAGE_FAULT_SCENE, 0.0)
    lit = {index for index, colour in enumerate(light) if colour != OFF}
    assert lit and any(all(frame[index] != OFF for index in lit) for frame in strip.frames)
    assert strip.frames[-1] == (OFF,) * config.leds.layout.count   # handed over dark to the service


def test_a_stop_while_held_ends_the_wait(config_file, monkeypatch):
    config = load_config(config_file)
    def never_opens(cls, path, **kwargs):
        raise JournalError("cannot write the journal: read-only file system")

    monkeypatch.setattr(Journal, "open", classmethod(never_opens))
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    assert open_journal_when_possible(config, Notes(), stop, strip=CapturingStrip(config.leds.layout),
                                      retry_s=0.05) is None


def test_the_configuration_loads_when_no_file_can_grow(tmp_path):
    """Without XDG_RUNTIME_DIR the raw frames' folder is only named, not probed by writing in /tmp."""
    environment = {name: value for name, value in os.environ.items() if name not in ("XDG_RUNTIME_DIR", "TMPDIR")}
    child = subprocess.run([sys.executable, "-c", "from firmware_host.config import load_config; "
                            "print(load_config(None).logging.raw_frames_dir)"],
                           env=environment, capture_output=True, text=True, timeout=60, preexec_fn=full_disk)
    assert child.returncode == 0 and child.stdout.strip() == f"/tmp/tavli-board-{os.getuid()}", child.stderr
