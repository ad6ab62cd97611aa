import pytest

from firmware_host.sensing.reading import BoardReading, ReadingError, SideReading

OPENING = {"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}, "bar": 0, "off": 0},
           "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}, "bar": 0, "off": 0}}


def test_json_round_trips_exactly_the_position_json_reading_object():
    reading = BoardReading.from_json(OPENING)
    assert reading.to_json() == OPENING
    assert reading.point(24) == (2, 0) and reading.point(1) == (0, 2) and reading.point(2) == (0, 0)
    assert reading.white.total == reading.black.total == 15


def test_zero_points_are_dropped_and_reserve_appears_only_with_reserve_trays():
    reading = BoardReading(SideReading(bar=1, reserve=3), SideReading(off=2, reserve=0))
    assert reading.to_json() == {"white": {"points": {}, "bar": 1, "off": 0, "reserve": 3},
                                 "black": {"points": {}, "bar": 0, "off": 2, "reserve": 0}}
    assert "reserve" not in BoardReading().to_json()["white"]
    assert BoardReading.from_json(reading.to_json()) == reading


def test_a_whole_position_reads_as_a_reading():
    position = dict(OPENING, variant="plakoto", turn="white", pinned={}, rolls={"white": 0, "black": 0})
    assert BoardReading.from_json(position) == BoardReading.from_json(OPENING)


def test_readings_are_values():
    assert BoardReading.from_json(OPENING) == BoardReading.loads(BoardReading.from_json(OPENING).dumps())
    assert len({BoardReading.from_json(OPENING), BoardReading.from_json(OPENING)}) == 1
    with pytest.raises(AttributeError):
        BoardReading().white = SideReading()


def test_location_counts_name_every_location():
    counts = BoardReading.from_json(OPENING).location_counts()
    assert counts["point:13"] == (5, 0) and counts["bar"] == (0, 0) and "reserve" not in counts
    assert len(counts) == 26


@pytest.mark.parametrize("data, message", [
    ({"white": {}}, "missing key"),
    ({"white": {}, "black": {}, "colour": 1}, "unknown key"),
    ({"white": {"points": {"25": 1}}, "black": {}}, 'white.points.25: points are "1" to "24"'),
    ({"white": {"points": {"²⁴": 1}}, "black": {}}, 'white.points.²⁴: points are "1" to "24"'),  # isdigit, no int
    ({"white": {"points": {"٣": 1}}, "black": {}}, 'white.points.٣: points are "1" to "24"'),
    ({"white": {"points": {"03": 1}}, "black": {}}, 'white.points.03: points are "1" to "24"'),  # int reads 3
    ({"white": {"points": {"3": -1}}, "black": {}}, "white.points.3 must be a non-negative integer"),
    ({"white": {"bar": True}, "black": {}}, "white.bar must be a non-negative integer"),
    ({"white": {"home": 1}, "black": {}}, "white: unknown key"),
    ({"white": {"reserve": 1}, "black": {}}, "both colours or for neither"),
    ([], "must be a JSON object"),
])
def test_malformed_readings_are_refused_naming_the_key(data, message):
    with pytest.raises(ReadingError, match=message):
        BoardReading.from_json(data)


def test_a_side_needs_24_points():
    with pytest.raises(ReadingError, match="24 points"):
        SideReading(points=(0,) * 23)
