"""The terminal picture of the board: layout of the points, checkers of a reading, LEDs in colour."""
import re

import pytest

from firmware_host.leds import Mark, Scene, Score, render_board
from firmware_host.leds.legend import MEANINGS
from firmware_host.leds.render import OFF
from firmware_host.leds.scene import LOCATIONS
from firmware_host.sensing.reading import BoardReading

ANSI_COLOUR = re.compile(r"\x1b\[38;2;(\d+);(\d+);(\d+)m(.*?)\x1b\[0m")

READING = BoardReading.from_json(
    {
        "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}, "bar": 1, "off": 0},
        "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 7}, "bar": 0, "off": 2},
    }
)
SCENE = Scene(
    {"13": Mark.LIFTED_ORIGIN, "8": Mark.LEGAL_DESTINATION, "off:black": Mark.ILLEGAL},
    dice=(6, 5),
    turn="white",
    score=Score(1, 2, target=5),
)


def plain(text):
    return ANSI_COLOUR.sub(lambda match: match.group(4), text)


@pytest.fixture
def picture(layout, renderer):
    return render_board(layout, renderer.render(SCENE, 0.0), READING)


def column(lines, header, label):
    """The text under `label` (as printed, right-aligned to 2) in every line."""
    start = header.index(f" {label} ") + 1
    return [line[start : start + len(label)].strip() for line in lines]


def test_the_points_lie_in_two_rows_as_seen_from_whites_side(picture):
    lines = plain(picture).splitlines()
    assert lines[0].split() == [str(point) for point in range(13, 19)] + ["bar"] + [str(p) for p in range(19, 25)] + ["off"]
    assert lines[-1].split() == [str(point) for point in range(12, 6, -1)] + ["bar"] + [str(p) for p in range(6, 0, -1)] + ["off"]


def test_checkers_stack_from_the_edges_and_tall_stacks_show_their_count(picture):
    lines = plain(picture).splitlines()
    far, near = lines[2:7], lines[-7:-2]
    assert column(far, lines[0], "13") == ["○"] * 5
    assert column(far, lines[0], "19") == ["●"] * 4 + ["7"]
    assert column(far, lines[0], "24") == ["○", "○", "", "", ""]
    assert column(near, lines[-1], " 1") == ["", "", "", "●", "●"]
    assert column(near, lines[-1], "bar") == ["", "", "", "", "○"]  # White's checker on the bar
    assert far[0].endswith("●2")  # Black has borne off two


def test_lit_locations_show_their_led_colour_and_dark_ones_dots(layout, renderer, picture):
    frame = renderer.render(SCENE, 0.0)
    far_leds, near_leds = picture.splitlines()[1], picture.splitlines()[-2]
    assert [match.group(4) for match in ANSI_COLOUR.finditer(far_leds)] == ["██", "██"]  # point 13, Black's tray
    assert plain(far_leds).split().count("··") == 12
    (green,) = [tuple(map(int, match.groups()[:3])) for match in ANSI_COLOUR.finditer(near_leds)]
    assert frame[layout.locations["8"][0]][1] > 0 and green[0] == green[2] == 0 < green[1]


def test_dice_turn_and_score_lights_are_drawn(picture):
    lines = plain(picture).splitlines()
    first = next(number for number, line in enumerate(lines) if line.startswith(" dice"))
    dice = lines[first : first + 3]
    assert [row.split() for row in dice] == [["dice", "●", "●", "●", "●"], ["●", "·", "●", "·", "●", "·"], ["●", "●", "●", "●"]]
    white = next(line for line in lines if line.startswith(" white"))
    assert white.split() == ["white", "turn", "●", "score", "●", "●", "●", "●", "●", "·", "·"]
    black = next(line for line in lines if line.startswith(" black"))
    assert black.split()[:3] == ["black", "turn", "·"]


def test_without_a_reading_only_the_lights_are_drawn(layout, renderer):
    lines = plain(render_board(layout, renderer.render(Scene(), 0.0))).splitlines()
    assert len(lines) == 2 + 1 + 3 + 2 + 1 + 2
    assert "○" not in "".join(lines) and "●" not in "".join(lines[:2] + lines[-2:])


def test_a_frame_of_the_wrong_length_is_refused(layout):
    with pytest.raises(ValueError, match="frame has 1 pixels"):
        render_board(layout, (OFF,))


def test_without_colour_each_lit_location_shows_its_code_and_no_escape_is_written(layout, renderer):
    codes = {location: MEANINGS[name][0] for location, name in renderer.names(SCENE).items() if location in LOCATIONS}
    picture = render_board(layout, renderer.render(SCENE, 0.0), READING, codes)
    lines = picture.splitlines()
    assert "\x1b[" not in picture
    assert column(lines[1:2], lines[0], "13") == ["LO"] and lines[1].rstrip().endswith("IL")
    assert column(lines[-2:-1], lines[-1], " 8") == ["LD"]
    assert "● ●" in picture   # the dice, turn and score lights: plain dots where they are lit
