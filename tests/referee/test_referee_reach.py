"""The bounds that steer the cascade search (firmware_host/referee/reach.py).

They prune which stage trees are built, so they must never rule out a board that forward moves
with the dice do reach, and `checkers_to_move` (a lower bound of the checkers to move) must never
exceed the checkers to move to any board ahead. Boards here are the mover's frame: 26 counts, 0
the bar, 1..24 the route, 25 borne off.
"""
from hypothesis import given, settings, strategies as st

from firmware_host.referee.reach import checkers_to_move, forward_fit, may_reach

OFF = 25


@st.composite
def boards(draw):
    """A start of 15 checkers on the route (never on the bar: nothing is hit in a cascade)."""
    counts = [0] * 26
    for point in draw(st.lists(st.integers(1, 24), min_size=15, max_size=15)):
        counts[point] += 1
    return tuple(counts)


@st.composite
def played(draw):
    """A start, a sequence of cascade dice and a board reached by playing a prefix of them, one
    checker forward per die (a move past the end bears off)."""
    start = draw(boards())
    low = draw(st.integers(1, 6))
    dice = tuple(d for d in range(low, 7) for _ in range(4))
    used = draw(st.integers(0, len(dice)))
    board = list(start)
    for die in dice[:used]:
        origin = draw(st.sampled_from([p for p in range(1, OFF) if board[p]] or [OFF]))
        if origin == OFF:
            break  # everything is off: the rest of the dice are lost
        board[origin] -= 1
        board[min(origin + die, OFF)] += 1
    return start, dice, used, tuple(board)


@settings(max_examples=300, deadline=None)
@given(played())
def test_a_board_forward_moves_reach_is_never_ruled_out(case):
    start, dice, used, board = case
    assert checkers_to_move(start, board) == 0
    assert may_reach(start, board, dice)


@settings(max_examples=300, deadline=None)
@given(played(), boards())
def test_checkers_to_move_never_exceeds_the_moves_to_a_board_ahead(case, reading):
    start, _, _, ahead = case
    moves = sum(max(0, r - a) for r, a in zip(reading, ahead))
    assert checkers_to_move(start, reading) <= moves


def test_a_checker_moved_back_or_by_a_sum_no_die_makes_is_ruled_out():
    start = [0] * 26
    start[10], start[OFF] = 1, 14
    start = tuple(start)
    back = list(start)
    back[10], back[6] = 0, 1
    assert checkers_to_move(start, tuple(back)) == 1
    assert not may_reach(start, tuple(back), (3,) * 4)
    # 10 -> 12 is two pips: no prefix of four threes and four fours moves one checker two pips.
    short = list(start)
    short[10], short[12] = 0, 1
    assert checkers_to_move(start, tuple(short)) == 0
    assert not forward_fit(start, tuple(short), (3,))
    assert not may_reach(start, tuple(short), (3,) * 4 + (4,) * 4)
    # 10 -> 17 with a three and a four, either order.
    seven = list(start)
    seven[10], seven[17] = 0, 1
    assert forward_fit(start, tuple(seven), (3, 4))


def test_with_the_dice_that_cannot_move_the_turn_must_be_able_to_end_at_the_board():
    """One checker from 10 to 13 with the first of four threes: on the way, but the turn ends
    there only if a three cannot move at that board."""
    start, board = [0] * 26, [0] * 26
    start[10], board[13] = 1, 1
    start[OFF] = board[OFF] = 14
    start, board = tuple(start), tuple(board)
    assert may_reach(start, board, (3,) * 4)
    assert not may_reach(start, board, (3,) * 4, stop=frozenset())
    assert may_reach(start, board, (3,) * 4, stop=frozenset({3}))
