"""A full or failing disk when the journal is opened is a storage problem, never a corrupt journal:
nothing is moved aside, and once the disk takes writes again the match is taken up."""
import random
import resource
import signal
import subprocess
import sys

from firmware_host.journal import Journal
from firmware_host.rules.match import MatchRules
from journal_kit import step

# The child opens the journal with no byte of file growth allowed: as on a full disk, SQLite cannot
# create the write-ahead log's index or add a record.
OPEN_ON_A_FULL_DISK = """
import sys
from firmware_host.journal import Journal, JournalError
try:
    Journal.open(sys.argv[1])
except JournalError as error:
    print("storage:", error)
else:
    print("opened")
"""


def full_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails (EFBIG) as on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_a_full_disk_at_opening_moves_nothing_aside_and_the_match_is_taken_up_once_there_is_room(tmp_path):
    path = tmp_path / "journal.sqlite3"
    journal = Journal.open(path)
    journal.start_match(MatchRules(sequence=("portes",), target=3))
    rng = random.Random(5)
    for _ in range(12):
        step(journal, rng)
    committed = [event.to_json() for event in journal.unfinished_match_events()]
    journal.close()
    files = sorted(child.name for child in tmp_path.iterdir())
    child = subprocess.run([sys.executable, "-c", OPEN_ON_A_FULL_DISK, str(path)], preexec_fn=full_disk,
                           capture_output=True, text=True, timeout=120)
    assert child.stdout.startswith("storage: cannot "), child.stdout + child.stderr
    assert not [name for name in (child.name for child in tmp_path.iterdir()) if ".corrupt-" in name or ".damaged-" in name]
    assert {name for name in files} <= {child.name for child in tmp_path.iterdir()}
    reopened = Journal.open(path)
    assert reopened.damage is None and [event.to_json() for event in reopened.unfinished_match_events()] == committed
