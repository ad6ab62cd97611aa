"""The position JSON of position-json.md: start positions, round trip, canonical form, and every
kind of bad input raising PositionError that names the field."""
import copy
import json

import pytest

from firmware_host.rules import BLACK, WHITE, Position, PositionError
from rules_kit import ALL_VARIANTS, CONTRARY, pos

# rules.md "Games": start (White / Black)
STARTS = {
    "portes": ({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}),
    "tavla": ({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}),
    "plakoto": ({24: 15}, {1: 15}),
    "tapa": ({24: 15}, {1: 15}),
    "neverfinishing": ({24: 15}, {1: 15}),
    "fevga": ({24: 15}, {12: 15}),
    "moultezim": ({24: 15}, {12: 15}),
    "gulbara": ({24: 15}, {12: 15}),
    "narde": ({24: 15}, {12: 15}),
}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_start_positions_follow_the_games_table(variant):
    start = Position.start(variant)
    white, black = STARTS[variant]
    assert start.to_json() == {
        "variant": variant, "turn": "white",
        "white": {"points": {str(p): n for p, n in white.items()}, "bar": 0, "off": 0},
        "black": {"points": {str(p): n for p, n in black.items()}, "bar": 0, "off": 0},
        "rolls": {"white": 0, "black": 0},
    }
    assert Position.start(variant, turn=BLACK).turn is BLACK
    assert all(start.count(WHITE, p) == n for p, n in white.items())


SAMPLES = [
    Position.start("portes"),
    Position.start("narde", turn=BLACK),
    pos("plakoto", {24: 1, 6: 14}, {24: 1, 1: 1, 20: 1, 19: 12}, pinned={24: "white"}, rolls=(7, 6)),
    pos("neverfinishing", {6: 14}, {22: 1, 1: 13}, bar=(1, 1), turn="black"),
    pos("portes", {5: 1, 3: 1}, {24: 15}),
    pos("gulbara", {22: 1, 18: 1, 12: 13}, {23: 1, 9: 1, 8: 1, 7: 1, 6: 11}, rolls=(2, 2)),
    pos("tapa", {4: 1, 3: 1, 1: 1}, {4: 1, 20: 14}, pinned={4: "white"}),
]


@pytest.mark.parametrize("position", SAMPLES, ids=lambda p: p.variant)
def test_round_trip_through_json_object_and_text(position):
    assert Position.from_json(position.to_json()) == position
    assert Position.from_json(position.to_json_text()) == position
    assert Position.from_json(json.loads(json.dumps(position.to_json()))) == position


@pytest.mark.parametrize("position", SAMPLES, ids=lambda p: p.variant)
def test_to_json_is_canonical(position):
    data = position.to_json()
    assert {"variant", "turn", "white", "black", "rolls"} <= set(data)
    for side in ("white", "black"):
        assert set(data[side]) == {"points", "bar", "off"}
        assert all(isinstance(n, int) and n > 0 for n in data[side]["points"].values())
    assert ("pinned" in data) == bool(position.pinned_points())
    text = position.to_json_text()
    assert text == json.dumps(json.loads(text), sort_keys=True)       # keys sorted


def test_zero_counts_empty_pins_and_missing_rolls_read_as_the_canonical_position():
    loose = {"variant": "plakoto", "turn": "black",
             "white": {"points": {"24": 15, "3": 0}, "bar": 0, "off": 0},
             "black": {"points": {"1": 15, "20": 0}},
             "pinned": {}}
    position = Position.from_json(loose)
    assert position == Position.start("plakoto", turn=BLACK)
    assert position.to_json()["white"]["points"] == {"24": 15}
    assert "pinned" not in position.to_json()
    assert position.rolls == (0, 0) and position.to_json()["rolls"] == {"white": 0, "black": 0}


def test_board_key_ignores_turn_and_rolls():
    a = pos("fevga", {24: 15}, {12: 15}, turn="white", rolls=(0, 0))
    b = pos("fevga", {24: 15}, {12: 15}, turn="black", rolls=(4, 3))
    assert a.board_key() == b.board_key() and a != b


def test_accessors():
    p = pos("plakoto", {24: 1, 6: 14}, {24: 1, 1: 1, 20: 1, 19: 12}, pinned={24: "white"})
    assert (p.count(WHITE, 6), p.count(BLACK, 19), p.count(BLACK, 2)) == (14, 12, 0)
    assert p.pinned_points() == {24: WHITE}
    assert p.white[5] == 14 and p.black[0] == 1 and p.pinned[23] is WHITE
    assert isinstance(p.diagram(), str) and p.diagram()


# -- bad input -----------------------------------------------------------------------------------------

def base(variant="plakoto"):
    return copy.deepcopy(Position.start(variant).to_json())


def edit(variant, change):
    data = base(variant)
    change(data)
    return data


def setp(side, point, value, compensate=None):
    """Set a point's count; `compensate` moves the difference to/from this point to keep 15."""
    def change(data):
        data[side]["points"][point] = value
        if compensate:
            data[side]["points"][compensate] -= value if isinstance(value, int) else 0
    return change


BAD = [
    # (id, variant, change, the parts the field must name)
    ("unknown-variant", "plakoto", lambda d: d.update(variant="backgammon"), ["variant"]),
    ("missing-variant", "plakoto", lambda d: d.pop("variant"), ["variant"]),
    ("white-14", "plakoto", lambda d: d["white"]["points"].update({"24": 14}), ["white"]),
    ("black-16", "fevga", lambda d: d["black"]["points"].update({"12": 16}), ["black"]),
    ("too-many-off", "portes", lambda d: d["white"].update(off=1), ["white"]),
    ("negative-count", "plakoto", setp("white", "3", -1, "24"), ["white", "points", "3"]),
    ("float-count", "plakoto", setp("white", "3", 1.5), ["white", "points", "3"]),
    ("string-count", "plakoto", setp("black", "3", "1"), ["black", "points", "3"]),
    ("boolean-count", "plakoto", setp("white", "3", True, "24"), ["white", "points", "3"]),
    ("boolean-bar", "portes", lambda d: d["white"].update(bar=True), ["white", "bar"]),
    ("negative-off", "portes", lambda d: d["black"].update(off=-1), ["black", "off"]),
    ("float-off", "fevga", lambda d: d["white"].update(off=0.0), ["white", "off"]),
    ("both-colours-no-pin", "plakoto",
     lambda d: (setp("white", "5", 1, "24")(d), setp("black", "5", 1, "1")(d)), ["5"]),
    ("both-colours-fevga", "fevga",
     lambda d: (setp("white", "5", 1, "24")(d), setp("black", "5", 1, "12")(d)), ["5"]),
    ("pin-in-portes", "portes",
     lambda d: (setp("white", "5", 1, "13")(d), setp("black", "5", 1, "12")(d),
                d.update(pinned={"5": "black"})), ["pinned"]),
    ("pin-in-fevga", "fevga",
     lambda d: (setp("white", "5", 1, "24")(d), setp("black", "5", 1, "12")(d),
                d.update(pinned={"5": "black"})), ["pinned"]),
    ("pin-without-both-colours", "plakoto",
     lambda d: (setp("white", "5", 1, "24")(d), d.update(pinned={"5": "black"})), ["pinned", "5"]),
    ("pin-on-empty-point", "tapa", lambda d: d.update(pinned={"9": "white"}), ["pinned", "9"]),
    ("pin-under-a-stack-of-two", "plakoto",
     lambda d: (setp("white", "5", 1, "24")(d), setp("black", "5", 2, "1")(d),
                d.update(pinned={"5": "black"})), ["pinned", "5"]),
    ("pin-bad-colour", "plakoto",
     lambda d: (setp("white", "5", 1, "24")(d), setp("black", "5", 1, "1")(d),
                d.update(pinned={"5": "red"})), ["pinned", "5"]),
    ("pin-bad-point", "plakoto", lambda d: d.update(pinned={"25": "white"}), ["pinned", "25"]),
    ("bar-in-plakoto", "plakoto",
     lambda d: (d["white"].update(bar=1), setp("white", "24", 14)(d)), ["white", "bar"]),
    ("bar-in-fevga", "fevga",
     lambda d: (d["black"].update(bar=1), setp("black", "12", 14)(d)), ["black", "bar"]),
    ("bar-in-tapa", "tapa",
     lambda d: (d["white"].update(bar=1), setp("white", "24", 14)(d)), ["white", "bar"]),
    ("unknown-top-key", "plakoto", lambda d: d.update(colour="white"), ["colour"]),
    ("unknown-side-key", "plakoto", lambda d: d["white"].update(hand=0), ["white", "hand"]),
    ("unknown-rolls-key", "plakoto", lambda d: d["rolls"].update(red=1), ["rolls", "red"]),
    ("negative-rolls", "gulbara", lambda d: d["rolls"].update(white=-1), ["rolls", "white"]),
    ("boolean-rolls", "gulbara", lambda d: d["rolls"].update(black=False), ["rolls", "black"]),
    ("bad-turn", "plakoto", lambda d: d.update(turn="red"), ["turn"]),
    ("side-not-object", "plakoto", lambda d: d.update(white=[15]), ["white"]),
    ("points-not-object", "plakoto", lambda d: d["black"].update(points=[["1", 15]]),
     ["black", "points"]),
    ("pinned-not-object", "plakoto", lambda d: d.update(pinned=["5"]), ["pinned"]),
] + [
    (f"point-name-{name!r}", "fevga",
     (lambda name: lambda d: d["white"]["points"].update({name: d["white"]["points"].pop("24")}))(name),
     ["white", "points", name])
    for name in ["0", "25", "07", "x", "-1", " 7", "7.0", "+7", ""]
]


@pytest.mark.parametrize("variant, change, parts", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_positions_raise_position_error_naming_the_field(variant, change, parts):
    data = edit(variant, change)
    with pytest.raises(PositionError) as caught:
        Position.from_json(data)
    error = caught.value
    assert isinstance(error, ValueError)
    for part in parts:
        assert part in error.field, f"{error.field!r} does not name {part!r} ({error})"
    with pytest.raises(PositionError):                          # the same through the text form
        Position.from_json(json.dumps(data))


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", "17"])
def test_text_that_is_not_a_position_object_raises(text):
    with pytest.raises(PositionError):
        Position.from_json(text)


def test_position_start_rejects_unknown_variants():
    with pytest.raises(PositionError):
        Position.start("backgammon")


@pytest.mark.parametrize("variant", CONTRARY[:2] + ("neverfinishing",))
def test_a_bar_is_fine_in_hitting_games(variant):
    p = pos(variant, {24: 14}, {1: 15}, bar=(1, 0))
    assert p.bar == (1, 0) and Position.from_json(p.to_json()) == p
