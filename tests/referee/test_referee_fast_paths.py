"""The referee's fast paths judge exactly as its reference path does (issue 33).

A cascade's lifted checker is judged by locating every board it may have come from or go to. The
fast paths: the forward fit, the reach test and the trees' states in C (rules/_search.c), the
opponent's checkers judged off every way at once where nothing is hit, the boards of the roll found
on no legal way remembered, and a stage that a board lies beyond searched by its ends alone (no
tree). The reference path: the Python fit (reach._FitSearch, its specification), reach and trees,
every board searched anew. Both are given guidance work without bound, so each answer is exact and
any difference is a fast path's error. Readings: every board on the way through a cascade chosen
stage by stage at random (rules.md: each is partial, or complete where bearing off ends another
play there, the last one complete), each with one checker of either colour lifted, and one moved
to a random location.
"""
import functools
import importlib
import itertools

import pytest

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from firmware_host.referee import Referee
from firmware_host.rules import Position, Rules, Turn, plays
from referee_kit import LOCATIONS, changed, count, moved, pos, reading_of

judge_module = importlib.import_module("firmware_host.referee.judge")
reach = importlib.import_module("firmware_host.referee.reach")
tree = importlib.import_module("firmware_host.referee.tree")

# Cascades small enough for the reference path: bearing off, blocked points, runners, an open
# middle game (Black to move) and a crowded start that the low cascades spread.
POSITIONS = [
    pos("gulbara", {6: 3, 5: 2, 4: 2}, {14: 4, 16: 4, 18: 2}, rolls=(9, 9)),
    pos("gulbara", {8: 2, 3: 2, 2: 1}, {14: 4, 5: 1, 7: 1}, rolls=(5, 5)),
    pos("gulbara", {10: 1, 8: 1}, {14: 13, 16: 2}, rolls=(2, 2)),
    pos("gulbara", {24: 6, 20: 2, 16: 3, 9: 2, 3: 2}, {12: 5, 10: 3, 7: 2, 22: 3, 15: 2},
        turn="black", rolls=(6, 6)),
    pos("gulbara", {6: 3, 5: 2, 4: 2, 9: 1, 11: 2}, {14: 4, 16: 4, 18: 2, 3: 1}, rolls=(9, 9)),
]

# Cascades (cascading_doubles) under rules that judge a play's end by its board: Moultezim's four
# points of the opponent's start table at most (a board of a seeded bench game), Fevga's start.
LIMITED_POSITIONS = [
    pos("moultezim", {1: 8, 2: 1, 3: 1, 4: 2, 6: 1, 12: 1, 18: 1},
        {13: 3, 14: 2, 15: 4, 16: 1, 19: 2, 20: 1, 23: 1, 24: 1}, turn="black", rolls=(29, 28)),
    Position.from_json({**Position.start("fevga").to_json(), "rolls": {"white": 5, "black": 5}}),
]


class ReferenceReferee(Referee):
    """Every board searched anew, the opponent's checkers tested like the mover's, every stage's
    tree built (where the fast path takes only the compiled search's stage ends)."""

    def __init__(self, *args):
        super().__init__(*args)
        self._opp_fixed = False

    def _guided_locate(self, board, work):
        return self._locate(board, work)

    def _stage_ends(self, root, stage, work):
        return self._tree(root, stage).ends


def reference_verdict(referee, reading, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(reach, "_compiled_fit", None)
        patch.setattr(reach, "_compiled_reach", None)
        patch.setattr(tree, "_compiled_tree_states", None)
        return referee.judge(reading)


@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_fast_paths_judge_every_reading_of_a_cascade_as_the_reference_does(data, monkeypatch):
    monkeypatch.setattr(judge_module, "GUIDANCE_WORK", 10 ** 9)
    position = data.draw(st.sampled_from(POSITIONS))
    low = data.draw(st.integers(3, 6))
    rules = Rules.for_variant("gulbara", data.draw(st.sampled_from(
        [{}, {"gulbara_cascade_maximize": "whole_cascade"}])))
    play = Turn(position, (low, low), rules).pick_play(lambda options: data.draw(st.sampled_from(options)))
    fast, reference = Referee(position, (low, low), rules), ReferenceReferee(position, (low, low), rules)
    mover = position.turn
    board = reading_of(position)
    boards = [board]
    for move in play.moves:
        boards.append(board := moved(board, mover, move.origin, move.destination))
    for index, board in enumerate(boards):
        last = index == len(boards) - 1
        expected = "complete" if last else "unchanged" if index == 0 else "partial"
        color = data.draw(st.sampled_from([mover, mover.opponent]))
        origin = data.draw(st.sampled_from([loc for loc in LOCATIONS if count(board, color, loc)]))
        lifted = changed(board, color, origin, -1)
        elsewhere = changed(lifted, color, data.draw(st.sampled_from(LOCATIONS)), +1)
        verdicts = [fast.judge(reading) for reading in (board, lifted, elsewhere)]
        for reading, verdict in zip((board, lifted, elsewhere), verdicts):
            assert verdict == reference_verdict(reference, reading, monkeypatch), (play, index, reading)
        # Bearing off, a larger die may waste pips: a board on the way may end another play too.
        borne_off = board.off[mover.index] > position.off[mover.index]
        assert verdicts[0].kind == expected or borne_off and verdicts[0].kind == "complete", \
            (str(play), index)


def test_the_issue_reproducer_is_judged_alike_by_both_paths(monkeypatch):
    """issue 33's reading (a 2-2 cascade, a checker lifted part-way): 12 s on the old search."""
    monkeypatch.setattr(judge_module, "GUIDANCE_WORK", 10 ** 9)
    position = pos("gulbara", {13: 2, 14: 1, 15: 1, 18: 2, 19: 2, 20: 2, 21: 1, 22: 2, 5: 2},
                   {2: 1, 3: 2, 4: 1, 6: 4, 7: 4, 8: 3}, turn="black", rolls=(3, 3))
    reading = reading_of(position)
    for location, n in (("1", 2), ("17", 1), ("2", 1), ("24", 5), ("3", 3), ("6", 1), ("7", 1)):
        reading = changed(reading, position.turn, location, n - count(reading, position.turn, location))
    for location in ("4", "8"):
        reading = changed(reading, position.turn, location, -count(reading, position.turn, location))
    verdict = Referee(position, (2, 2)).judge(reading)
    assert verdict.kind == "in_hand" and verdict.origin == "7" and verdict.destinations == {"7": ("1",)}
    assert verdict == reference_verdict(ReferenceReferee(position, (2, 2)), reading, monkeypatch)


def stage_roots(turn: Turn, stages: int) -> list[tuple[int, object]]:
    """The cascade's first `stages` stages with a root each: its start, then the stage ends of each
    stage that lead on (under whole-cascade maximisation, those it keeps), the last one first."""
    roots, root, whole = [], turn.start, turn.whole_cascade
    for stage in range(min(stages, len(turn.stages))):
        roots.append((stage, root))
        ends = [end for end in turn.stage_ends(root, turn.stages[stage]) if not end.remaining
                and end.result is None and (whole is None or whole.keeps(end, stage))]
        if not ends:
            break
        root = ends[-1].node
    return roots


def test_a_stage_tree_holds_the_same_states_in_the_same_order_on_every_path(monkeypatch):
    """`StageTree`'s states, edges and boards seen, kept by rules/_search.c's tree_states (matching
    the compiled search's children by identity, the Python search's by value) and by the Python
    `_tree_states`: the same, in the same order (the referee reads the first found), in every
    cascade from 2-2 (3-3 where the start holds every checker on one point) to 6-6, its first
    three stages of the seven positions, each stage maximised on its own or the whole cascade at once (whose stage ends
    are kept by what the later stages can play, so that some states lead to none)."""
    if tree._compiled_tree_states is None:
        pytest.skip("the compiled search is not active (not built, or TAVLI_PURE_PYTHON is set)")
    pruned = 0
    for position, low, whole_cascade in itertools.product(POSITIONS + LIMITED_POSITIONS, range(2, 7),
                                                          (False, True)):
        rules = Rules.for_variant(position.variant, {"cascading_doubles": True} | (
            {"gulbara_cascade_maximize": "whole_cascade"} if whole_cascade else {}))
        turn = Turn(position, (low, low), rules)
        whole = turn.whole_cascade
        for stage, root in stage_roots(turn, 3):
            kept = None if whole is None else functools.partial(whole.kept, stage=stage)
            built = []
            for search, states in ((plays._search, tree._compiled_tree_states),
                                   (None, tree._compiled_tree_states), (plays._search, None)):
                with monkeypatch.context() as patch:
                    patch.setattr(plays, "_search", search)
                    patch.setattr(tree, "_compiled_tree_states", states)
                    stage_tree = tree.StageTree(turn, root, turn.stages[stage], kept)
                built.append((list(stage_tree.edges.items()), list(stage_tree.states.items()),
                              list(stage_tree.by_seen.items())))
            assert built[0] == built[1] == built[2], (position.variant, low, whole_cascade, stage)
            assert built[0][1], "a stage played from a legal stage end has a legal play"
            pruned += len(list(turn.search(root, turn.stages[stage]))) > len(built[0][1])
    assert pruned > 5   # (trees that leave out states leading to no legal play)
