"""Scenarios written from how people really move checkers on a sensed board (issue 3).

Every reading the sensors would see along the way is judged: the hand lifting a checker, sliding
it over other points, putting the hit checker on the bar before or after the hitter lands, taking
a move back. The expected verdicts come from the issue and rules.md, not from the referee.
"""
import pytest

from firmware_host.referee import Reading, Referee, Step
from firmware_host.rules import BLACK, WHITE, Position, PositionError, legal_plays
from referee_kit import changed, describe, follow_guidance, moved, pos, reading_json, reading_of

PORTES = Position.start("portes")
START = reading_of(PORTES)


def lift(reading, color, location):
    return changed(reading, color, location, -1)


def put(reading, color, location):
    return changed(reading, color, location, +1)


# -- sliding a checker over other points -----------------------------------------------------------

@pytest.mark.parametrize("dice, touching_ten, at_seven", [
    ((6, 5), "illegal", "partial"),    # 13/7 is the 6; nothing plays 13/10
    ((4, 2), "illegal", "complete"),   # 13/9/7 or 13/11/7: the whole roll
    ((3, 3), "partial", "partial"),    # 13/10 and 13/10/7 are both on the way
])
def test_a_checker_slid_from_13_to_7_touching_10_on_the_way(dice, touching_ten, at_seven):
    referee = Referee(PORTES, dice)
    in_hand = lift(START, WHITE, "13")
    lifted = referee.judge(in_hand)
    assert lifted.kind == "in_hand" and lifted.origin == "13"
    resting_on_ten = put(in_hand, WHITE, "10")
    assert referee.judge(resting_on_ten).kind == touching_ten   # never a fault
    assert referee.judge(in_hand).kind == "in_hand"             # lifted again and slid on
    final = referee.judge(put(in_hand, WHITE, "7"))
    assert final.kind == at_seven
    assert "7" in lifted.destinations["13"]


def test_the_lights_for_a_lifted_checker_are_every_point_it_may_reach():
    referee = Referee(PORTES, (6, 5))
    verdict = referee.judge(lift(START, WHITE, "13"))
    # 13/8 (5), 13/7 (6), 13/8/2 or 13/7/2 (11); 13/2 is a legal play (both dice, one checker)
    assert verdict.destinations == {"13": ("8", "7", "2")}
    verdict = referee.judge(lift(START, WHITE, "24"))
    # 24/18 (6) and 24/18/13 (6 then 5); the 5 alone would land on Black's point 19.
    assert verdict.destinations == {"24": ("18", "13")}


# -- hitting: the blot to the bar and the hitter, in either order ------------------------------------

HIT_POSITION = pos("portes", {24: 2, 13: 5, 8: 3, 6: 5}, {1: 1, 22: 1, 12: 5, 17: 3, 19: 5})
HIT_START = reading_of(HIT_POSITION)


def test_a_hit_with_the_blot_put_on_the_bar_before_the_hitter_lands():
    referee = Referee(HIT_POSITION, (2, 1))
    blot_in_hand = lift(HIT_START, BLACK, "22")
    verdict = referee.judge(blot_in_hand)
    assert verdict.kind == "in_hand" and verdict.lifted == {WHITE: 0, BLACK: 1}
    assert "22" in verdict.opponent_destinations
    blot_on_bar = put(blot_in_hand, BLACK, "bar")
    verdict = referee.judge(blot_on_bar)
    assert verdict.kind == "illegal"                # nothing hits 22 yet: not legal, not a fault
    hitter_in_hand = lift(blot_on_bar, WHITE, "24")
    assert referee.judge(hitter_in_hand).kind == "in_hand"
    landed = referee.judge(put(hitter_in_hand, WHITE, "22"))
    assert landed.kind == "partial" and landed.remaining == (1,)
    assert landed.position.bar == (0, 1)


def test_a_hit_with_the_hitter_landing_on_the_blot_before_it_goes_to_the_bar():
    referee = Referee(HIT_POSITION, (2, 1))
    both_on_22 = moved(HIT_START, WHITE, "24", "22")
    verdict = referee.judge(both_on_22)
    assert verdict.kind == "illegal"
    # The nearest legal board is the hit done: the guidance sends the blot to the bar.
    assert verdict.steps == (Step(BLACK, "22", "bar"),)
    blot_in_hand = lift(both_on_22, BLACK, "22")
    verdict = referee.judge(blot_in_hand)
    assert verdict.kind == "in_hand" and verdict.opponent_destinations == ("bar",)
    landed = referee.judge(put(blot_in_hand, BLACK, "bar"))
    assert landed.kind == "partial" and landed.remaining == (1,)
    complete = referee.judge(moved(put(blot_in_hand, BLACK, "bar"), WHITE, "22", "21"))
    assert complete.kind == "complete" and str(complete.play) == "24/22* 22/21"


def test_a_hitter_in_hand_while_the_blot_already_waits_on_the_bar_is_shown_its_way_from_24():
    """Hitter lifted from 24, then the blot put on the bar, the hitter still in the hand. The
    checker was lifted from 24 (the only point missing a white checker) and may go to 22 (the hit,
    2) or 21 (24/22*/21, 2 and 1): in_hand, origin 24, destinations 22 and 21."""
    referee = Referee(HIT_POSITION, (2, 1))
    reading = put(lift(lift(HIT_START, WHITE, "24"), BLACK, "22"), BLACK, "bar")
    verdict = referee.judge(reading)
    assert verdict.kind == "in_hand" and verdict.lifted == {WHITE: 1, BLACK: 0}
    assert verdict.origin == "24", verdict.to_json()
    assert set(verdict.destinations["24"]) == {"22", "21"}


# -- lifting and putting back ---------------------------------------------------------------------

def test_two_checkers_lifted_together_are_said_so_and_put_down_complete_the_play():
    referee = Referee(PORTES, (3, 1))
    both = lift(lift(START, WHITE, "8"), WHITE, "6")
    verdict = referee.judge(both)
    assert verdict.kind == "in_hand"
    assert verdict.lifted == {WHITE: 2, BLACK: 0}
    assert verdict.origin is None and not verdict.destinations
    point_made = referee.judge(put(put(both, WHITE, "5"), WHITE, "5"))
    assert point_made.kind == "complete" and str(point_made.play) in ("8/5 6/5", "6/5 8/5")


def test_a_checker_of_each_colour_lifted_is_said_so():
    verdict = Referee(PORTES, (3, 1)).judge(lift(lift(START, WHITE, "8"), BLACK, "1"))
    assert verdict.kind == "in_hand" and verdict.lifted == {WHITE: 1, BLACK: 1}
    assert verdict.origin is None


def test_a_checker_put_down_and_picked_up_again():
    referee = Referee(PORTES, (6, 5))
    placed = moved(START, WHITE, "13", "7")
    verdict = referee.judge(placed)
    assert verdict.kind == "partial" and verdict.remaining == (5,)
    # Picked up again: the board is the start without a checker on 13, so that is where it came from
    # (takebacks are free), and every place of the roll is lit again.
    verdict = referee.judge(lift(placed, WHITE, "7"))
    assert verdict.kind == "in_hand" and verdict.origin == "13"
    assert set(verdict.destinations["13"]) == {"8", "7", "2"}
    elsewhere = referee.judge(moved(START, WHITE, "13", "8"))
    assert elsewhere.kind == "partial" and elsewhere.remaining == (6,)
    taken_back = referee.judge(START)
    assert taken_back.kind == "unchanged"


def test_any_reading_is_judged_against_the_turns_start_so_takebacks_are_free():
    referee = Referee(PORTES, (6, 5))
    complete = moved(moved(START, WHITE, "13", "7"), WHITE, "13", "8")
    assert referee.judge(complete).kind == "complete"
    assert referee.judge(moved(complete, WHITE, "8", "13")).kind == "partial"
    assert referee.judge(moved(moved(complete, WHITE, "8", "13"), WHITE, "7", "13")).kind == "unchanged"


# -- the order of the dice --------------------------------------------------------------------------

def test_a_play_is_complete_in_another_order_of_dice_than_the_lights_suggested():
    referee = Referee(PORTES, (6, 5))
    six_first = referee.judge(moved(START, WHITE, "24", "18"))
    assert six_first.remaining == (5,) and "13" in six_first.destinations["18"]
    # The player runs the back checker with the 5 first, then the 6: the same play, 24/13.
    five_first = moved(START, WHITE, "24", "19")
    assert referee.judge(five_first).kind == "illegal"       # 19 is Black's point
    running = moved(START, WHITE, "24", "13")
    verdict = referee.judge(running)
    assert verdict.kind == "complete"
    engine = {p.position.board_key() for p in legal_plays(PORTES, (6, 5))}
    assert verdict.play.position.board_key() in engine
    # Two checkers from 13: the 5 first although the lights offered the 6 first.
    verdict = referee.judge(moved(moved(START, WHITE, "13", "8"), WHITE, "13", "7"))
    assert verdict.kind == "complete"
    assert sorted(m.die for m in verdict.play.moves) == [5, 6]
    assert verdict.play.position.board_key() in engine


# -- pins: never sensed, inferred from the start and the play ---------------------------------------

PLAKOTO = pos("plakoto", {24: 13, 20: 1, 6: 1}, {1: 13, 18: 1, 10: 1})


def test_plakoto_a_checker_landing_on_a_blot_pins_it():
    referee = Referee(PLAKOTO, (2, 1))
    pinned = moved(reading_of(PLAKOTO), WHITE, "20", "18")
    verdict = referee.judge(pinned)
    assert verdict.kind == "partial"
    assert verdict.position.pinned_points() == {18: BLACK}
    verdict = referee.judge(moved(pinned, WHITE, "24", "23"))
    assert verdict.kind == "complete"
    assert verdict.play.position.pinned_points() == {18: BLACK}
    assert verdict.position.pinned_points() == {18: BLACK}


def test_plakoto_a_touch_down_on_a_blot_pins_nothing_once_the_checker_moves_on():
    referee = Referee(PLAKOTO, (2, 1))
    verdict = referee.judge(moved(reading_of(PLAKOTO), WHITE, "20", "17"))
    assert verdict.kind == "complete"
    assert verdict.play.position.pinned_points() == {}
    assert verdict.position.pinned_points() == {}


PINNED_AT_START = pos("plakoto", {24: 13, 10: 1, 6: 1}, {1: 12, 10: 1, 20: 1, 5: 1},
                      pinned={10: "black"})


def test_plakoto_a_pin_is_released_when_the_pinner_leaves():
    referee = Referee(PINNED_AT_START, (3, 1))
    start = reading_of(PINNED_AT_START)
    assert referee.judge(start).position.pinned_points() == {10: BLACK}
    verdict = referee.judge(moved(start, WHITE, "10", "7"))
    assert verdict.kind == "partial"
    assert verdict.position.pinned_points() == {}
    assert verdict.position.count(BLACK, 10) == 1


def test_plakoto_a_pinned_checker_cannot_move():
    """Black to move with its checker on 10 pinned under White's: no destinations from 10, and a
    reading with that checker moved is not legal."""
    black_to_move = pos("plakoto", {24: 13, 10: 1, 6: 1}, {1: 12, 10: 1, 20: 1, 5: 1},
                        pinned={10: "black"}, turn="black")
    referee = Referee(black_to_move, (3, 1))
    start = reading_of(black_to_move)
    assert "10" not in referee.judge(start).destinations
    assert referee.judge(moved(start, BLACK, "10", "13")).kind == "illegal"


def test_plakoto_pinning_the_mother_checker_ends_the_game():
    mother = pos("plakoto", {3: 1, 6: 14}, {1: 1, 20: 14})
    referee = Referee(mother, (2, 1))
    verdict = referee.judge(moved(moved(reading_of(mother), WHITE, "3", "1"), WHITE, "6", "5"))
    assert verdict.kind == "complete"
    assert verdict.position.pinned_points() == {1: BLACK}
    assert verdict.play.result is not None and verdict.play.result.reason == "mother"
    assert verdict.play.result.winner is WHITE


NEVERFINISHING = pos("neverfinishing", {24: 14, 6: 1}, {1: 14, 22: 1})


@pytest.mark.parametrize("hit, bar, pins", [(True, (0, 1), {}), (False, (0, 0), {22: BLACK})])
def test_neverfinishing_hit_or_trap_is_seen_on_the_bar(hit, bar, pins):
    referee = Referee(NEVERFINISHING, (2, 1))
    landed = moved(reading_of(NEVERFINISHING), WHITE, "24", "22", hit=hit)
    verdict = referee.judge(landed)
    assert verdict.kind == "partial"
    assert verdict.position.bar == bar and verdict.position.pinned_points() == pins
    verdict = referee.judge(moved(landed, WHITE, "6", "5"))
    assert verdict.kind == "complete"
    assert verdict.play.position.bar == bar and verdict.play.position.pinned_points() == pins
    assert [m.hit for m in verdict.play.moves if m.destination == "22"] == [hit]
    assert [m.pin for m in verdict.play.moves if m.destination == "22"] == [not hit]


ENTERING = pos("neverfinishing", {24: 13, 6: 1}, {1: 14, 22: 1}, bar=(1, 0))


@pytest.mark.parametrize("options, trap_verdict", [(None, "partial"), ({"entry_may_trap": False}, "illegal")])
def test_neverfinishing_entering_from_the_bar_may_hit_or_trap(options, trap_verdict):
    referee = Referee(ENTERING, (3, 1), options)
    start = reading_of(ENTERING)
    hit = referee.judge(moved(start, WHITE, "bar", "22", hit=True))
    assert hit.kind == "partial" and hit.position.bar == (0, 1)
    trap = referee.judge(moved(start, WHITE, "bar", "22"))
    assert trap.kind == trap_verdict
    if trap_verdict == "partial":
        assert trap.position.pinned_points() == {22: BLACK}


def test_tavla_a_checker_that_hit_in_its_home_board_moves_no_further():
    tavla = pos("tavla", {10: 2, 6: 5, 24: 2, 13: 6}, {4: 1, 1: 1, 12: 5, 17: 3, 19: 5})
    referee = Referee(tavla, (6, 2))
    hit = moved(reading_of(tavla), WHITE, "10", "4", hit=True)
    verdict = referee.judge(hit)
    assert verdict.kind == "partial" and "4" not in verdict.destinations
    assert referee.judge(moved(hit, WHITE, "4", "2")).kind == "illegal"
    assert referee.judge(moved(hit, WHITE, "6", "4")).kind == "complete"


# -- bearing off ------------------------------------------------------------------------------------

BEARING_OFF = pos("portes", {4: 2, 3: 1}, {20: 5, 19: 5})


def test_a_bear_off_with_a_larger_die_takes_the_highest_checker():
    referee = Referee(BEARING_OFF, (6, 5))
    start = reading_of(BEARING_OFF)
    unchanged = referee.judge(start)
    assert unchanged.kind == "unchanged" and unchanged.destinations == {"4": ("off",)}
    one_off = moved(start, WHITE, "4", "off")
    assert referee.judge(one_off).kind == "partial"
    assert referee.judge(one_off).remaining in ((5,), (6,))
    verdict = referee.judge(moved(one_off, WHITE, "4", "off"))
    assert verdict.kind == "complete" and verdict.play.position.off[WHITE.index] == 14
    # The 6 may not bear off from 3 while 4 is occupied.
    wrong = moved(start, WHITE, "3", "off")
    verdict = referee.judge(wrong)
    assert verdict.kind == "illegal"
    final, followed, _ = follow_guidance(referee, wrong, limit=len(verdict.steps))
    assert final.legal and followed == 1
    lifted_from_three = referee.judge(lift(start, WHITE, "3"))
    assert lifted_from_three.origin == "3" and lifted_from_three.destinations == {"3": ()}


def test_bearing_off_the_last_checker_ends_the_game():
    last = pos("portes", {2: 1}, {20: 5, 19: 5})
    referee = Referee(last, (2, 1))
    verdict = referee.judge(moved(reading_of(last), WHITE, "2", "off"))
    assert verdict.kind == "complete" and verdict.play.result.winner is WHITE
    # 2/1 then 1/off ends the game as well, so 2/1 is on the way.
    assert referee.judge(moved(reading_of(last), WHITE, "2", "1")).kind == "partial"


# -- a roll with no legal move ----------------------------------------------------------------------

def test_with_no_legal_move_the_start_is_the_complete_empty_play():
    """White on the bar against a closed home board: the only legal play moves nothing, so the
    start is its final position (the turn may end) and any change is illegal."""
    closed = pos("portes", {24: 1, 13: 5, 8: 3, 6: 5},
                 {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 18: 5}, bar=(1, 0))
    referee = Referee(closed, (6, 5))
    verdict = referee.judge(reading_of(closed))
    assert verdict.kind == "complete" and verdict.play.moves == ()
    assert referee.judge(moved(reading_of(closed), WHITE, "13", "8")).kind == "illegal"


# -- readings no board can show ----------------------------------------------------------------------

@pytest.mark.parametrize("color, location", [(WHITE, "5"), (BLACK, "bar"), (WHITE, "off"), (BLACK, "24")])
def test_more_than_15_of_a_colour_is_a_fault_naming_the_location(color, location):
    verdict = Referee(PORTES, (6, 5)).judge(put(START, color, location))
    assert verdict.kind == "fault"
    assert verdict.fault.color is color and verdict.fault.location == location
    assert "16" in verdict.fault.reason
    assert verdict.to_json()["fault"] == {"location": location, "color": color.value,
                                          "reason": verdict.fault.reason}


def test_a_fault_names_where_the_extra_checker_stands_not_a_checker_that_was_moved():
    """13/11 is a legal start of 2-1; a sixteenth white checker is then put on 24. Taking a white
    checker off 24 leaves the legal 13/11; taking one off 11 does not: the extra one is on 24."""
    referee = Referee(HIT_POSITION, (2, 1))
    moved_then_extra = put(moved(HIT_START, WHITE, "13", "11"), WHITE, "24")
    assert referee.judge(lift(moved_then_extra, WHITE, "24")).legal
    verdict = referee.judge(moved_then_extra)
    assert verdict.kind == "fault"
    assert verdict.fault.location == "24", verdict.fault


def test_a_reading_of_another_game_is_refused():
    with pytest.raises(PositionError):
        Referee(PORTES, (6, 5)).judge(reading_of(Position.start("plakoto")))


def test_judge_takes_the_reading_json_of_the_sensors():
    referee = Referee(PORTES, (6, 5))
    data = reading_json(moved(START, WHITE, "13", "7"))
    del data["variant"]
    verdict = referee.judge(data)
    assert verdict.kind == "partial" and verdict.destinations["7"] == ("2",)
    assert describe(Reading.from_json(data, "portes")) == describe(moved(START, WHITE, "13", "7"))
