"""A process appending plays is killed with SIGKILL at random moments: no committed play is lost.

Each child resumes the match the previous one left and plays on; it prints a play's seq only after
`record_play` returned. After every kill the journal must open without being moved aside, pass
SQLite's integrity check, and hold every play a child reported committed. At the end the plays
must chain: each play's dice and resulting position are legal from the position before it.
(SIGKILL tests what a crash can do; synchronous=FULL is what makes the same hold for a power cut.)
"""
import random
import signal
import sqlite3
from pathlib import Path

from firmware_host.journal import Journal, Kind
from journal_kit import assert_plays_chain, committed_seqs, run_child

KILLS = 30
HERE = Path(__file__).parent


def run_and_kill(path: Path, seed: int, delay_s: float) -> list[int]:
    lines, code = run_child(HERE / "crash_child.py", [str(path), str(seed)], kill_after_s=delay_s)
    assert code == -signal.SIGKILL, f"the child (seed {seed}) ended by itself (exit {code}), not by the kill"
    return committed_seqs(lines)


def test_no_committed_play_is_lost_when_the_process_is_killed(tmp_path):
    path = tmp_path / "journal.sqlite3"
    rng = random.Random(2024)
    reported: list[int] = []
    for kill in range(KILLS):
        # Most kills land mid-play; some during start-up, before or while the journal opens.
        reported += run_and_kill(path, seed=kill, delay_s=rng.uniform(0.05, 0.6))
        journal = Journal.open(path)
        assert journal.moved_aside is None, f"kill {kill}: the journal had to be moved aside"
        plays = {event.seq for event in journal.tail(10 ** 6) if event.kind is Kind.PLAY}
        lost = sorted(set(reported) - plays)
        assert not lost, f"kill {kill}: plays reported committed but missing: {lost}"
        journal.close()
    assert len(reported) > KILLS, "the children committed too few plays to tell anything"
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert_plays_chain(path)

