"""A turn held to one chosen play (a bot's, moved by a person): only the boards on the way to that
play, its moves in the order given, are legal; the play's end alone is complete; any other board is
illegal and guided to the nearest board on the way."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.referee import Reading, Referee
from firmware_host.referee.held import HeldReferee
from firmware_host.rules import Position, Rules, Turn

VARIANTS = ("portes", "plakoto", "fevga")
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


def held(variant: str, roll: tuple[int, int], seed: int) -> HeldReferee:
    rules = Rules.for_variant(variant)
    choose = random.Random(seed).choice
    return HeldReferee(Position.start(variant), roll, rules, lambda turn: turn.pick_play(choose))


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=15, deadline=None)
@given(roll=dice, seed=st.integers(0, 1000))
def test_the_way_to_the_play_is_legal_step_by_step_and_its_end_complete(variant, roll, seed):
    referee = held(variant, roll, seed)
    moves = referee.play.moves
    assert len(referee.way) == len(moves) + 1
    for made, position in enumerate(referee.way):
        verdict = referee.judge(Reading.of(position))
        if made == len(moves):
            assert verdict.kind == "complete" and verdict.play == referee.play
        else:
            assert verdict.kind == ("unchanged" if made == 0 else "partial")
            assert verdict.destinations == {moves[made].origin: (moves[made].destination,)}
            assert verdict.remaining == tuple(move.die for move in moves[made:])


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=15, deadline=None)
@given(roll=dice, seed=st.integers(0, 1000))
def test_any_other_play_is_illegal_and_guided_to_a_board_on_the_way(variant, roll, seed):
    referee = held(variant, roll, seed)
    start = Position.start(variant)
    for other in Turn(start, roll, Rules.for_variant(variant)).plays():
        reading = Reading.of(other.position.with_turn(start.turn))
        if reading in {Reading.of(position) for position in referee.way}:
            continue
        verdict = referee.judge(reading)
        assert verdict.kind == "illegal" and verdict.target in referee.way and verdict.steps


def test_a_board_with_a_checker_in_hand_is_judged_as_the_referee_does():
    referee = held("portes", (6, 5), 1)
    start = Position.start("portes")
    lifted = start.to_json()
    lifted["white"]["points"]["24"] -= 1
    del lifted["turn"], lifted["rolls"]
    assert referee.judge(lifted) == Referee(start, (6, 5)).judge(lifted)


def test_a_play_with_no_move_is_complete_on_the_untouched_board():
    """A roll that cannot be played: the bot's empty play stands at once."""
    blocked = Position.from_json({
        "variant": "portes", "turn": "white",
        "white": {"points": {"24": 15}, "bar": 0, "off": 0},
        "black": {"points": {"18": 2, "19": 2, "20": 11}, "bar": 0, "off": 0}})
    referee = HeldReferee(blocked, (6, 6), Rules.for_variant("portes"), lambda turn: turn.plays()[0])
    assert not referee.play.moves
    assert referee.judge(Reading.of(blocked)).kind == "complete"
