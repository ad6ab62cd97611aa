"""The stabiliser in virtual time: every event is due at an exact instant."""
from firmware_host.sensing.events import (BoardChanging, BoardSettled, BoardStable, FaultKind, SensorFault,
                                          SensorFaultCleared)
from firmware_host.sensing.reading import BoardReading
from firmware_host.sensing.stabiliser import Stabiliser

OPENING = BoardReading.from_json({"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},
                                  "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
LIFTED = BoardReading.from_json({"white": {"points": {"24": 2, "13": 4, "8": 3, "6": 5}},
                                 "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
PLACED = BoardReading.from_json({"white": {"points": {"24": 2, "13": 4, "9": 1, "8": 3, "6": 5}},
                                 "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})


def settled(stabiliser, reading, now=0.0):
    stabiliser.feed(reading, now)
    return stabiliser.tick(now + 10)


def test_a_change_is_reported_at_once_and_stable_after_the_quiet_time():
    stabiliser = Stabiliser(quiet_s=0.3, grace_s=3.0)
    assert stabiliser.feed(OPENING, 0.0) == [BoardChanging(OPENING)]
    assert stabiliser.tick(0.299) == []
    assert stabiliser.tick(0.3) == [BoardStable(OPENING)]
    assert stabiliser.tick(0.5) == []


def test_a_lift_is_seen_without_any_quiet_window():
    stabiliser = Stabiliser()
    settled(stabiliser, OPENING)
    assert stabiliser.feed(LIFTED, 20.0) == [BoardChanging(LIFTED)]


def test_every_change_restarts_the_quiet_time_and_repeats_are_not_changes():
    stabiliser = Stabiliser(quiet_s=0.3)
    stabiliser.feed(OPENING, 0.0)
    assert stabiliser.feed(LIFTED, 0.2) == [BoardChanging(LIFTED)]
    assert stabiliser.feed(LIFTED, 0.4) == []
    assert stabiliser.feed(PLACED, 0.45) == [BoardChanging(PLACED)]
    assert stabiliser.tick(0.7) == []
    assert stabiliser.feed(PLACED, 0.75) == [BoardStable(PLACED)]


def test_the_grace_elapses_once_after_the_last_change():
    stabiliser = Stabiliser(quiet_s=0.3, grace_s=3.0)
    stabiliser.feed(OPENING, 0.0)
    stabiliser.tick(0.3)
    assert stabiliser.tick(2.999) == []
    assert stabiliser.tick(3.0) == [BoardSettled(OPENING)]
    assert stabiliser.tick(100.0) == []
    stabiliser.feed(LIFTED, 101.0)
    assert stabiliser.tick(104.0) == [BoardStable(LIFTED), BoardSettled(LIFTED)]


def test_too_many_checkers_is_a_fault_on_the_location_that_gained_them_and_never_stable():
    stabiliser = Stabiliser(quiet_s=0.3)
    settled(stabiliser, OPENING)
    sixteen = BoardReading.from_json({"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5, "2": 1}},
                                      "black": OPENING.black.to_json()})
    events = stabiliser.feed(sixteen, 20.0)
    # The fault, and no BoardChanging: a reading that cannot be is never judged, not even as a lift.
    assert events == [SensorFault("point:2", FaultKind.TOO_MANY, "16 white checkers on the board, a side has 15")]
    assert stabiliser.tick(30.0) == []
    assert stabiliser.feed(OPENING, 31.0) == [SensorFaultCleared("point:2", FaultKind.TOO_MANY),
                                              BoardChanging(OPENING)]
    assert stabiliser.tick(31.3) == [BoardStable(OPENING)]


def test_too_many_from_the_first_reading_blames_the_board():
    stabiliser = Stabiliser()
    crowded = BoardReading.from_json({"white": {"points": {"1": 15}, "bar": 1}, "black": {}})
    [fault] = stabiliser.feed(crowded, 0.0)
    assert fault.location is None and fault.kind is FaultKind.TOO_MANY


def test_a_flickering_point_is_a_fault_until_it_has_been_still_for_a_window():
    stabiliser = Stabiliser(quiet_s=0.3, grace_s=3.0, flicker_changes=6, flicker_window_s=1.0)
    settled(stabiliser, OPENING)
    events = []
    for step in range(1, 7):   # point 13 toggles every 100 ms: 6 changes in 0.6 s
        events += stabiliser.feed(LIFTED if step % 2 else OPENING, 10 + step / 10)
    faults = [event for event in events if isinstance(event, SensorFault)]
    assert faults == [SensorFault("point:13", FaultKind.FLICKER,
                                  "6 changes within 1 s, faster than a hand moves checkers")]
    assert stabiliser.tick(11.5) == []          # quiet long enough, but the fault still holds the verdict
    assert stabiliser.tick(11.6) == [SensorFaultCleared("point:13", FaultKind.FLICKER), BoardStable(OPENING)]


def test_a_hand_moving_checkers_one_by_one_is_not_flicker():
    stabiliser = Stabiliser(flicker_changes=6, flicker_window_s=1.0)
    settled(stabiliser, BoardReading())
    events = []
    for count in range(1, 16):   # fifteen checkers placed on one point, one every 250 ms
        reading = BoardReading.from_json({"white": {"points": {"6": count}}, "black": {}})
        events += stabiliser.feed(reading, 20 + count * 0.25)
    assert not [event for event in events if isinstance(event, SensorFault)]


def test_reset_forgets_the_board_and_clears_faults():
    stabiliser = Stabiliser()
    crowded = BoardReading.from_json({"white": {"points": {"1": 16}}, "black": {}})
    stabiliser.feed(crowded, 0.0)
    assert stabiliser.reset() == [SensorFaultCleared(None, FaultKind.TOO_MANY)]
    assert stabiliser.feed(OPENING, 1.0) == [BoardChanging(OPENING)]
