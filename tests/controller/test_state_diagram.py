"""The state diagrams in docs/ are drawn from the same declaration as the running machine: the game's
states, and the overlays over the game drawn as one state."""
import re
import shutil
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.controller.machine import (DIAGRAMS, GAME, OVERLAYS, RESUMABLE, STATES, TRANSITIONS,
                                              diagram_source, overlay_diagram_source)

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _nodes(source: str) -> set[str]:
    return set(re.findall(r"^\t(\w+) \[label=", source, flags=re.MULTILINE))


def _edges(source: str) -> list[tuple[str, str, str]]:
    """(source, destination, label) of every edge."""
    return re.findall(r'^\t(\w+) -> (\w+) \[label="?([^"\]]*)', source, flags=re.MULTILINE)


@pytest.mark.parametrize("name", DIAGRAMS)
def test_the_committed_diagram_source_is_the_declaration_drawn_now(name):
    assert (DOCS / f"{name}.gv").read_text() == DIAGRAMS[name](), \
        f"docs/{name}.gv is out of date: run `tavli-board state-diagram` and commit the files"


def test_the_game_diagram_shows_every_state_but_the_overlays():
    assert _nodes(diagram_source()) == set(RESUMABLE)


def test_the_overlay_diagram_shows_the_game_as_one_state_and_one_edge_back_from_each_overlay():
    source = overlay_diagram_source()
    assert _nodes(source) == {GAME, *OVERLAYS}
    assert sorted(label for origin, dest, label in _edges(source) if dest == GAME) == \
        ["button_freed", "link_up", "sensor_faults_cleared"]


def test_every_trigger_and_every_state_is_drawn_in_one_of_the_diagrams():
    sources = diagram_source() + overlay_diagram_source()
    assert set(STATES) <= _nodes(sources)
    for trigger in {transition["trigger"] for transition in TRANSITIONS}:
        assert re.search(rf'label="?[^\n]*\b{trigger}\b', sources), trigger


def test_the_check_command_fails_on_a_stale_source_and_passes_on_fresh_ones(tmp_path, capsys):
    for name, source_of in DIAGRAMS.items():
        (tmp_path / f"{name}.gv").write_text(source_of())
    assert main(["state-diagram", "--check", "--output", str(tmp_path)]) == 0
    stale = tmp_path / "state-diagram-overlays.gv"
    stale.write_text(overlay_diagram_source().replace("link_lost", "unplugged"))
    assert main(["state-diagram", "--check", "--output", str(tmp_path)]) == 1
    assert f"{stale} is out of date" in capsys.readouterr().err


def _drawn(svg: str) -> tuple[set[str], set[str]]:
    """The node and edge titles and the label texts of an SVG that Graphviz drew."""
    return set(re.findall(r"<title>(.*?)</title>", svg)), set(re.findall(r"<text[^>]*>(.*?)</text>", svg))


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot program is not installed (Debian package graphviz): the SVG cannot be drawn")
def test_the_committed_svgs_are_drawn_from_the_committed_sources(tmp_path):
    assert main(["state-diagram", "--output", str(tmp_path)]) == 0
    for name in DIAGRAMS:
        fresh = (tmp_path / f"{name}.svg").read_text()
        # Compared by what is drawn, not by coordinates, which another Graphviz version may place differently.
        assert _drawn((DOCS / f"{name}.svg").read_text()) == _drawn(fresh)
