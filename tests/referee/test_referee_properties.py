"""Property tests over random games in every variant (issue 3).

Each example plays one random game from the start (hypothesis draws the starter, the dice and every
choice of `Turn.pick_play`) and judges readings of every turn met:

* the prefixes of every legal play in the order of `Play.moves`, applied move by move by hand, are
  partial (the start unchanged) and the finals complete;
* every reading on the way to a legal play in any order of moves the rules allow (the independent
  `ModelTree` of referee_kit) gets the verdict, remaining dice, destinations and pins the model
  says, and nothing else is legal;
* one checker of the mover moved where no legal play goes is illegal, its guidance is one step and
  following it reaches a legal board; scrambled readings are guided to a nearest legal board within
  the announced number of steps;
* one lifted checker of the mover gives its origin and exactly the destinations of the legal plays.

Gul Bara runs without cascades here (test_referee_cascades.py has them on fixed positions).
"""
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.referee import Referee
from firmware_host.rules import legal_plays
from referee_kit import (ALL_VARIANTS, HITTING, LOCATIONS, NO_CASCADES, Seat, changed,
                         count, describe, differing, distance, follow_guidance, moved, random_turns,
                         reading_of)

GAME = settings(max_examples=2, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


PLAYS_PER_TURN = 4
MISPLACED_PER_READING = 3
SCRAMBLED_PER_TURN = 2


def turn_context(seat) -> str:
    return f"{seat.position.to_json_text()} dice {seat.dice}"


def dice_count(dice) -> int:
    return 4 if dice[0] == dice[1] else 2


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_every_prefix_of_every_legal_play_is_partial_and_every_final_complete(variant, data, seed):
    """Every final is complete; its prefixes (in the order of Play.moves) are judged on a sample of
    up to PLAYS_PER_TURN plays of each turn (the model test covers every reading on the way)."""
    options = NO_CASCADES[variant]
    rng = random.Random(seed)
    for position, dice in random_turns(data, variant, options):
        referee, start = Referee(position, dice, options), reading_of(position)
        plays = legal_plays(position, dice, options)
        finals = {reading_of(p.position): p for p in plays}
        for play in plays:
            verdict = referee.judge(reading_of(play.position))
            assert verdict.kind == "complete", f"{position.to_json_text()} dice {dice} final {play}"
        for play in rng.sample(plays, min(PLAYS_PER_TURN, len(plays))):
            reading = start
            where = f"{position.to_json_text()} dice {dice} play {play}"
            verdict = referee.judge(reading)
            if play.moves:
                assert verdict.kind == "unchanged", where
            for index, move in enumerate(play.moves, 1):
                reading = moved(reading, position.turn, move.origin, move.destination, move.hit)
                verdict = referee.judge(reading)
                if index < len(play.moves):
                    # A prefix is partial, unless it is itself the end of another legal play.
                    expected = "complete" if reading in finals else "partial"
                    assert verdict.kind == expected, f"{where}: after {index} moves {describe(reading)}"
                    if expected == "partial":
                        assert len(verdict.remaining) == dice_count(dice) - index, where
            assert reading == reading_of(play.position), f"{where}: the moves do not reach the play"
            assert verdict.kind == "complete", f"{where}: final {describe(reading)} is {verdict.kind}"
            assert verdict.play.position.board_key() == play.position.board_key(), where
            assert verdict.play.position.turn is position.turn.opponent
            assert verdict.position.board_key() == play.position.board_key()


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data())
def test_every_reading_on_the_way_in_any_allowed_order_is_judged_as_the_model_says(variant, data):
    """The model plays the dice in every order its own move rules allow; the referee must call each
    of those readings partial (start: unchanged, final: complete) with the remaining dice, the
    destinations (one die or several by the same checker) and the pins of the model."""
    options = NO_CASCADES[variant]
    for position, dice in random_turns(data, variant, options):
        seat = Seat.of(position, dice, options)
        model, referee = seat.model, seat.referee
        for play in model.plays:   # the model must hold every play of the engine, move by move
            reading = model.start_reading
            for move in play.moves:
                reading = moved(reading, position.turn, move.origin, move.destination, move.hit)
                assert reading in model.readings, f"model misses {play} at {describe(reading)}"
        for reading in model.readings:
            verdict = referee.judge(reading)
            where = f"{turn_context(seat)} reading {describe(reading)}"
            assert verdict.kind == model.expected_kind(reading), where
            assert tuple(sorted(verdict.position.pinned_points().items())) in model.pins_of(reading), where
            if verdict.kind == "complete":
                assert verdict.play.position.board_key() in {
                    p.position.board_key() for p in model.plays}, where
                replayed = model.start_reading
                for move in verdict.play.moves:
                    replayed = moved(replayed, position.turn, move.origin, move.destination, move.hit)
                assert replayed == reading, f"{where}: the play's moves do not lead to the reading"
            else:
                assert verdict.remaining in model.remainders(reading), where
                assert dict(verdict.destinations) == model.destinations(reading), where


def misplacements(reading, color, variant):
    """Every reading with one checker of `color` moved from one location to another."""
    for origin in LOCATIONS:
        if origin == "off" or not count(reading, color, origin):
            continue
        for target in LOCATIONS:
            if target == origin or target == "bar" and variant not in HITTING:
                continue
            yield origin, target, moved(reading, color, origin, target)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_a_checker_moved_where_no_legal_play_goes_is_illegal_and_its_guidance_converges(
        variant, data, seed):
    """From the start and from a reading on the way, one checker of the mover put on any point,
    the bar or the tray where no legal play goes: illegal, one step back to a legal board (the
    reading it came from is one step away), and following steps[0] reaches a legal verdict."""
    options = NO_CASCADES[variant]
    rng = random.Random(seed)
    for position, dice in random_turns(data, variant, options):
        seat = Seat.of(position, dice, options)
        model, referee, mover = seat.model, seat.referee, position.turn
        bases = [model.start_reading, rng.choice(sorted(model.readings, key=describe))]
        for base in bases:
            candidates = [c for c in misplacements(base, mover, variant) if c[2] not in model.readings]
            for origin, target, reading in rng.sample(candidates, min(MISPLACED_PER_READING, len(candidates))):
                where = f"{turn_context(seat)} from {describe(base)}: {origin} -> {target}"
                verdict = referee.judge(reading)
                assert verdict.kind == "illegal", where
                assert len(verdict.steps) == 1, f"{where}: {verdict.steps}"
                assert set(verdict.differs) == set(differing(reading, verdict.target)), where
                assert referee.judge(reading_of(verdict.target)).legal, where
                final, followed, trail = follow_guidance(referee, reading, limit=len(verdict.steps))
                assert final.legal and followed <= len(verdict.steps), "\n".join([where] + trail)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_scrambled_readings_are_guided_to_a_nearest_legal_board(variant, data, seed):
    """Up to six checkers of either colour moved anywhere: an illegal verdict's target is a legal
    board no farther than any legal reading of the turn, its steps turn the reading into the
    target, and following steps[0] again and again ends legal within the announced steps."""
    options = NO_CASCADES[variant]
    rng = random.Random(seed)
    locations = [loc for loc in LOCATIONS if loc != "bar" or variant in HITTING]
    for position, dice in random_turns(data, variant, options):
        seat = Seat.of(position, dice, options)
        model, referee = seat.model, seat.referee
        legal = sorted(model.readings, key=describe)
        for _ in range(SCRAMBLED_PER_TURN):
            reading = rng.choice(legal)
            for _ in range(rng.randint(1, 6)):
                color = rng.choice([position.turn, position.turn.opponent])
                origin = rng.choice([loc for loc in locations if count(reading, color, loc)])
                reading = moved(reading, color, origin, rng.choice(locations))
            verdict = referee.judge(reading)
            where = f"{turn_context(seat)} reading {describe(reading)}"
            if reading in model.readings:
                assert verdict.kind == model.expected_kind(reading), where
                continue
            assert verdict.kind == "illegal", where
            assert len(verdict.steps) == min(distance(reading, r) for r in legal), where
            walked = reading
            for step in verdict.steps:
                walked = changed(changed(walked, step.color, step.origin, -1), step.color,
                                 step.destination, +1)
            assert walked == reading_of(verdict.target), where
            final, followed, trail = follow_guidance(referee, reading, limit=len(verdict.steps))
            assert final.legal and followed <= len(verdict.steps), "\n".join([where] + trail)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data())
def test_one_lifted_checker_shows_exactly_where_the_legal_plays_take_it(variant, data):
    """For a checker of the mover lifted at the turn's start from p: in_hand, origin p, and the
    destinations are the points t such that the start with that checker moved p -> t (hitting or
    trapping where the game does) is the prefix or final of a legal play."""
    options = NO_CASCADES[variant]
    for position, dice in random_turns(data, variant, options):
        seat = Seat.of(position, dice, options)
        model, referee, mover = seat.model, seat.referee, position.turn
        for origin in LOCATIONS:
            if origin == "off" or not count(model.start_reading, mover, origin):
                continue
            verdict = referee.judge(changed(model.start_reading, mover, origin, -1))
            where = f"{turn_context(seat)} lifted from {origin}"
            assert verdict.kind == "in_hand", where
            assert verdict.lifted == {mover: 1, mover.opponent: 0}, where
            assert verdict.origin == origin, where
            assert set(verdict.destinations[origin]) == model.lifted_destinations(origin), where
        # An opposing checker lifted before the mover has moved can only go back where it was.
        for origin in LOCATIONS:
            if origin == "off" or not count(model.start_reading, mover.opponent, origin):
                continue
            verdict = referee.judge(changed(model.start_reading, mover.opponent, origin, -1))
            where = f"{turn_context(seat)} opposing checker lifted from {origin}"
            assert verdict.kind == "in_hand" and verdict.origin is None, where
            assert verdict.lifted == {mover: 0, mover.opponent: 1}, where
            assert verdict.opponent_destinations == (origin,), where


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@GAME
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_a_checker_lifted_from_a_reading_on_the_way_can_go_back_where_it_was(variant, data, seed):
    """Mid-turn, a lifted checker's destinations are places where putting it down gives a legal
    reading, and the place it was lifted from is the origin or one of the destinations. The origin
    is where it stood (putting it back there is legal) or where its way started this turn (a point
    short of a checker against the turn's start: the blot it hit already waits on the bar, say)."""
    options = NO_CASCADES[variant]
    rng = random.Random(seed)
    for position, dice in random_turns(data, variant, options):
        seat = Seat.of(position, dice, options)
        model, referee, mover = seat.model, seat.referee, position.turn
        reading = rng.choice(sorted(model.readings, key=describe))
        for lifted_from in LOCATIONS:
            if lifted_from == "off" or not count(reading, mover, lifted_from):
                continue
            in_hand = changed(reading, mover, lifted_from, -1)

            def legal_put(place):
                put = changed(in_hand, mover, place, +1)
                hit = (place.isdigit() and variant in HITTING and count(put, mover.opponent, place) == 1
                       and moved(put, mover.opponent, place, "bar"))
                return put in model.readings or hit in model.readings

            verdict = referee.judge(in_hand)
            where = f"{turn_context(seat)} {describe(reading)} lifted from {lifted_from}"
            assert verdict.kind == "in_hand" and verdict.origin is not None, where
            destinations = verdict.destinations[verdict.origin]
            assert lifted_from in {verdict.origin, *destinations}, where
            for place in destinations:
                assert legal_put(place), f"{where}: destination {place}"
            assert legal_put(verdict.origin) or count(in_hand, mover, verdict.origin) < count(
                model.start_reading, mover, verdict.origin), f"{where}: origin {verdict.origin}"
