"""The board's orientation: the four ways a game can lie on the physical board, found from the setup."""
import pytest

from firmware_host.controller.orientation import Orientation, detect, laid_out, nearest
from firmware_host.rules import VARIANTS, Position

from controller_kit import Board


@pytest.mark.parametrize("orientation", list(Orientation))
def test_each_mapping_is_a_permutation_of_the_points_and_its_own_inverse(orientation):
    mapped = [orientation.point(point) for point in range(1, 25)]
    assert sorted(mapped) == list(range(1, 25))
    assert [orientation.point(point) for point in mapped] == list(range(1, 25))


def test_the_mappings_are_the_symmetries_of_the_board_rectangle():
    # Point 1 is the near right corner, 12 the near left, 13 the far left, 24 the far right.
    assert [o.point(1) for o in Orientation] == [1, 12, 24, 13]
    assert [o.point(13) for o in Orientation] == [13, 24, 12, 1]
    # Mirroring keeps each edge; swapping seats keeps each column.
    assert all(Orientation.MIRRORED.point(p) <= 12 for p in range(1, 13))
    assert all(Orientation.SEATS_SWAPPED.point(p) >= 13 for p in range(1, 13))


def test_bar_and_tray_lights_change_sides_only_when_the_seats_do():
    assert Orientation.MIRRORED.led_location("bar:white") == "bar:white"
    assert Orientation.SEATS_SWAPPED.led_location("bar:white") == "bar:black"
    assert Orientation.ROTATED.led_location("off:black") == "off:white"
    assert Orientation.ROTATED.led_location("7") == "19"


@pytest.mark.parametrize("bad", ["25", "tray:white", "bar:green", "bar"])
def test_an_unknown_led_location_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="location|points"):
        Orientation.MIRRORED.led_location(bad)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("orientation", list(Orientation))
def test_every_start_position_set_up_any_way_round_is_found(variant, orientation):
    start = Position.start(variant)
    sensed = laid_out(start, orientation)
    assert detect(sensed, start) is orientation
    assert orientation.reading(sensed, variant).white == start.white


def test_a_board_that_is_not_the_start_in_any_orientation_is_not_detected():
    start = Position.start("portes")
    board = Board.of(start).move("13", "9", "white")
    assert detect(board.sensed(), start) is None


def test_setup_lights_follow_the_way_the_players_have_begun():
    # Black has set up rotated, White has not started: the rotated layout is the nearer one.
    start = Position.start("plakoto")
    board = Board.of(start, Orientation.ROTATED)
    for _ in range(15):
        board.move("24", "off", "white")   # White's checkers still in the tray
    assert nearest(board.sensed(), start) is Orientation.ROTATED


def test_a_checker_on_the_bar_of_a_game_without_one_is_read_not_refused():
    start = Position.start("fevga")
    board = Board.of(start).move("24", "bar", "white")
    reading = Orientation.AS_WIRED.reading(board.sensed(), "fevga")
    assert reading.bar == (1, 0)
