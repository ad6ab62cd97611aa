"""The state diagram in docs/ is drawn from the same declaration as the running machine."""
import re
import shutil
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.controller.machine import STATES, TRANSITIONS, diagram_source

DOCS = Path(__file__).resolve().parents[2] / "docs"
COMMITTED_SOURCE = DOCS / "state-diagram.gv"
COMMITTED_SVG = DOCS / "state-diagram.svg"


def test_the_committed_diagram_source_is_the_declaration_drawn_now():
    assert COMMITTED_SOURCE.read_text() == diagram_source(), \
        "docs/state-diagram.gv is out of date: run `tavli-board state-diagram` and commit both files"


def test_the_diagram_shows_every_state_and_every_trigger():
    source = diagram_source()
    nodes = set(re.findall(r"^\t(\w+) \[label=", source, flags=re.MULTILINE))
    assert nodes == set(STATES)
    for trigger in {transition["trigger"] for transition in TRANSITIONS}:
        assert re.search(rf'label="?[^\n]*\b{trigger}\b', source), trigger


def test_the_check_command_fails_on_a_stale_source_and_passes_on_a_fresh_one(tmp_path, capsys):
    (tmp_path / "state-diagram.gv").write_text(diagram_source().replace("moving", "playing"))
    assert main(["state-diagram", "--check", "--output", str(tmp_path)]) == 1
    assert "out of date" in capsys.readouterr().err
    (tmp_path / "state-diagram.gv").write_text(diagram_source())
    assert main(["state-diagram", "--check", "--output", str(tmp_path)]) == 0


def _drawn(svg: str) -> tuple[set[str], set[str]]:
    """The node and edge titles and the label texts of an SVG that Graphviz drew."""
    return set(re.findall(r"<title>(.*?)</title>", svg)), set(re.findall(r"<text[^>]*>(.*?)</text>", svg))


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot program is not installed (Debian package graphviz): the SVG cannot be drawn")
def test_the_committed_svg_is_drawn_from_the_committed_source(tmp_path):
    assert main(["state-diagram", "--output", str(tmp_path)]) == 0
    fresh = (tmp_path / "state-diagram.svg").read_text()
    # Compared by what is drawn, not by coordinates, which another Graphviz version may place differently.
    assert _drawn(COMMITTED_SVG.read_text()) == _drawn(fresh)
    titles, _ = _drawn(fresh)
    assert set(STATES) <= titles
