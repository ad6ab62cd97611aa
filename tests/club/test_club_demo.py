"""`tavli-board club demo` with python3 alone: the embedded broker (amqtt), the hub as its own process,
three simulated boards, two of them playing one match over a remote seat; it ends when every match is
over and the hub holds each board's records, and says so."""
import re
import subprocess
import sys

import pytest

DEMO_S = 400   # the bound on the whole run; it takes about a minute on an idle machine


def run_demo(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware_host", "club", "demo", *arguments],
                          capture_output=True, text=True, timeout=DEMO_S, stdin=subprocess.DEVNULL)


def test_the_club_demo_plays_a_remote_match_and_every_boards_records_reach_the_hub():
    pytest.importorskip("amqtt")
    # Plakoto: the shortest of the three families' games (bench/bench_remote_seat.py plays them all).
    done = run_demo("--boards", "3", "--broker", "embedded", "--speed", "10", "--match", "plakoto")
    out = done.stdout
    assert done.returncode == 0, done.stderr[-3000:] + out[-3000:]
    assert "on the embedded amqtt broker" in out
    assert re.search(r"^hub: tavli-board club hub: club demo, 3 boards", out, re.MULTILINE)
    # The remote match: each board lights the other board's plays for its player to move.
    assert re.search(r"^table-1: the other board's player plays black: ", out, re.MULTILINE)
    assert re.search(r"^table-2: the other board's player plays white: ", out, re.MULTILINE)
    scores = dict(re.findall(r"^tavli-board club demo: (table-\d): match over, (white \d+ - black \d+)$", out, re.MULTILINE))
    assert set(scores) == {"table-1", "table-2", "table-3"} and scores["table-1"] == scores["table-2"]
    assert "tavli-board club demo: the hub holds the matches of table-1, table-2, table-3" in out, out[-3000:]
    # The hub serves its pages: the demo says where the café screen is.
    served = re.search(r"^hub: the café screen: (http://127\.0\.0\.1:\d+/)", out, re.MULTILINE)
    assert served and f"watch every table on the café screen at {served.group(1)}" in out, out[:3000]


def test_a_bad_option_is_one_line_and_exit_2():
    done = run_demo("--boards", "1")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "--boards 1" in done.stderr
