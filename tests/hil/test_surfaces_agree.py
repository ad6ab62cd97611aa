"""Every surface names the same place on the board: the guidance words, the LEDs, the terminal drawing
and the Live page's board, for every board of seeded games of every variant, with illegal moves, on a
board laid out as wired and one laid out mirrored (docs/position-format.md, "Which numbering where").

The games are the soak's (the whole application in virtual time, the demo's players with their
stunts: moves backwards, bumps, referee calls), without faults. After every event the loop's view is
checked: the places the words name are the places the lights mark (for points: the LED location is
the number in the words), the terminal draws each mark's code under the label of its LED, and the
Live page's SVG draws each mark on the point it labels with that LED's number. The browser's own
drawing of the same SVG is tested in tests/web/test_browser.py.
"""
from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from firmware_host.controller import Orientation
from firmware_host.controller import machine as m
from firmware_host.controller.view import GameView
from firmware_host.demo.rig import draw_view
from firmware_host.hil import soak
from firmware_host.hil.soak import Figures, SoakMatch, SoakPlayers, soak_config
from firmware_host.leds.legend import MEANINGS
from firmware_host.leds.render import Renderer
from firmware_host.leds.scene import Mark
from firmware_host.rules.match import MatchRules
from firmware_host.rules.variants import VARIANTS
from firmware_host.service.companion import LinkFacts, snapshot
from firmware_host.service.verdict_words import verdict_words
from firmware_host.web.app import view_svg

LAYOUTS = (Orientation.AS_WIRED, Orientation.MIRRORED)
GUIDED = (Mark.TAKE_FROM, Mark.PUT_ON)
_STEP = re.compile(r"^(?:take|put) one (white|black) checker from (.+?)(?: (?:to|on) (.+?))?(?: off the board)?$")


def seed_for(layout: Orientation) -> int:
    """The first seed whose soak match lays its board out as `layout` (SoakMatch draws it first)."""
    return next(seed for seed in range(1000) if random.Random(seed).choice(list(Orientation)) is layout)


def place(words: str) -> str | None:
    """A place as the words name it, as the LEDs name it without the colour of a bar or tray half:
    "12", "bar", "off"; None for the hand."""
    words = words.removeprefix("point ")
    return {"the bar": "bar", "the tray": "off", "the hand": None}.get(words, words)


def lit(location: str) -> str:
    """An LED location without the colour of its half ("bar:white" -> "bar")."""
    return location.partition(":")[0]


def step_places(text: str) -> tuple[str | None, str | None]:
    matched = _STEP.match(text)
    assert matched, f"a step not in words the test knows: {text!r}"
    origin, destination = matched.group(2), matched.group(3)
    if text.startswith("put one"):         # from the hand
        origin, destination = "the hand", destination
    elif text.endswith("off the board"):   # into the hand
        destination = "the hand"
    return place(origin), place(destination)


def misplace_one_checker(match: SoakMatch) -> None:
    """One white checker off its start point, before the board is first read: the game's setup guides it back."""
    board = match.board.reading()
    white, black = board.white.points, board.black.points
    match.board.slide(next(point for point in range(1, 25) if white[point - 1]),
                      next(point for point in range(1, 25) if not white[point - 1] + black[point - 1]), "white")


class Surfaces:
    """The loop's observer that checks each view on every surface and counts the boards it checked."""

    def __init__(self, config) -> None:
        self.renderer = Renderer.from_config(config.leds)
        self.layout = config.leds.layout
        self.boards = 0
        self.states: set[str] = set()
        self.kinds: set[str] = set()
        self.judged_illegal: dict = {}   # a board judged illegal while moving -> the steps the words gave

    def __call__(self, view: GameView, event: object) -> None:
        marks = {location: mark for location, mark in view.scene.marks.items() if mark is not Mark.SENSOR_FAULT}
        words = verdict_words(view)
        if not marks and not (words and words["steps"]):
            return
        self.boards += 1
        self.states.add(view.state.value)
        self.kinds.add(words["kind"] if words else "none")
        self.words_and_lights(view, words, marks)
        self.terminal(view, marks)
        self.live_page(view, marks)

    def words_and_lights(self, view: GameView, words: dict | None, marks: dict) -> None:
        guided = {lit(location): mark for location, mark in marks.items() if mark in GUIDED}
        steps = [step_places(text) for text in (words["steps"] if words else [])]
        where = f"{view.state} on a board laid out {view.orientation.value}: words {words}, lights {marks}"
        if view.state == m.MOVING and words and words["kind"] == "illegal":
            self.judged_illegal[view.sensed] = words["steps"]
        if view.state == m.CORRECTING and view.sensed in self.judged_illegal:
            # The same board in words before the lights call it and after: the same steps.
            assert words["steps"] == self.judged_illegal[view.sensed], where
        if view.state == m.SETUP:
            # Every place to fix lit at once: the words name exactly the lit places.
            named = {location for step in steps for location in step if location is not None}
            assert named == set(guided), where
        elif guided:
            # One step at a time: the first step's places, and no other, are lit to take from and put on.
            assert steps, where
            origin, destination = steps[0]
            taken = {location for location, mark in guided.items() if mark is Mark.TAKE_FROM}
            put = {location for location, mark in guided.items() if mark is Mark.PUT_ON}
            assert taken == ({origin} - {None}) and put == ({destination} - {None}), where
        if words and words["kind"] == "in_hand" and "from " in words["headline"]:
            lifted = re.match(r"A checker is in hand from (.+?): (?:it may go to (.+)|it has nowhere)", words["headline"])
            assert lifted, where
            origins = {lit(location) for location, mark in marks.items() if mark is Mark.LIFTED_ORIGIN}
            assert origins == {place(lifted.group(1))}, where
            destinations = {lit(location) for location, mark in marks.items() if mark is Mark.LEGAL_DESTINATION}
            named = {place(words) for words in lifted.group(2).split(", ")} if lifted.group(2) else set()
            assert named <= destinations, where   # the lights add where a lifted opposing checker may go

    def terminal(self, view: GameView, marks: dict) -> None:
        """Each lit point's code is drawn under its label, in the row of LEDs next to the labels."""
        lines = draw_view(view, self.renderer, self.layout, False, 0.0).splitlines()
        labels_far, leds_far, leds_near, labels_near = lines[0], lines[1], lines[-2], lines[-1]
        for location, mark in marks.items():
            if not location.isdigit():
                continue
            labels, leds = (labels_far, leds_far) if int(location) > 12 else (labels_near, leds_near)
            column = re.search(rf"(?<!\d){location}(?!\d)", labels)
            code = leds[column.end() - 2:column.end()]
            assert code == MEANINGS[mark][0], f"the terminal draws {code!r} under {location}, lit {mark.value}"

    def live_page(self, view: GameView, marks: dict) -> None:
        """The Live page's board: each mark on the location the LED names, labelled with its number."""
        svg = ET.fromstring(view_svg({**snapshot(view, LinkFacts(), "standard"), "seq": 0}))
        drawn = {}
        for group in svg.iter("{http://www.w3.org/2000/svg}g"):
            if group.get("class") == "location" and group.get("data-mark"):
                drawn[group.get("data-location")] = group.get("data-mark")
                if group.get("data-location").isdigit():   # its first text is the point's label
                    label = next(group.iter("{http://www.w3.org/2000/svg}text")).text
                    assert label == group.get("data-location"), f"the Live page labels {label} a mark on " \
                                                                f"{group.get('data-location')}"
        assert drawn == {location: mark.value for location, mark in marks.items()}


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.value)
def test_the_words_the_lights_the_terminal_and_the_live_page_name_the_same_place(layout, tmp_path, monkeypatch):
    # More illegal boards than a soak draws: a move backwards, and the guidance back, in one turn of four.
    monkeypatch.setitem(soak.STUNTS, "backwards", 0.25)
    monkeypatch.setitem(soak.STUNTS, "referee", 0.05)
    config = soak_config()
    surfaces = Surfaces(config)
    seed = seed_for(layout)
    for variant in VARIANTS:
        figures = Figures()
        folder = tmp_path / variant
        folder.mkdir()
        match = SoakMatch(config, MatchRules(sequence=(variant,), target=1), seed, 0.0, figures, folder,
                          observers=(surfaces,))
        misplace_one_checker(match)
        try:
            SoakPlayers(match, seed).play_games(1)
        finally:
            match.close()
        assert figures.problems == [] and figures.stunts["backwards"], (variant, figures.problems)
    print(f"{layout.value}: {surfaces.boards} boards checked")
    # Every state and verdict that shows guidance or marks was seen on this layout.
    assert {m.SETUP, m.MOVING, m.CORRECTING} <= surfaces.states, surfaces.states
    assert {"setup", "illegal", "in_hand"} <= surfaces.kinds, surfaces.kinds
