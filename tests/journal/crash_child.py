"""Run by test_crash: plays a match into a journal, printing each play's seq once it is committed.

    python crash_child.py JOURNAL SEED

It resumes whatever match the journal holds (or starts one, whenever none is unfinished), so a line of children, each killed
at a random moment, plays one long match.
"""
import random
import sys

from firmware_host.journal import Journal
from firmware_host.rules.match import MatchRules
from journal_kit import step


def main(path: str, seed: int) -> None:
    journal = Journal.open(path)
    rng = random.Random(seed)
    print("ready", flush=True)
    while True:
        if journal.resume() is None:
            journal.start_match(MatchRules(sequence=("portes", "plakoto", "fevga"), target=5))
        seq = step(journal, rng)
        if seq is not None:
            print(f"committed {seq}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
