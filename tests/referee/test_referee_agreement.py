"""`judge` and `moves` never disagree (issue 11): over every variant, random positions (bearing off
among them), every roll including gulbara's cascades of every double, and every value of every
house rule.

* every final board of `legal_plays` is judged complete;
* every board on the way of a legal play is judged partial (complete where it is also a final,
  unchanged where it is the start): along each play's own moves, and, where an independent model
  of the turn exists (referee_kit's `ModelTree`, `CascadeModel` for default gulbara cascades), in
  every order of the dice the rules allow;
* a board that is neither (a checker of such a board put somewhere else) is never complete,
  partial or unchanged; under house rules, which the models do not play, a board judged complete
  is always a final of `legal_plays`.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from firmware_host.referee import Referee
from firmware_host.rules import BLACK, WHITE, Turn
from firmware_host.rules.plays import TooManyPlays
from firmware_host.rules.variants import GAME_OPTIONS
from referee_kit import (ALL_VARIANTS, LOCATIONS, CascadeModel, ModelTree, count, describe, moved, pos,
                         reading_of, route)

FEW = settings(max_examples=4, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.filter_too_much])
PLAYS_LIMIT = 3000          # a roll the engine lists; the position is redrawn past it
CASCADE_CHECKERS = 5        # the mover's checkers on the board in a cascade (the model lists it all)


@st.composite
def turns(draw, variant: str, most_on_board: int = 15):
    """A random position of `variant` (the mover's checkers all in his home board in about half of
    them) and a roll; gulbara's rolls count past the protected turns in most, so doubles cascade."""
    mover = draw(st.sampled_from([WHITE, BLACK]), label="mover")
    own_route = route(variant, mover)
    bearing_off = draw(st.booleans(), label="bearing off")
    on_board = draw(st.integers(1, most_on_board), label="mover's checkers")
    own_points = draw(st.lists(st.sampled_from(own_route[18:] if bearing_off else own_route),
                               min_size=on_board, max_size=on_board), label="mover's points")
    free = [p for p in range(1, 25) if p not in own_points]
    theirs = draw(st.lists(st.sampled_from(free), min_size=1, max_size=15), label="opponent's points")
    rolls = (draw(st.integers(0, 6), label="rolls"), draw(st.integers(0, 6), label="rolls"))
    own, other = _counts(own_points), _counts(theirs)
    white, black = (own, other) if mover is WHITE else (other, own)
    position = pos(variant, white, black, turn=mover.value, rolls=rolls)
    dice = (draw(st.integers(1, 6), label="die"), draw(st.integers(1, 6), label="die"))
    return position, dice


def _counts(points: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for point in points:
        counts[point] = counts.get(point, 0) + 1
    return counts


def legal_plays_or_redraw(position, dice, rules):
    try:
        return Turn(position, dice, rules).plays(limit=PLAYS_LIMIT)
    except TooManyPlays:
        assume(False)


def check_plays_are_judged_as_listed(referee: Referee, position, plays) -> set:
    """Every prefix of every play, in its own order of moves, and every final: the finals."""
    start, mover = reading_of(position), position.turn
    finals = {reading_of(play.position) for play in plays}
    for play in plays:
        reading = start
        for move in play.moves:
            reading = moved(reading, mover, move.origin, move.destination, move.hit)
            expected = "complete" if reading in finals else "unchanged" if reading == start else "partial"
            assert referee.judge(reading).kind == expected, f"{play} at {describe(reading)}"
        assert referee.judge(reading).kind == "complete", f"the final of {play}"
    return finals


def elsewhere(reading, color, origin: str):
    """The reading with one `color` checker of `origin` put on every other location."""
    for target in LOCATIONS:
        if target != origin:
            yield moved(reading, color, origin, target)


def model_of(position, dice):
    if position.variant == "gulbara" and dice[0] == dice[1]:
        return CascadeModel(position, dice)
    return ModelTree(position, dice)


def check_against_the_model(referee: Referee, model, position) -> None:
    mover, legal = position.turn, set(model.readings) | model.finals | {model.start_reading}
    for reading in legal:
        assert referee.judge(reading).kind == model.expected_kind(reading), describe(reading)
    for reading in list(model.readings)[:4]:
        for origin in LOCATIONS:
            if count(reading, mover, origin):
                for other in elsewhere(reading, mover, origin):
                    if other not in legal:
                        kind = referee.judge(other).kind
                        assert kind not in ("complete", "partial", "unchanged"), describe(other)


@pytest.mark.parametrize("variant", [v for v in ALL_VARIANTS if v != "gulbara"])
@FEW
@given(data=st.data())
def test_judge_agrees_with_moves_in_random_positions(variant, data):
    position, dice = data.draw(turns(variant))
    plays = legal_plays_or_redraw(position, dice, None)
    referee = Referee(position, dice)
    check_plays_are_judged_as_listed(referee, position, plays)
    check_against_the_model(referee, model_of(position, dice), position)


@pytest.mark.parametrize("double", range(1, 7))
@FEW
@given(data=st.data())
def test_judge_agrees_with_moves_in_gulbara_cascades_of_every_double(double, data):
    position, _ = data.draw(turns("gulbara", CASCADE_CHECKERS))
    dice = (double, double)
    plays = legal_plays_or_redraw(position, dice, None)
    referee = Referee(position, dice)
    check_plays_are_judged_as_listed(referee, position, plays)
    check_against_the_model(referee, model_of(position, dice), position)


def _values(option) -> list:
    choices = getattr(option.parse, "choices", None)
    if choices:
        return list(choices)
    defaults = set(option.defaults.values())
    if all(isinstance(value, bool) for value in defaults):
        return [True, False]
    if all(isinstance(value, int) for value in defaults):
        return sorted({0 if option.name == "gulbara_protected_turns" else 1, 3} | defaults)
    return [[], [1, 2, 3, 4, 5, 6]]   # a set of die values: none, every one


HOUSE_RULES = [pytest.param(variant, name, value, id=f"{variant}-{name}-{value}")
               for name, option in GAME_OPTIONS.items() for value in _values(option)
               for variant in option.defaults]


@pytest.mark.parametrize("variant, name, value", HOUSE_RULES)
@settings(max_examples=1, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_judge_agrees_with_moves_under_every_value_of_every_house_rule(variant, name, value, data):
    rules = {name: value}
    position, dice = data.draw(turns(variant, CASCADE_CHECKERS if variant == "gulbara" else 15))
    plays = legal_plays_or_redraw(position, dice, rules)
    referee = Referee(position, dice, rules)
    finals = check_plays_are_judged_as_listed(referee, position, plays)
    start, mover = reading_of(position), position.turn
    for origin in LOCATIONS:
        if count(start, mover, origin):
            for other in elsewhere(start, mover, origin):
                if referee.judge(other).kind == "complete":
                    assert other in finals, describe(other)
