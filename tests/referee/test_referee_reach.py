"""The bounds that steer the cascade search (firmware_host/referee/reach.py).

They prune which stage trees are built, so they must never rule out a board that forward moves
with the dice do reach, and `checkers_to_move` (a lower bound of the checkers to move) must never
exceed the checkers to move to any board ahead. Boards here are the mover's frame: 26 counts, 0
the bar, 1..24 the route, 25 borne off.
"""
import importlib
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.referee.reach import StageEnds, checkers_to_move, forward_fit, may_reach, unlike
from firmware_host.rules.plays import Node

OFF = 25
HOME_START = 19


@st.composite
def boards(draw):
    """A start of 15 checkers on the route (never on the bar: nothing is hit in a cascade)."""
    counts = [0] * 26
    for point in draw(st.lists(st.integers(1, 24), min_size=15, max_size=15)):
        counts[point] += 1
    return tuple(counts)


@st.composite
def home_boards(draw):
    """A start bearing off: up to 15 checkers in the home board (19 to 24), the others borne off."""
    counts = [0] * 26
    for point in draw(st.lists(st.integers(19, 24), min_size=1, max_size=15)):
        counts[point] += 1
    counts[OFF] = 15 - sum(counts)
    return tuple(counts)


@st.composite
def played(draw, starts=boards()):
    """A start, a sequence of cascade dice and a board reached by playing a prefix of them, one
    checker forward per die. rules.md: bearing off when all 15 are in the home board (19 to 24
    here); an exact die bears off from its point, a larger die from the highest occupied point
    only."""
    start = draw(starts)
    low = draw(st.integers(1, 6))
    dice = tuple(d for d in range(low, 7) for _ in range(4))
    used = draw(st.integers(0, len(dice)))
    board = list(start)
    for die in dice[:used]:
        occupied = [p for p in range(1, OFF) if board[p]]
        bearing_off = all(p >= HOME_START for p in occupied)
        movable = [p for p in occupied if p + die < OFF
                   or bearing_off and (p + die == OFF or p == occupied[0])]
        if not movable:
            break  # nothing can move this die: the turn ends there
        origin = draw(st.sampled_from(movable))
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


def _frame(**counts: int) -> tuple[int, ...]:
    """A frame board from `p19=5, off=9`-style counts."""
    board = [0] * 26
    for name, n in counts.items():
        board[OFF if name == "off" else int(name[1:])] = n
    return tuple(board)


def test_bearing_off_waits_for_every_checker_in_the_home_board():
    """rules.md: bearing off when all 15 are in the home board. A checker still outside it at
    the end was outside all the turn (checkers only move forward), so none was borne off."""
    start, board = _frame(p10=1, p20=1, off=13), _frame(p10=1, off=14)
    assert checkers_to_move(start, board) == 0
    assert not may_reach(start, board, (5,) * 4)
    assert may_reach(_frame(p19=1, p20=1, off=13), _frame(p19=1, off=14), (5,) * 4)


def test_a_larger_die_bears_off_only_from_the_highest_point():
    """rules.md: a larger die bears off from the highest occupied point only. With a checker
    left on 19 (six from the end) no six is larger than needed, so no pip is wasted: the checker
    on 24 cannot have been borne off by a six."""
    assert not may_reach(_frame(p19=5, p24=1, off=9), _frame(p19=5, off=10), (6,) * 4)
    # The checker on 22 is the highest: a six bears it off, three pips wasted.
    assert may_reach(_frame(p22=1, p24=1, off=13), _frame(p24=1, off=14), (6,) * 4)


def test_a_die_that_bears_no_checker_off_moves_one_at_least_that_far():
    """Fours from 22, 22 and 24 (three, three and one from the end): a four moves none of them on
    the board, so each four played bears one off. Two fours cannot leave two checkers on 24 with
    only one borne off, though the pips would fit (a four bearing off from 24 wastes three)."""
    assert not may_reach(_frame(p22=2, p24=1, off=12), _frame(p24=2, off=13), (4,) * 4)
    assert may_reach(_frame(p22=2, p24=1, off=12), _frame(p24=1, off=14), (4,) * 4)


def test_a_checker_ahead_of_the_rearmost_is_borne_off_only_by_an_exact_die():
    """rules.md: a larger die bears off from the highest occupied point only. The checker on 23
    (two from the end) never is the highest while one stays on 22, so only a two (or ones) can
    bear it off: with fours, 20/22 and 23/off cannot be played, though one four has the pips."""
    assert not may_reach(_frame(p20=1, p23=1, off=13), _frame(p22=1, off=14), (4,) * 4)
    assert may_reach(_frame(p20=1, p23=1, off=13), _frame(p22=1, off=14), (1,) * 4 + (2,) * 4)


@st.composite
def fit_cases(draw, starts=boards()):
    """A start, cascade dice, a board that forward moves with a prefix of them reach or one
    checker of it moved elsewhere (most such boards no play reaches), closed points and a bound
    on the states to visit (small ones make the search give up)."""
    start, dice, used, board = draw(played(starts))
    board = list(board)
    if draw(st.booleans()):
        origin = draw(st.sampled_from([p for p in range(OFF + 1) if board[p]]))
        board[origin] -= 1
        board[draw(st.integers(0, OFF))] += 1
    closed = frozenset(draw(st.lists(st.integers(1, 24), max_size=8)))
    closed -= {p for p in range(OFF) if start[p] or board[p]}
    return start, tuple(board), dice[:used], closed, draw(st.sampled_from([0, 1, 5, 40, 3000]))


@settings(max_examples=400, deadline=None)
@given(fit_cases())
def test_the_compiled_fit_answers_as_the_python_search_does(case):
    """rules/_search.c's forward_fit is reach._FitSearch in C: the same answer (None where it
    gives up) after the same count of states, so the bounds spend the same work either way."""
    reach = importlib.import_module("firmware_host.referee.reach")
    if reach._compiled_fit is None:
        pytest.skip("the compiled search is not active (not built, or TAVLI_PURE_PYTHON is set)")
    start, board, dice, closed, states = case
    search = reach._FitSearch(start, board, dice, closed, states)
    assert reach._compiled_fit(start, board, dice, closed, states) == (search.fits(), len(search.memo))


def test_the_compiled_fit_counts_the_states_of_a_long_search_as_the_python_one():
    """A fit that visits over a hundred states before it rules the board out (met judging a Gul
    Bara cascade under start_rule = first_checker): the compiled fit's count of states is the
    work the referee's guidance spends, and a table of states that grew as it went lost two of
    them (113 counted), which changed where a lifted checker was shown it may go."""
    reach = importlib.import_module("firmware_host.referee.reach")
    if reach._compiled_fit is None:
        pytest.skip("the compiled search is not active (not built, or TAVLI_PURE_PYTHON is set)")
    start = _frame(p1=12, p9=1, p11=1, p22=1)
    board = _frame(p1=10, p3=1, p9=1, p11=1, p14=1, p22=1)
    case = (start, board, (1, 1, 1, 1, 2, 2, 2, 2, 3), frozenset({12, 13, 14, 23, 24}), 200)
    search = reach._FitSearch(*case)
    assert (search.fits(), len(search.memo)) == (False, 111)
    assert reach._compiled_fit(*case) == (False, 111)


def test_forward_fit_spends_its_states_on_the_work_either_way(monkeypatch):
    reach = importlib.import_module("firmware_host.referee.reach")
    start = (0, 2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 5) + (0,) * 13
    board = (0, 0, 0, 1, 0, 1, 5, 0, 3, 0, 0, 0, 5) + (0,) * 13
    spent = []
    for compiled in (reach._compiled_fit, None):
        monkeypatch.setattr(reach, "_compiled_fit", compiled)
        work = reach.Work(1000)
        assert forward_fit(start, board, (2, 2, 2), work=work)   # 1->3, and 1->3->5
        spent.append(work.spent)
    assert spent[0] == spent[1] > 0


@st.composite
def ends_and_boards(draw):
    """A stage's ends (the opponent's checkers of two kinds), among them one that a board was
    reached from by forward moves, the board, its opponent's checkers and the end tried first last
    time (or none)."""
    opps = [draw(boards()), draw(boards())]
    start, _, _, board = draw(played())
    nodes = draw(st.lists(st.builds(Node, boards(), st.sampled_from(opps)), max_size=30))
    nodes.insert(draw(st.integers(0, len(nodes))), Node(start, opps[0]))
    nodes = list(dict.fromkeys(nodes))  # a stage's ends are distinct
    return nodes, board, draw(st.sampled_from(opps)), draw(st.sampled_from(nodes + [None]))


@settings(max_examples=100, deadline=None)
@given(ends_and_boards())
def test_the_stage_ends_tried_for_a_board_are_those_it_lies_ahead_of_nearest_first(case):
    """`StageEnds.covering`, compiled (rules/_search.c) and in Python alike: exactly the ends with
    the board's opponent checkers from which no checker of the board need come from further on
    (`checkers_to_move` 0: forward moves may reach it), the last one tried first, then the least
    unlike the board, in the stage's order where equal."""
    nodes, board, opp, first = case
    reach = importlib.import_module("firmware_host.referee.reach")
    ends = {node: ("state", i) for i, node in enumerate(nodes)}
    expected_set = {i for i, node in enumerate(nodes) if node.opp == opp and not checkers_to_move(node.me, board)}
    compiled = reach._compiled_covering
    answers = []
    for scan in {compiled, None}:
        reach._compiled_covering = scan
        try:
            answers.append([i for _, i in StageEnds(ends).covering(board, opp, first)])
        finally:
            reach._compiled_covering = compiled
    order = answers[0]
    assert all(answer == order for answer in answers)
    assert set(order) == expected_set
    keys = [(nodes[i] != first, unlike(nodes[i].me, board), i) for i in order]
    assert keys == sorted(keys)


@st.composite
def reach_cases(draw):
    """`fit_cases`' boards (half of them bearing off) with the whole cascade's dice, the die values
    that cannot move at the board (or none given), and a bound on the work (none, spent already,
    or small)."""
    start, board, _, closed, _ = draw(fit_cases(boards() | home_boards()))
    low = draw(st.integers(1, 6))
    dice = tuple(d for d in range(low, 7) for _ in range(4))
    stop = draw(st.none() | st.frozensets(st.integers(1, 6)))
    return start, board, dice, closed, stop, draw(st.sampled_from([None, -3, 0, 1, 5, 40, 3000]))


@settings(max_examples=400, deadline=None)
@given(reach_cases())
def test_the_compiled_reach_answers_as_the_python_one_does(case):
    """rules/_search.c's may_reach is reach.may_reach's Python in C: the same answer after the same
    work spent (the work bounds which guidance the referee gives)."""
    reach = importlib.import_module("firmware_host.referee.reach")
    if reach._compiled_reach is None:
        pytest.skip("the compiled search is not active (not built, or TAVLI_PURE_PYTHON is set)")
    start, board, dice, closed, stop, limit = case
    compiled, answers = reach._compiled_reach, []
    for path in (compiled, None):
        work = None if limit is None else reach.Work(limit)
        reach._compiled_reach = path
        try:
            answers.append((may_reach(start, board, dice, closed, stop, work), work and work.spent))
        finally:
            reach._compiled_reach = compiled
    assert answers[0] == answers[1]


def test_a_reach_with_its_work_spent_gives_up_as_maybe(monkeypatch):
    """A checker from 1 to 5 with 2-2 lands on 3 on the way: closed, no play reaches the board, which
    the fit rules out with work left; with none left it gives up at once and answers "maybe"
    (the trees decide), compiled and in Python alike."""
    reach = importlib.import_module("firmware_host.referee.reach")
    start = _frame(p1=2, p12=13)
    board = _frame(p1=1, p5=1, p12=13)
    for path in {reach._compiled_reach, None}:
        monkeypatch.setattr(reach, "_compiled_reach", path)
        assert not may_reach(start, board, (2, 2, 3, 3), frozenset({3}), work=reach.Work(100))
        assert may_reach(start, board, (2, 2, 3, 3), frozenset({3}), work=reach.Work(0))
        assert may_reach(start, board, (2, 2, 3, 3), work=reach.Work(100))


def test_the_compiled_reach_answers_as_the_python_one_does_on_every_small_bear_off():
    """Every pair of boards of three checkers in the home board or borne off (the start and the
    board judged, forward or not), with a high and a low cascade's dice, every die value or only
    the low ones or none said to stop the turn, bounded or not: the compiled may_reach answers
    as the Python one after the same work (its bearing-off bounds decide most of them)."""
    reach = importlib.import_module("firmware_host.referee.reach")
    if reach._compiled_reach is None:
        pytest.skip("the compiled search is not active (not built, or TAVLI_PURE_PYTHON is set)")
    boards = []
    for spots in itertools.combinations_with_replacement(range(HOME_START, OFF + 1), 3):
        counts = [0] * 26
        for spot in spots:
            counts[spot] += 1
        counts[OFF] += 12
        boards.append(tuple(counts))
    compiled, differing, reached = reach._compiled_reach, [], 0
    for start, board in itertools.product(boards, boards):
        for dice, stop, limit in itertools.product(((5,) * 4 + (6,) * 4, (1,) * 4 + (2,) * 4 + (3,) * 4),
                                                   (None, frozenset(range(1, 7)), frozenset({1, 2})),
                                                   (None, 12)):
            answers = []
            for path in (compiled, None):
                work = None if limit is None else reach.Work(limit)
                reach._compiled_reach = path
                try:
                    answers.append((may_reach(start, board, dice, frozenset(), stop, work), work and work.spent))
                finally:
                    reach._compiled_reach = compiled
            reached += answers[1][0]
            if answers[0] != answers[1]:
                differing.append((start, board, dice, stop, limit, answers))
    assert not differing, differing[:3]
    assert reached
