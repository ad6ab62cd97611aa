"""bench/bench_bot.py's GNU Backgammon player and bench/bench_rules.py's timing beside gnubg: what
the strength and the speed goals of Portes are measured against. gnubg's answer must become one of
our legal plays in every kind of turn (entering, hitting, bearing off, doubles), and its timing
child must answer each position it is sent."""
import random
import shutil
import sys
from pathlib import Path

import pytest

from firmware_host.rules import Rules, Turn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_bot import GnubgChild, GnubgPlayer, gnubg_executable  # noqa: E402
from bench_rules import EDGE_POSITIONS, GNUBG_TIMING_ANSWER, GNUBG_TIMING_SETTINGS, random_turns  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gnubg") is None and shutil.which("gnubg", path="/usr/games") is None,
                                reason="GNU Backgammon is not installed (Debian package gnubg)")


def test_gnubg_answers_a_legal_play_in_every_turn_of_random_games():
    gnubg = GnubgPlayer(gnubg_executable())
    rules = Rules.for_variant("portes")
    kinds = set()
    try:
        for position, dice, turn, _, _ in random_turns("portes", 3, seed=5):
            plays = turn.plays()
            # (It raises where gnubg's move is none of the legal plays.)
            chosen = gnubg.choose(Turn(position, dice, rules), random.Random(0))
            assert chosen.position in [play.position for play in plays]
            kinds.update(kind for kind, seen in (
                ("enter", any(m.origin == "bar" for m in chosen.moves)),
                ("hit", any(m.hit for m in chosen.moves)),
                ("off", any(m.destination == "off" for m in chosen.moves)),
                ("doubles", dice[0] == dice[1] and len(plays) > 1)) if seen)
    finally:
        gnubg.close()
    assert kinds == {"enter", "hit", "off", "doubles"}


def test_the_timing_child_answers_every_portes_edge_position_in_cpu_seconds():
    child = GnubgChild(gnubg_executable(), GNUBG_TIMING_ANSWER, GNUBG_TIMING_SETTINGS)
    try:
        for name, position, dice in EDGE_POSITIONS:
            if position.variant == "portes":
                theirs, mine = GnubgPlayer.board(position)
                seconds = float(child.ask(theirs + mine + list(dice) + [2])[0])
                assert 0 < seconds < 1, name
    finally:
        child.close()
