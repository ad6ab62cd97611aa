"""The board as SVG (leds/svg.py): well-formed, every location with the reading's counts, the scene's
marks by meaning and in words, the dice, turn and score, the players' point numbers."""
import xml.etree.ElementTree as ET

from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark, Scene, Score
from firmware_host.leds.svg import MARK_WORDS, board_svg
from firmware_host.sensing.reading import BoardReading

SVG = "{http://www.w3.org/2000/svg}"
PORTES = BoardReading.from_json({"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}, "bar": 0, "off": 0},
                                 "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}, "bar": 0, "off": 0}})


def groups(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {group.get("data-location"): group for group in root.iter(f"{SVG}g") if group.get("class") == "location"}


def test_every_location_carries_the_readings_counts():
    drawn = groups(board_svg(PORTES))
    assert set(drawn) == set(LOCATIONS)
    for point in range(1, 25):
        group = drawn[str(point)]
        assert (int(group.get("data-white")), int(group.get("data-black"))) == PORTES.point(point)
        checkers = [circle for circle in group.iter(f"{SVG}circle") if "checker" in circle.get("class", "")]
        assert len(checkers) == sum(PORTES.point(point))        # five at most drawn; the portes start has no more


def test_a_stack_taller_than_five_shows_its_count_and_the_bar_and_tray_their_checkers():
    reading = BoardReading.from_json({"white": {"points": {"24": 9}, "bar": 2, "off": 4},
                                      "black": {"points": {"1": 15}, "bar": 0, "off": 0}})
    drawn = groups(board_svg(reading))
    tall = drawn["1"]
    assert len(list(tall.iter(f"{SVG}circle"))) == 5 and [text.text for text in tall.iter(f"{SVG}text")][-1] == "15"
    assert drawn["bar:white"].get("data-white") == "2" and len(list(drawn["bar:white"].iter(f"{SVG}circle"))) == 2
    assert drawn["off:white"].get("data-white") == "4" and "4" in [t.text for t in drawn["off:white"].iter(f"{SVG}text")]


def test_marks_are_drawn_by_meaning_in_the_palettes_colour_and_named_in_words():
    scene = Scene({"13": Mark.TAKE_FROM, "9": Mark.PUT_ON, "bar:black": Mark.SENSOR_FAULT}, dice=(6, 5),
                  turn="white", score=Score(1, 0, 5))
    svg = board_svg(PORTES, scene, palette="colour-blind")
    drawn = groups(svg)
    assert {location: group.get("data-mark") for location, group in drawn.items() if group.get("data-mark")} == \
        {"13": "take-from", "9": "put-on", "bar:black": "sensor-fault"}
    assert 'stroke="#ffb000"' in ET.tostring(drawn["13"], encoding="unicode")     # the palette's orange
    for mark in (Mark.TAKE_FROM, Mark.PUT_ON, Mark.SENSOR_FAULT):
        assert f">{MARK_WORDS[mark]}<" in svg
    assert ">white to play; white 1 - black 0 (to 5)<" in svg
    dice = [group.get("data-value") for group in ET.fromstring(svg).iter(f"{SVG}g") if group.get("class") == "die"]
    assert dice == ["6", "5"]


def test_a_dice_signal_is_named_and_the_players_numbering_labels_the_points():
    scene = Scene({}, dice=None, dice_signal=DiceSignal.WAITING)
    labels = {point: 25 - point for point in range(1, 25)}       # the seats swapped
    svg = board_svg(PORTES, scene, point_labels=labels, title="portes & <friends>")
    assert ">waiting<" in svg and "portes &amp; &lt;friends&gt;" in svg
    assert [t.text for t in groups(svg)["1"].iter(f"{SVG}text")][0] == "24"


def test_no_reading_draws_an_empty_board():
    drawn = groups(board_svg(None))
    assert all(group.get("data-white") == group.get("data-black") == "0" for group in drawn.values())
