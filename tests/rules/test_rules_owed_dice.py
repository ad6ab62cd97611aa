"""Owed dice (gulbara_remainder = opponent_plays, dossier T49): the dice a cascade leaves unplayed
are played by the opponent before his own roll, stage by stage as they were owed, and never owed
back. Written from the dossier's T48/T49 position."""
import random

import pytest

from firmware_host.rules import BLACK, Owed, Position, RulesError, Turn

OWED_RULES = {"gulbara_remainder": "opponent_plays"}
# T48: White rolls 3-3 on a later turn; every play leaves some fours, the fives and the sixes.
T48 = Position.from_json({
    "variant": "gulbara", "turn": "white", "rolls": {"white": 3, "black": 3},
    "white": {"points": {"22": 1, "18": 1, "12": 13}, "bar": 0, "off": 0},
    "black": {"points": {"23": 1, "9": 1, "8": 1, "7": 1, "6": 11}, "bar": 0, "off": 0},
})


@pytest.mark.parametrize("dice, stages", [
    ((4, 4, 5, 5, 5, 5, 6, 6, 6, 6), ((4, 4), (5,) * 4, (6,) * 4)),
    ((6, 5), ((6, 5),)),              # a whole roll of two different dice, in either order
    ((5,), ((5,),)),
    ((3, 3, 3), ((3, 3, 3),)),
])
def test_owed_dice_are_played_in_the_stages_they_were_owed(dice, stages):
    assert Owed(dice).stages == stages


@pytest.mark.parametrize("dice, message", [((), "at least one die"), ((4, 7), "1 to 6"), ((True,), "1 to 6")])
def test_bad_owed_dice_are_a_clear_error(dice, message):
    with pytest.raises(RulesError, match=message):
        Owed(dice)


def test_the_opponent_plays_what_t49_leaves_stage_by_stage_and_owes_nothing_back():
    pick = random.Random(7).choice
    for play in Turn(T48, (3, 3), OWED_RULES).plays():
        owed = Owed(sorted(play.remainder))
        turn = Turn(play.position, owed, OWED_RULES)
        assert play.position.turn is BLACK and turn.stages == owed.stages
        for _ in range(5):   # a few of the many answers, chosen stage by stage
            answer = turn.pick_play(pick)
            dice = [move.die for move in answer.moves]
            assert dice == sorted(dice) and len(dice) <= len(owed)   # the fours first, then fives, sixes
            assert answer.remainder == ()


def test_two_owed_different_dice_are_played_like_that_roll():
    position = T48.with_turn(BLACK)
    rolled = Turn(position, (6, 5), OWED_RULES).plays()
    owed = Turn(position, Owed((6, 5)), OWED_RULES).plays()
    assert {(p.moves, p.position) for p in owed} == {(p.moves, p.position) for p in rolled}


def test_owed_doubles_owe_nothing_back_even_when_not_all_can_be_played():
    plays = Turn(T48, Owed((3, 3, 3, 3, 4, 4, 4, 4)), OWED_RULES).plays()
    assert plays and all(play.remainder == () for play in plays)
    assert max(len(play.moves) for play in plays) == 6   # as in T48: four threes, two fours


def test_the_die_left_over_is_the_one_that_could_not_be_played_whatever_the_dice_order():
    # Every 6 of White's is blocked (18 and, after 24/19, 13): only the 5 is played, the 6 is owed.
    blocked_sixes = Position.from_json({
        "variant": "gulbara", "turn": "white", "rolls": {"white": 3, "black": 3},
        "white": {"points": {"24": 15}, "bar": 0, "off": 0},
        "black": {"points": {"18": 1, "13": 1, "12": 13}, "bar": 0, "off": 0},
    })
    for dice in ((6, 5), (5, 6)):
        (play,) = Turn(blocked_sixes, dice, OWED_RULES).plays()
        assert [move.die for move in play.moves] == [5] and play.remainder == (6,)
        assert Turn(blocked_sixes, dice, OWED_RULES).pick_play(random.Random(0).choice).remainder == (6,)
