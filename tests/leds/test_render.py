"""Scenes to frames and back: every element, brightness, the current cap, blink phases, palettes."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.leds.layout import DICE_FACES, load_led_config
from firmware_host.leds.palette import (
    COLOUR_BLIND,
    ELEMENT_GROUPS,
    LOCATION_ELEMENTS,
    LOW_LEVEL,
    PALETTES,
    STANDARD,
    STYLES,
    Palette,
)
from firmware_host.leds.render import OFF, UNKNOWN, Renderer, frame_current_ma
from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark, Scene, Score


def lit(frame):
    return {index for index, pixel in enumerate(frame) if pixel != OFF}


def uncapped(layout, palette=STANDARD, brightness=1.0):
    return Renderer(layout, palette, brightness=brightness, max_current_ma=1e6)


@pytest.mark.parametrize("mark", list(Mark))
def test_every_mark_lights_exactly_its_locations_and_reads_back(renderer, layout, mark):
    scene = Scene({"7": mark, "bar:black": mark, "off:white": mark})
    for t in (0.0, 0.1, 0.7, 1.3):
        frame = renderer.render(scene, t)
        assert len(frame) == layout.count
        assert lit(frame) == set(layout.locations["7"] + layout.locations["bar:black"] + layout.locations["off:white"])
        assert len({frame[index] for index in lit(frame)}) == 1
        assert renderer.decode(frame, t) == {"7": mark.value, "bar:black": mark.value, "off:white": mark.value}


def test_an_empty_scene_is_a_whole_dark_frame(renderer, layout):
    frame = renderer.render(Scene(), 0.0)
    assert frame == (OFF,) * layout.count
    assert renderer.decode(frame, 0.0) == {}


@pytest.mark.parametrize("style", ["pips", "row"])
@pytest.mark.parametrize("value", range(1, 7))
def test_dice_show_their_values_as_pips(board, write_board, style, value):
    if style == "row":
        board["leds"]["dice_style"] = "row"
        board["leds"]["dice"] = {"1": [170, 171, 172, 173, 174, 175], "2": [177, 178, 179, 180, 181, 182]}
    config = load_led_config(write_board(board))
    renderer = Renderer.from_config(config)
    first, second = config.layout.dice
    for signal, element in ((None, "die"), (DiceSignal.NO_LEGAL_MOVE, "no-legal-move")):
        frame = renderer.render(Scene(dice=(value, 7 - value), dice_signal=signal), 0.0)
        assert lit(frame) == {first[p] for p in DICE_FACES[style][value]} | {second[p] for p in DICE_FACES[style][7 - value]}
        assert renderer.decode(frame, 0.0) == {"dice:1": f"{element}:{value}", "dice:2": f"{element}:{7 - value}"}


@pytest.mark.parametrize("signal", [DiceSignal.WAITING, DiceSignal.ROLL_REFUSED])
def test_waiting_and_a_refused_roll_light_every_dice_led(renderer, layout, signal):
    frame = renderer.render(Scene(dice=(3, 4), dice_signal=signal), 0.0)
    assert lit(frame) == set(layout.dice[0] + layout.dice[1])
    assert renderer.decode(frame, 0.0) == {"dice:1": signal.value, "dice:2": signal.value}


def test_the_turn_lights_show_the_side_to_move(renderer, layout):
    frame = renderer.render(Scene(turn="black"), 0.0)
    assert lit(frame) == set(layout.turn["black"])
    assert renderer.decode(frame, 0.0) == {"turn:black": "turn"}


def test_the_score_lights_show_points_won_then_dim_lights_up_to_the_target(renderer, layout):
    frame = renderer.render(Scene(score=Score(white=2, black=0, target=5)), 0.0)
    white, black = layout.score["white"], layout.score["black"]
    won, to_play = frame[white[0]], frame[white[2]]
    assert [frame[index] for index in white] == [won, won, to_play, to_play, to_play, OFF, OFF]
    assert [frame[index] for index in black] == [to_play] * 5 + [OFF, OFF]
    assert max(to_play) < max(won)
    assert renderer.decode(frame, 0.0) == {"score:white": "score:2/5", "score:black": "score:0/5"}


def test_a_score_beyond_the_lights_shows_as_far_as_they_go(renderer):
    scene = Scene(score=Score(white=9, black=6, target=11))
    assert renderer.names(scene) == {"score:white": "score:7/7", "score:black": "score:6/7"}
    assert renderer.decode(renderer.render(scene, 0.0), 0.0) == renderer.names(scene)


def test_brightness_scales_every_colour(layout):
    scene = Scene({"1": Mark.LIFTED_ORIGIN, "2": Mark.ILLEGAL})
    full = uncapped(layout, brightness=1.0).render(scene, 0.0)
    half = uncapped(layout, brightness=0.5).render(scene, 0.0)
    assert full[0] == (255, 255, 255) and half[0] == (128, 128, 128)
    assert full[6] == (255, 0, 0) and half[6] == (128, 0, 0)


def test_the_current_cap_scales_a_bright_frame_down_evenly(layout):
    everything_white = Scene({location: Mark.LIFTED_ORIGIN for location in LOCATIONS})
    leds = sum(len(layout.locations[location]) for location in LOCATIONS)
    # every lit LED's 60 mA at full white, plus 1 mA for each of the strip's LEDs, lit or dark
    assert frame_current_ma(uncapped(layout).render(everything_white, 0.0)) == leds * 60 + layout.count * 1
    renderer = Renderer(layout, STANDARD, brightness=1.0, max_current_ma=2000)
    frame = renderer.render(everything_white, 0.0)
    assert 1900 < frame_current_ma(frame) <= 2000
    (grey,) = {frame[index] for index in lit(frame)}  # every LED alike, and still white
    assert grey[0] == grey[1] == grey[2]
    assert renderer.decode(frame, 0.0) == renderer.names(everything_white)


def test_a_capped_scene_does_not_pulse_with_its_blinking_lights(layout):
    renderer = Renderer(layout, STANDARD, brightness=1.0, max_current_ma=2000)
    marks = {location: Mark.LIFTED_ORIGIN for location in LOCATIONS[:12]}
    marks.update({location: Mark.ILLEGAL for location in LOCATIONS[12:]})
    bright, dim = (renderer.render(Scene(marks), t) for t in (0.0, 0.2))
    steady = layout.locations["1"][0]
    blinking = layout.locations["13"][0]
    assert bright[steady] == dim[steady]
    assert dim[blinking] != bright[blinking]
    assert frame_current_ma(bright) <= 2000


def test_a_dark_strip_draws_its_idle_current_and_the_cap_leaves_room_for_it(layout):
    assert frame_current_ma((OFF,) * layout.count) == layout.count * 1.0
    everything_white = Scene({location: Mark.LIFTED_ORIGIN for location in LOCATIONS})
    # a cap of 260 mA on 200 LEDs leaves 60 mA for colour: one LED's worth of full white
    frame = Renderer(layout, STANDARD, brightness=1.0, max_current_ma=layout.count + 60).render(everything_white, 0.0)
    assert sum(map(sum, frame)) <= 3 * 255


def test_a_scene_under_the_cap_is_not_scaled(layout):
    scene = Scene({"1": Mark.LIFTED_ORIGIN})
    assert Renderer(layout, STANDARD, brightness=1.0, max_current_ma=2000).render(scene, 0.0)[0] == (255, 255, 255)


def transitions(renderer, scene, index, seconds=4.0, step=0.001):
    """How often one LED changes colour over `seconds`, sampled every `step`."""
    colours = [renderer.render(scene, n * step)[index] for n in range(int(seconds / step))]
    return sum(1 for before, after in zip(colours, colours[1:]) if before != after), colours


def test_a_hint_is_dim_and_slow_an_error_fast(renderer, layout):
    scene = Scene({"8": Mark.LEGAL_DESTINATION, "9": Mark.ILLEGAL})
    hint_changes, hint = transitions(renderer, scene, layout.locations["8"][0])
    error_changes, error = transitions(renderer, scene, layout.locations["9"][0])
    assert hint_changes == 3 and error_changes == 31  # changes every 1 s and every 0.125 s
    assert max(max(colour) for colour in hint) < max(max(colour) for colour in error)


@pytest.mark.parametrize("element", [element for element in STYLES if STYLES[element].blink.value is not None])
def test_a_blink_dims_but_never_goes_dark(layout, element):
    if element in LOCATION_ELEMENTS:
        scene = Scene({"5": Mark(element)})
    else:
        scene = Scene(dice=(5, 5), dice_signal=DiceSignal(element))
    renderer = uncapped(layout)
    led = lit(renderer.render(scene, 0.0)).pop()
    levels = {renderer.render(scene, n / 100)[led] for n in range(400)}
    assert OFF not in levels and len(levels) == 2
    dim, bright = sorted(levels)
    assert max(dim) == pytest.approx(max(bright) * LOW_LEVEL, abs=1)


def test_steady_lights_do_not_change_with_time(renderer):
    scene = Scene({"3": Mark.LIFTED_ORIGIN}, dice=(2, 6), turn="white", score=Score(1, 1, 3))
    assert len({renderer.render(scene, n / 10) for n in range(50)}) == 1


@pytest.mark.parametrize("group", ELEMENT_GROUPS)
def test_colour_is_never_the_only_signal(group):
    signatures = {(STYLES[element].blink, STYLES[element].intensity) for element in group}
    assert len(signatures) == len(group)


def test_the_colour_blind_palette_shows_other_colours_and_reads_back(layout):
    scene = Scene({"4": Mark.ILLEGAL, "5": Mark.TAKE_FROM, "6": Mark.LEGAL_DESTINATION}, dice=(1, 2), turn="white")
    standard = uncapped(layout, STANDARD).render(scene, 0.0)
    safe_renderer = uncapped(layout, COLOUR_BLIND)
    safe = safe_renderer.render(scene, 0.0)
    assert lit(standard) == lit(safe)
    assert standard[layout.locations["4"][0]] == (255, 0, 0) and safe[layout.locations["4"][0]] == (255, 113, 0)
    assert safe_renderer.decode(safe, 0.0) == safe_renderer.names(scene)


def test_a_palette_with_two_colours_too_alike_in_one_group_is_refused():
    colours = dict(STANDARD.colours)
    colours["take-from"] = (250, 0, 10)  # next to illegal's red
    with pytest.raises(ValueError, match="illegal and take-from are too alike"):
        Palette("muddy", colours)
    colours["take-from"] = (0, 0, 0)
    with pytest.raises(ValueError, match="take-from is \\(0, 0, 0\\)"):
        Palette("dark", colours)
    del colours["take-from"]
    with pytest.raises(ValueError, match="must give a colour for exactly these elements"):
        Palette("short", colours)


def test_decode_checks_the_blink_phase_not_just_the_colour(renderer):
    scene = Scene({"10": Mark.ILLEGAL, "11": Mark.LIFTED_ORIGIN})
    bright, dim = renderer.render(scene, 0.0), renderer.render(scene, 0.2)  # the error blink's two halves
    assert renderer.decode(bright, 0.0) == renderer.decode(dim, 0.2) == {"10": "illegal", "11": "lifted-origin"}
    assert renderer.decode(bright, 0.2) == renderer.decode(dim, 0.0) == {"10": UNKNOWN, "11": "lifted-origin"}


def test_unknown_colours_and_mixed_groups_read_unknown(renderer, layout):
    frame = list(renderer.render(Scene({"12": Mark.PUT_ON}, dice=(6, 6)), 0.0))
    frame[layout.locations["12"][0]] = frame[layout.locations["12"][0]][::-1]  # a colour no element has
    frame[layout.dice[0][3]] = frame[layout.dice[0][0]]  # a centre pip: no face of six
    frame[layout.locations["1"][2]] = frame[layout.locations["12"][1]]  # one LED of a location only
    assert renderer.decode(tuple(frame), 0.0) == {"12": UNKNOWN, "1": UNKNOWN, "dice:1": UNKNOWN, "dice:2": "die:6"}


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"brightness": 0.0, "max_current_ma": 2000}, "brightness is 0.0; allowed: more than 0, at most 1"),
        ({"brightness": 1.2, "max_current_ma": 2000}, "brightness is 1.2"),
        ({"brightness": 0.5, "max_current_ma": 0}, "max_current_ma is 0; allowed: more than 0"),
    ],
)
def test_impossible_renderer_settings_are_refused(layout, settings, message):
    with pytest.raises(ValueError, match=message):
        Renderer(layout, STANDARD, **settings)


def test_a_frame_of_the_wrong_length_is_refused(renderer):
    with pytest.raises(ValueError, match="frame has 3 pixels; the strip has 200"):
        renderer.decode((OFF,) * 3, 0.0)


@st.composite
def scenes(draw):
    marks = draw(st.dictionaries(st.sampled_from(LOCATIONS), st.sampled_from(list(Mark))))
    dice = draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    signals = [None, DiceSignal.WAITING, DiceSignal.ROLL_REFUSED] + ([DiceSignal.NO_LEGAL_MOVE] if dice else [])
    score = draw(st.none() | st.builds(Score, st.integers(0, 9), st.integers(0, 9), st.integers(1, 11)))
    return Scene(
        marks,
        dice=dice,
        dice_signal=draw(st.sampled_from(signals)),
        turn=draw(st.sampled_from([None, "white", "black"])),
        score=score,
    )


@settings(max_examples=150, deadline=None)
@given(
    scene=scenes(),
    t=st.floats(0, 100, allow_nan=False),
    palette=st.sampled_from(sorted(PALETTES)),
    brightness=st.floats(0.2, 1.0),
    max_current_ma=st.floats(1000, 20000),
)
def test_any_scene_reads_back_at_any_time_brightness_and_cap(layout, scene, t, palette, brightness, max_current_ma):
    renderer = Renderer(layout, PALETTES[palette], brightness=brightness, max_current_ma=max_current_ma)
    frame = renderer.render(scene, t)
    assert frame_current_ma(frame) <= max_current_ma
    assert renderer.decode(frame, t) == renderer.names(scene)
