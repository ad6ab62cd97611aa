import pytest

from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.reading import BoardReading
from firmware_host.sim.board import BoardError, SimBoard

OPENING = BoardReading.from_json({"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},
                                  "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
CHANNELS = load_sensing_config().sensors.channels


def test_lifted_checkers_are_in_the_hand_and_missing_from_the_reading():
    board = SimBoard(OPENING)
    board.lift(13, "white")
    board.lift(13, "white")
    assert board.hand == ["white", "white"]
    assert board.reading().point(13) == (3, 0)
    board.place(9)
    board.place("point:10", "white")
    assert board.hand == [] and board.reading().point(9) == (1, 0) and board.reading().point(10) == (1, 0)


def test_a_hand_with_both_colours_must_say_which_to_place():
    board = SimBoard(OPENING)
    board.lift(13, "white")
    board.lift(12, "black")
    with pytest.raises(BoardError, match="say which colour"):
        board.place(7)
    board.place(7, "black")
    assert board.reading().point(7) == (0, 1)


def test_a_hit_goes_to_the_bar_and_a_bear_off_to_the_tray():
    board = SimBoard(OPENING)
    board.hit(1, "black")
    board.bear_off(6, "white")
    reading = board.reading()
    assert reading.black.bar == 1 and reading.white.off == 1 and reading.point(1) == (0, 1)
    assert board.channel_counts(CHANNELS)[CHANNELS.channel_of("bar:black")] == (0, 1)


def test_a_slide_moves_a_checker_without_it_ever_leaving_the_board():
    board = SimBoard(OPENING)
    board.slide(24, 18, "white")
    assert board.reading().point(18) == (1, 0) and board.hand == []
    assert board.reading().white.total == 15


def test_channel_counts_follow_the_board_file():
    board = SimBoard(OPENING)
    counts = board.channel_counts(CHANNELS)
    assert CHANNELS.reading(tuple(counts)) == OPENING


@pytest.mark.parametrize("action, message", [
    (lambda board: board.lift(2, "white"), "no white checker on point:2"),
    (lambda board: board.place(2, "white"), "no white checker in the hand"),
    (lambda board: board.lift(25, "white"), "unknown location 'point:25'"),
    (lambda board: board.lift(1, "red"), "colour must be one of"),
    (lambda board: board.add("reserve", "white"), "no reserve trays"),
])
def test_impossible_handling_is_refused(action, message):
    board = SimBoard(OPENING)
    with pytest.raises(BoardError, match=message):
        action(board)
    assert board.reading() == OPENING


def test_a_board_laid_out_from_its_stacks_lies_as_it_did():
    """A white checker pinning a black one, and a black one pinning a white with another black laid on
    top: the reading alone cannot say which colour lies at the bottom (what a magnet sensor sees)."""
    board = SimBoard(OPENING)
    board.slide(12, 11, "black")
    board.slide(13, 11, "white")     # white pins black on 11
    board.slide(13, 14, "white")
    board.slide(12, 14, "black")     # black pins white on 14
    board.slide(12, 11, "black")     # and a black checker on white's pinner on 11
    assert board.stacks()["point:11"] == ("black", "white", "black")
    again = SimBoard()
    again.set_stacks(board.stacks())
    assert again.channel_counts(CHANNELS, "magnet") == board.channel_counts(CHANNELS, "magnet")
    assert again.stacks() == board.stacks() and again.reading() == board.reading()
    from_reading = SimBoard(board.reading())
    assert from_reading.channel_counts(CHANNELS, "magnet") != board.channel_counts(CHANNELS, "magnet")


def test_a_layout_names_the_pinned_colour_at_the_bottom_of_a_point_with_one_of_each():
    reading = BoardReading.from_json({"white": {"points": {"5": 1, "24": 14}}, "black": {"points": {"5": 1, "1": 14}}})
    board = SimBoard(reading)
    assert board.stacks()["point:5"] == ("white", "black")     # unsaid: the fewer, then white
    board.set_reading(reading, {"point:5": "black"})
    assert board.stacks()["point:5"] == ("black", "white")


@pytest.mark.parametrize("layout, message", [
    (lambda board: board.set_stacks({"point:30": ("white",)}), "unknown locations or colours: \\['point:30'\\]"),
    (lambda board: board.set_stacks({"point:3": ("red",)}), "unknown locations or colours: \\['red'\\]"),
    (lambda board: board.set_stacks({"reserve:white": ("white",)}), "no reserve trays"),
    (lambda board: board.set_reading(OPENING, {"point:1": "red"}), "unknown locations or colours: \\['red'\\]"),
])
def test_a_layout_naming_unknown_locations_or_colours_is_refused(layout, message):
    board = SimBoard(OPENING)
    with pytest.raises(BoardError, match=message):
        layout(board)
    assert board.reading() == OPENING
