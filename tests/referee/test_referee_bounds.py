"""The referee never stalls (issue 33): the search behind a lifted checker's lights is bounded.

A person who pauses with a checker in hand in a low Gul Bara cascade shows a board that no quick
player does; where the checker may go is searched over the cascade's stage ends, and a place no
stage path reaches was searched through every one of them (12 s on the board below). Speed is
measured by bench/bench_cascade_lifts.py; here, the work: the stage trees built and the forward
fits tried (`reach.forward_fit`), each of which costs up to thousands of states."""
from firmware_host.referee import Reading, Referee, reach
from referee_kit import pos

# Black to play 2-2 from the fourth turn on (a cascade of 2s, 3s, 4s, 5s and 6s), part-way through.
START = pos("gulbara", {13: 2, 14: 1, 15: 1, 18: 2, 19: 2, 20: 2, 21: 1, 22: 2, 5: 2},
            {2: 1, 3: 2, 4: 1, 6: 4, 7: 4, 8: 3}, turn="black", rolls=(3, 3))
# ... and the board with one checker in hand: 14 black checkers seen.
IN_HAND = Reading.from_json({"white": {"points": {"13": 2, "14": 1, "15": 1, "18": 2, "19": 2, "20": 2,
                                                   "21": 1, "22": 2, "5": 2}, "bar": 0, "off": 0},
                             "black": {"points": {"1": 2, "2": 1, "3": 3, "6": 1, "7": 1, "17": 1, "24": 5},
                                       "bar": 0, "off": 0}}, "gulbara")


def test_a_checker_lifted_part_way_through_a_low_cascade_is_placed_within_a_bounded_search(monkeypatch):
    fits = []
    forward_fit = reach.forward_fit
    monkeypatch.setattr(reach, "forward_fit", lambda *args: fits.append(args) or forward_fit(*args))
    referee = Referee(START, (2, 2))
    built_at_the_roll = referee._tree_states
    verdict = referee.judge(IN_HAND)
    # The checker came from 7 and may go to 1 only (the verdict the unbounded search gave).
    assert verdict.kind == "in_hand" and verdict.origin == "7" and dict(verdict.destinations) == {"7": ("1",)}
    # The old search tried 2,125 forward fits and built 55 stage trees of 3,742 states.
    assert len(fits) < 200 and referee._tree_states - built_at_the_roll < 1000
