"""Readings (the position JSON without pins, turn and rolls; reserve trays) and `restore`.

position-json.md: "A reading from the sensors is the same object without pinned, turn and rolls";
rules.md: "Checkers in a reserve tray (where the hardware has one) count as standing on their start
point"; the issue: `restore(target_position, reading)` gives steps that turn any reading into any
target.
"""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.referee import Reading, Referee, Step, judge, restore
from firmware_host.rules import BLACK, WHITE, Position, PositionError, Turn
from firmware_host.rules.reading import BoardReading, ReadingError, SideReading
from referee_kit import (ALL_VARIANTS, HITTING, LOCATIONS, changed, count, describe, moved, pos,
                         position_json_reading, reading_json)


def portes_reading(**sides):
    data = {"variant": "portes", "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},
            "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}}
    data.update(sides)
    return data


# -- Reading.from_json / Reading.of -----------------------------------------------------------------

@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_the_start_position_json_without_pins_turn_and_rolls_is_its_reading(variant):
    start = Position.start(variant)
    reading = Reading.from_json(position_json_reading(start))
    assert reading == Reading.of(start)
    assert Reading.from_json(reading.to_json()) == reading
    assert reading.total(WHITE) == reading.total(BLACK) == 15


def test_the_variant_may_come_from_the_game():
    data = portes_reading()
    assert Reading.from_json(data, "portes").variant == "portes"
    del data["variant"]
    assert Reading.from_json(data, "portes") == Reading.of(Position.start("portes"))
    with pytest.raises(PositionError):
        Reading.from_json(data)


@pytest.mark.parametrize("key, value", [("pinned", {"7": "black"}), ("turn", "white"),
                                        ("rolls", {"white": 1, "black": 0})])
def test_a_reading_has_no_pins_turn_or_rolls(key, value):
    with pytest.raises(PositionError) as error:
        Reading.from_json(portes_reading(**{key: value}))
    assert error.value.field == key


@pytest.mark.parametrize("data, field", [
    ([1, 2], ""),
    (portes_reading(white={"points": {"25": 1}}), "white.points.25"),
    (portes_reading(black={"points": {"3": -1}}), "black.points.3"),
    (portes_reading(white={"points": {}, "tray": 15}), "white.tray"),
    ({"variant": "fevga", "white": {"points": {"24": 14}, "bar": 1}, "black": {"points": {"12": 15}}},
     "white.bar"),
])
def test_a_malformed_reading_names_the_field(data, field):
    with pytest.raises(PositionError) as error:
        Reading.from_json(data)
    assert error.value.field == field


def test_more_than_15_checkers_are_read_so_that_the_referee_can_report_the_fault():
    reading = Reading.from_json(portes_reading(white={"points": {"24": 2, "13": 5, "8": 3, "6": 6}}))
    assert reading.total(WHITE) == 16
    assert Referee(Position.start("portes"), (6, 5)).judge(reading).kind == "fault"


@pytest.mark.parametrize("variant, color, start_point", [
    ("plakoto", "white", 24), ("plakoto", "black", 1), ("tapa", "black", 1),
    ("neverfinishing", "white", 24), ("fevga", "black", 12), ("narde", "white", 24),
    ("gulbara", "black", 12), ("moultezim", "white", 24),
])
def test_checkers_in_a_reserve_tray_count_as_standing_on_their_start_point(variant, color, start_point):
    data = position_json_reading(Position.start(variant))
    data[color]["points"][str(start_point)] = 11
    data[color]["reserve"] = 4
    reading = Reading.from_json(data)
    assert reading == Reading.of(Position.start(variant))
    assert count(reading, WHITE if color == "white" else BLACK, str(start_point)) == 15


def test_a_reserve_alone_stands_for_the_whole_start_stack():
    data = {"variant": "fevga", "white": {"reserve": 15}, "black": {"points": {"12": 15}}}
    assert Reading.from_json(data) == Reading.of(Position.start("fevga"))


@pytest.mark.parametrize("variant, reserve", [("portes", 2), ("tavla", 1), ("plakoto", -1),
                                              ("plakoto", "2"), ("fevga", True), ("fevga", 1.5)])
def test_a_reserve_needs_a_whole_count_and_a_single_start_stack(variant, reserve):
    data = position_json_reading(Position.start(variant))
    data["white"]["reserve"] = reserve
    with pytest.raises(PositionError) as error:
        Reading.from_json(data)
    assert error.value.field == "white.reserve"


def test_a_reading_judged_from_json_and_from_reading_of_agree():
    start = Position.start("plakoto")
    after = moved(Reading.of(start), WHITE, "24", "18")
    referee = Referee(start, (6, 1))
    assert referee.judge(reading_json(after)) == referee.judge(after)
    assert judge(start, (6, 1), after) == referee.judge(after)


# -- restore ------------------------------------------------------------------------------------------

@st.composite
def positions(draw):
    """A position of some game after a random number of random turns."""
    variant = draw(st.sampled_from(ALL_VARIANTS))
    position = Position.start(variant, draw(st.sampled_from([WHITE, BLACK])))
    options = {"cascading_doubles": False} if variant == "gulbara" else None
    for _ in range(draw(st.integers(0, 40))):
        dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
        play = Turn(position, dice, options).pick_play(
            lambda items: items[draw(st.integers(0, len(items) - 1))])
        if play.result is not None:
            break
        position = play.position
    return position


@st.composite
def scattered(draw, variant, at_most=15):
    """Any reading of `variant`: up to `at_most` checkers of each colour anywhere (fewer: the rest
    are in the hand)."""
    places = [loc for loc in LOCATIONS if loc != "bar" or variant in HITTING]
    reading = Reading(variant, (0,) * 24, (0,) * 24, (0, 0), (0, 0))
    for color in (WHITE, BLACK):
        for place in draw(st.lists(st.sampled_from(places), max_size=at_most)):
            reading = changed(reading, color, place, +1)
    return reading


def follow_all(reading, steps):
    for step in steps:
        if step.origin != "hand":
            reading = changed(reading, step.color, step.origin, -1)
        reading = changed(reading, step.color, step.destination, +1)
    return reading


RESTORE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@RESTORE
@given(data=st.data())
def test_restore_turns_any_reading_into_any_target(data):
    target = data.draw(positions())
    reading = data.draw(scattered(target.variant))
    steps = restore(target, reading)
    assert follow_all(reading, steps) == Reading.of(target), describe(reading)
    # Each step puts a checker where one is missing: no more steps than missing checkers.
    missing = sum(max(0, count(Reading.of(target), c, loc) - count(reading, c, loc))
                  for c in (WHITE, BLACK) for loc in LOCATIONS)
    assert len(steps) == missing
    assert all(step.origin != step.destination for step in steps)


@RESTORE
@given(data=st.data())
def test_restore_of_the_target_itself_is_nothing_to_do(data):
    target = data.draw(positions())
    assert restore(target, Reading.of(target)) == ()
    assert restore(target, reading_json(Reading.of(target))) == ()


def test_restore_puts_the_hit_checker_on_the_bar_before_the_hitter_lands_on_its_point():
    before = pos("portes", {24: 2, 13: 5, 8: 3, 6: 5}, {1: 1, 22: 1, 12: 5, 17: 3, 19: 5})
    target = Position.from_json({**reading_json(moved(Reading.of(before), WHITE, "24", "22", hit=True)),
                                 "turn": "black"})
    steps = restore(target, Reading.of(before))
    assert steps == (Step(BLACK, "22", "bar"), Step(WHITE, "24", "22"))
    assert str(steps[0]) == "take one black checker from 22 to the bar"
    assert steps[0].to_json() == {"color": "black", "from": "22", "to": "bar", "text": str(steps[0])}


def test_restore_puts_lifted_checkers_down_from_the_hand():
    start = Position.start("portes")
    reading = changed(changed(Reading.of(start), WHITE, "6", -1), WHITE, "6", -1)
    steps = restore(start, reading)
    assert steps == (Step(WHITE, "hand", "6"), Step(WHITE, "hand", "6"))
    assert str(steps[0]) == "put one white checker from the hand on 6"


@pytest.mark.parametrize("extra_on", ["5", "off"])
def test_restore_takes_away_a_checker_too_many(extra_on):
    """A foreign sixteenth checker on the board: the only way to the target is to take it away,
    so the steps cannot be empty and following them must reach the target."""
    start = Position.start("portes")
    reading = changed(Reading.of(start), WHITE, extra_on, +1)
    steps = restore(start, reading)
    assert steps, "no steps although the reading differs from the target"
    assert [(s.color, s.origin) for s in steps] == [(WHITE, extra_on)]


def test_restore_from_the_cli_json_form():
    start = Position.start("narde")
    reading = moved(Reading.of(start), WHITE, "24", "18")
    data = reading_json(reading)
    assert restore(start, data) == restore(start, reading) == (Step(WHITE, "18", "24"),)


def test_restore_moves_each_checker_the_shortest_way_along_its_route():
    """Surplus and shortage are paired in the colour's direction of travel: checkers played too
    far are told to come back to where they should have stopped (7 -> 9 and 2 -> 4, not 7 -> 4 and
    2 -> 9)."""
    start = Position.start("portes")
    played = moved(moved(Reading.of(start), WHITE, "13", "7"), WHITE, "13", "2")
    target_reading = moved(moved(Reading.of(start), WHITE, "13", "9"), WHITE, "13", "4")
    target = Position.from_json({**reading_json(target_reading), "turn": "white"})
    steps = restore(target, played)
    assert Counter((s.origin, s.destination) for s in steps) == Counter({("7", "9"): 1, ("2", "4"): 1})


# -- one reader of the reading object ------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    {"white": {"points": {"24": 15}}},                                             # no black side
    {"white": {"points": {"24": 15}}, "black": {"points": {"1": 15}}, "colour": 1},  # a key of neither side
    {"white": {"points": {"03": 15}}, "black": {"points": {"1": 15}}},             # not as the format writes 3
    {"white": {"points": {"٣": 15}}, "black": {"points": {"1": 15}}},
    {"white": {"points": {"24": 15}, "tray": 1}, "black": {"points": {"1": 15}}},
    {"white": {"points": {"24": 15}}, "black": {"points": {"1": 15}}},
    {"white": {"points": {"24": 14}, "bar": 1}, "black": {"points": {"1": 15}, "off": 0}},
])
def test_the_referee_reads_a_reading_object_as_the_sensors_reading_does(data):
    """docs/position-format.md's reading object has one reader (`BoardReading`): the referee refuses
    what it refuses and reads the same board from what it reads."""
    try:
        board = BoardReading.from_json(data)
    except ReadingError:
        with pytest.raises(PositionError):
            Reading.from_json(data, "portes")
    else:
        assert Reading.from_json(data, "portes") == Reading.of_board(board, "portes")


sides = st.builds(SideReading, st.tuples(*[st.integers(0, 15)] * 24), st.integers(0, 15), st.integers(0, 15))


@given(white=sides, black=sides)
def test_the_referees_reading_writes_and_reads_the_board_readings_json(white, black):
    board = BoardReading(white, black)
    reading = Reading.of_board(board, "tavla")
    assert reading.to_json() == {"variant": "tavla", **board.to_json()}
    assert Reading.from_json(board.to_json(), "tavla") == reading
    assert (reading.white, reading.black, reading.bar, reading.off) == \
        (white.points, black.points, (white.bar, black.bar), (white.off, black.off))
