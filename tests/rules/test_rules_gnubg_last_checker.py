"""GNU Backgammon on the last checkers of Portes (rules.md: "a play that bears off the last checker
with fewer dice is not legal when another order uses more ..., as GNU Backgammon judges it"): on
bear-offs of one to three checkers, with Black's blots and points in White's home board, gnubg's
0-ply play uses as many dice as every legal play of ours, and is one of them."""
import random
import shutil
import sys
from pathlib import Path

import pytest

from firmware_host.rules import Turn
from rules_kit import pos

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_bot import BEST_MOVE_ANSWER, GnubgChild, GnubgPlayer, gnubg_executable  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gnubg") is None and shutil.which("gnubg", path="/usr/games") is None,
                                reason="GNU Backgammon is not installed (Debian package gnubg)")


def bear_offs(count: int, seed: int):
    """White with one to three checkers on 1-6, Black's fifteen spread with blots and points on
    White's home board and the rest on 19-24; every roll."""
    rng = random.Random(seed)
    for _ in range(count):
        white: dict[int, int] = {}
        for _ in range(rng.randint(1, 3)):
            point = rng.randint(1, 6)
            white[point] = white.get(point, 0) + 1
        black: dict[int, int] = {}
        for point in rng.sample([p for p in range(1, 7) if p not in white], rng.randint(0, 2)):
            black[point] = rng.choice((1, 1, 2))
        while sum(black.values()) < 15:
            point = rng.randint(19, 24)
            black[point] = black.get(point, 0) + 1
        yield pos("portes", white, black), (rng.randint(1, 6), rng.randint(1, 6))


def test_gnubg_plays_as_many_dice_as_every_legal_play_to_the_last_checker():
    gnubg = GnubgChild(gnubg_executable(), BEST_MOVE_ANSWER)
    try:
        for position, dice in bear_offs(150, seed=29):
            theirs, mine = GnubgPlayer.board(position)
            answer = gnubg.ask(theirs + mine + list(dice))
            gnubg_dice = len(answer) // 2      # (from, to) for each die it plays
            plays = Turn(position, dice).plays()
            label = f"{position.to_json_text()} {dice}: gnubg {answer}, ours {[str(p) for p in plays]}"
            assert {len(play.moves) for play in plays} == {gnubg_dice}, label
    finally:
        gnubg.close()
