"""A remote match: two simulated boards (the demo's rig and scripted players) play one match through a
real Mosquitto, each the seat of one player. Each board's players make their own colour's plays and
move the other board's as their lights show them, the referee holding the board to them; the dice
come from both boards (commit, then reveal). Both journals end with the same match: the same dice,
in the same order, and the same plays."""
import io

import pytest

from firmware_host.controller import machine as m
from firmware_host.demo.club import last_match, open_board, play_on_threads, remote_pair
from firmware_host.rules.match import MatchRules


# Plakoto, the shortest game (pins lit across boards too); all nine games, each once, are
# bench/bench_remote_seat.py's (a minute each on a busy machine): here CI's time is kept under its budget.
FAMILIES = ["plakoto"]


def play_remote_match(tmp_path, port: int, variant: str, seed: int):
    board_a, board_b = remote_pair(("table-1", "table-2"), tmp_path, "127.0.0.1", port, "kefalonia",
                                   MatchRules(sequence=(variant,), target=1), seed=seed, speed=8.0,
                                   outs=(io.StringIO(), io.StringIO()))
    with open_board(board_a) as demo_a, open_board(board_b) as demo_b:
        played = play_on_threads([demo_a, demo_b], seed=seed)
    for result in played:
        if result.error is not None:
            raise result.error
    return board_a, board_b, played


@pytest.mark.parametrize("variant", FAMILIES)
def test_a_remote_match_ends_with_the_same_dice_and_plays_in_both_journals(tmp_path, broker, variant):
    board_a, board_b, played = play_remote_match(tmp_path, broker.port, variant, seed=11)
    a, b = last_match(board_a.journal), last_match(board_b.journal)
    assert a.plays and a.plays == b.plays
    assert a.dice == b.dice
    # Each board's player made one colour's plays; the other board's were moved for it as lit.
    assert {side for side, *_ in a.plays} == {"white", "black"}
    assert a.ended is not None and a.ended == b.ended
    assert all(result.view.state == m.MATCH_OVER for result in played)
    assert played[0].view.score == played[1].view.score
