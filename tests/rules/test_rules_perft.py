"""Perft-style counts: distinct plays from each game's start position for the 21 rolls.

Hand counts (derivations below) where the start makes them small; the rest of the portes/tavla
table is checked roll by roll against the independent model of rules_kit (same sets, not only the
same counts).
"""
import pytest

from firmware_host.rules import BLACK, Position, Turn, legal_plays
from firmware_host.rules.plays import TooManyPlays
from rules_kit import ALL_VARIANTS, model_outcomes, outcomes

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
NON_DOUBLES = [r for r in ROLLS if r[0] != r[1]]


def table(non_double: int, doubles: dict[int, int]) -> dict[tuple[int, int], int]:
    counts = {r: non_double for r in NON_DOUBLES}
    counts.update({(d, d): n for d, n in doubles.items()})
    return counts


# fevga / moultezim: only the runner may leave 24 until it passes 12. Non-doubles: it plays both
# dice (24-a-b >= 13, the touch-downs 24-a / 24-b are open) -> 1. Doubles (T29-T32): 1-1 24/20,
# 2-2 24/16, 3-3 24/15, 4-4 24/16, 6-6 24/18 -> 1 each; 5-5 passes 12 on the third 5 -> 24/4 or
# 24/9 24/19 -> 2.
FIRST_CHECKER = table(1, {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 6: 1})
# gulbara: no restriction. Non-doubles: one checker 24/(24-a-b) or two checkers -> 2. Doubles d-d
# (turn 1 is protected): one outcome per way of splitting four steps among checkers from 24 -
# {4}, {3,1}, {2,2}, {2,1,1}, {1,1,1,1} - minus those where a checker would touch 12 (k*d = 12):
# d=3 loses {4}; d=4 loses {4}, {3,1}; d=6 keeps only {1,1,1,1}.
GULBARA = table(2, {1: 5, 2: 5, 3: 4, 4: 3, 5: 5, 6: 1})
# narde: one checker off the head; first-roll 3-3, 4-4, 6-6 take two (T51-T54): non-doubles 1,
# 1-1 24/20, 2-2 24/16, 5-5 24/4, 4-4 24/16(2), 6-6 24/18(2), 3-3 24/18(2) or 24/21 24/15 -> 2.
NARDE = table(1, {1: 1, 2: 1, 3: 2, 4: 1, 5: 1, 6: 1})
# plakoto / tapa / neverfinishing: W{24:15} against B{1:15}, no blot anywhere. Non-doubles: one
# checker or two -> 2. Doubles: the five splittings of four steps; only 6-6 with one checker
# playing all four (24 -> 0) is illegal (no bearing off) -> 5, and 4 for 6-6.
SINGLE_STACK = table(2, {1: 5, 2: 5, 3: 5, 4: 5, 5: 5, 6: 4})
# portes / tavla, a few rolls by hand (no blots at the start, so tavla = portes):
# 6-6: 6s only from 24 (-> 18, 18/12 blocked), 13 (-> 7, 7/1 blocked), 8 (-> 2); a+b+c = 4 with
#      a <= 2, b <= 5, c <= 3: 4 + 4 + 3 = 11.
# 5-5: 24/19 and 6/1 blocked; 13/8, 8/3, 13/8/3. Finals depend only on (checkers leaving 13,
#      checkers reaching 3) with sum 4 and at most 3 original 8s: (1,3), (2,2), (3,1), (4,0) -> 4.
# 6-5: 24/13 (24/19 blocked, via 18), 13/2, and 6 in {24/18, 13/7, 8/2} x 5 in {13/8, 8/3}, where
#      8/2 13/8 = 13/2: 1 + 1 + 5 = 7.
# 2-1: 1s 24/23, 8/7, 6/5 (13/12 blocked); 2s 24/22, 13/11, 8/6, 6/4: 12 pairs + 4 single
#      checkers (24/21, 13/10, 8/5, 6/3), where 8/6 6/5 = 8/5: 15.
PORTES_BY_HAND = {(6, 6): 11, (5, 5): 4, (5, 6): 7, (1, 2): 15}

BY_HAND = {
    "fevga": FIRST_CHECKER, "moultezim": FIRST_CHECKER, "gulbara": GULBARA, "narde": NARDE,
    "plakoto": SINGLE_STACK, "tapa": SINGLE_STACK, "neverfinishing": SINGLE_STACK,
    "portes": PORTES_BY_HAND, "tavla": PORTES_BY_HAND,
}
CASES = [(v, r, n) for v, counts in BY_HAND.items() for r, n in sorted(counts.items())]


@pytest.mark.parametrize("variant, dice, count", CASES,
                         ids=[f"{v}-{a}{b}" for v, (a, b), _ in CASES])
def test_perft_start_position_by_hand(variant, dice, count):
    assert len(legal_plays(Position.start(variant), dice)) == count
    assert len(legal_plays(Position.start(variant), dice[::-1])) == count     # die order is irrelevant


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_perft_black_to_move_mirrors_white(variant):
    # Every start position is symmetric: Black to move has the same number of plays per roll.
    white = Position.start(variant)
    black = Position.start(variant, turn=BLACK)
    assert [len(legal_plays(white, r)) for r in ROLLS] == [len(legal_plays(black, r)) for r in ROLLS]


@pytest.mark.parametrize("variant", ["portes", "tavla"])
@pytest.mark.parametrize("dice", ROLLS, ids=[f"{a}{b}" for a, b in ROLLS])
def test_perft_portes_start_matches_the_model(variant, dice):
    p = Position.start(variant)
    assert outcomes(p, dice) == model_outcomes(p, dice)


def _later_turn(variant):
    """The starting position as if each side had rolled three times (gulbara's cascades are on)."""
    text = Position.start(variant).to_json()
    return Position.from_json({**text, "rolls": {"white": 3, "black": 3}})


@pytest.mark.parametrize("variant, dice", [("portes", (6, 5)), ("portes", (1, 1)), ("gulbara", (5, 5))])
def test_a_play_limit_refuses_one_play_more_than_it_allows(variant, dice):
    """`Turn.plays(limit)` (moves --max-plays, hint --max-plays): refused past the limit, not at it;
    gulbara's 5-5 is a cascade of two stages (fives, then sixes), the others one stage."""
    position = _later_turn(variant)
    count = len(Turn(position, dice).plays())
    assert len(Turn(position, dice).plays(limit=count)) == count
    with pytest.raises(TooManyPlays):
        Turn(position, dice).plays(limit=count - 1)
