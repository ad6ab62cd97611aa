"""Issue 6: "a killed service (kill -9 at random moments in a simulated match, 50 times) resumes with
no committed play lost".

`service_child.py` runs the service (`Service.open` and `run`, as `tavli-board run` does) on the
simulated board with the demo's scripted players; the board outlives each process in a file, as a
real board outlives a power cut. The child is killed with SIGKILL at a seeded random moment, from
during its start-up to a few seconds into play, 50 times, each time restarted on the same journal
and board; none may end by itself (a crash of the service or of its players). After every kill the
journal must be whole (SQLite's integrity check, every record readable, never moved aside by the
next start) and hold every play any child printed as committed.
A last child plays the match to its end. Then: every match in the journal was won (none abandoned
by a restart), its recorded score is what its games add up to, every play is legal from the
position before it (so each resumed child went on from the journaled position), and every start
that found a match unfinished took it up. And "a committed play is on disk before the next roll is
shown": before each frame that first shows a roll to play, the child reads the journal through a
connection of its own, which must already hold that roll and the position it is played from.
"""
import random
import signal
import sqlite3
from pathlib import Path

from firmware_host.journal import JournalReader, Kind
from firmware_host.journal.export import fold
from journal_kit import assert_plays_chain, committed_seqs, run_child

KILLS = 50
HERE = Path(__file__).parent
CHILD = HERE / "service_child.py"


def plays_in(journal_path: Path) -> set[int]:
    """The seqs of the journal's plays, after checking that the file is whole and every record reads."""
    assert sqlite3.connect(journal_path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with JournalReader.open(journal_path) as journal:
        return {event.seq for event in journal.tail(10 ** 6) if event.kind is Kind.PLAY}


def tail(log: Path, lines: int = 60) -> str:
    """The end of the children's stderr, so that a failure in CI says why without the file."""
    return "the children's stderr ends:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def assert_rolls_shown_after_the_journal(lines: list[str]) -> int:
    """The child checked each roll it showed against the journal on disk; returns how many."""
    early = [line for line in lines if line.startswith("SHOWN BEFORE THE JOURNAL")]
    assert not early, early
    return lines.count("shown after the journal")


def test_the_service_killed_50_times_in_a_match_loses_no_committed_play_and_finishes_it(tmp_path):
    journal_path, log = tmp_path / "journal.sqlite3", tmp_path / "children.log"
    rng = random.Random(6)
    reported: set[int] = set()
    on_disk: set[int] = set()
    rolls_shown = half_played = 0
    for kill in range(KILLS):
        lines, code = run_child(CHILD, [str(tmp_path), str(kill)], kill_after_s=rng.uniform(0.2, 3.0), stderr=log)
        assert code == -signal.SIGKILL, f"child {kill} ended by itself (exit {code}), not by the kill\n{tail(log)}"
        reported |= set(committed_seqs(lines))
        rolls_shown += assert_rolls_shown_after_the_journal(lines)
        half_played += lines.count("took back a half-played turn")
        now_on_disk = plays_in(journal_path)
        lost = sorted((reported | on_disk) - now_on_disk)
        assert not lost, f"kill {kill}: committed plays missing after the kill: {lost}\n{tail(log)}"
        on_disk = now_on_disk
    lines, code = run_child(CHILD, [str(tmp_path), "1000", "--one-match"], kill_after_s=None, stderr=log)
    assert code == 0 and lines[-1] == "match over", f"the last child did not finish the match (exit {code})\n{tail(log)}"
    rolls_shown += assert_rolls_shown_after_the_journal(lines)
    assert rolls_shown > KILLS
    # Some kills came mid-turn, and the service went on with the board showing part of the roll played.
    assert half_played > 0
    assert not list(tmp_path.glob("journal.sqlite3.corrupt-*")), "a start found the journal corrupt"
    assert reported <= plays_in(journal_path)
    assert assert_plays_chain(journal_path) == len(plays_in(journal_path))

    with JournalReader.open(journal_path) as journal:
        for match_id, summary in journal.summaries().items():
            ended = summary[-1]
            assert ended.kind is Kind.MATCH_ENDED and ended.data["reason"] == "won", f"match {match_id}: {ended}"
            match = fold(journal.match_events(match_id)).match
            score = {color.value: points for color, points in match.score.items()}
            assert ended.data["score"] == score and max(score.values()) >= match.rules.target > min(score.values())
            assert ended.data["winner"] == match.winner.value
        events = journal.tail(10 ** 6)
    unfinished, starts, resumed = None, 0, 0
    for index, event in enumerate(events):
        if event.kind is Kind.MATCH_STARTED:
            unfinished = event.match_id
        elif event.kind is Kind.MATCH_ENDED:
            unfinished = None
        elif event.kind is Kind.SERVICE and event.data["what"] == "started":
            starts += 1
            taken_up = event.data["resumed"]
            assert (taken_up and taken_up["match"]) == unfinished, \
                f"the start at {event.seq} found match {unfinished} unfinished and took up {taken_up}"
            if taken_up:
                resumed += 1
                following = next((later for later in events[index:] if later.match_id is not None), None)
                assert following is None or following.match_id == unfinished, \
                    f"the start at {event.seq} took up match {unfinished} but went on in another"
    assert KILLS // 2 < starts <= KILLS + 1   # a child killed early in its start-up records none
    assert resumed > KILLS // 2
    assert len(reported) > KILLS, "the children committed too few plays to tell anything"
