"""The referee's fast paths judge exactly as its reference path does (issue 33).

A cascade's lifted checker is judged by locating every board it may have come from or go to. The
fast paths: the forward fit in C (rules/_search.c), the opponent's checkers judged off every way
at once where nothing is hit, the boards of the roll found on no legal way remembered, and a stage
that a board lies beyond searched by its ends alone (no tree). The
reference path: the Python fit (reach._FitSearch, its specification), every board searched anew.
Both are given guidance work without bound, so each answer is exact and any difference is a
fast path's error. Readings: every board on the way through a cascade chosen stage by stage at
random (rules.md: each is partial, or complete where bearing off ends another play there, the
last one complete), each with one checker of either colour
lifted, and one moved to a random location.
"""
import importlib

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from firmware_host.referee import Referee
from firmware_host.rules import Rules, Turn
from referee_kit import LOCATIONS, changed, count, moved, pos, reading_of

judge_module = importlib.import_module("firmware_host.referee.judge")
reach = importlib.import_module("firmware_host.referee.reach")

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
