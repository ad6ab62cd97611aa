"""The LED legend: every light has a code, a blink in words and a meaning; the picture in docs/ is the
code's; the command and the demo show it, in colour only on a terminal without NO_COLOR."""
import io
from pathlib import Path

from firmware_host.cli import main
from firmware_host.leds.legend import MEANINGS, legend_lines, legend_svg
from firmware_host.leds.palette import ELEMENT_GROUPS, PALETTES, STANDARD
from firmware_host.leds.terminal import wants_colour

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_light_has_a_code_of_its_own_and_a_meaning():
    elements = [element for group in ELEMENT_GROUPS for element in group]
    assert set(MEANINGS) == set(elements)
    codes = [code for code, _ in MEANINGS.values()]
    assert len(set(codes)) == len(codes) and all(len(code) == 2 for code in codes)


def test_the_legend_lists_every_light_with_its_blink_and_meaning():
    text = "\n".join(legend_lines(STANDARD, in_colour=False))
    for element, (code, meaning) in MEANINGS.items():
        assert f"  {code} {element}" in text and meaning in text
    assert "\x1b[" not in text and "two quick flashes" in text


def test_the_picture_in_the_docs_is_the_legend_of_both_palettes():
    assert (DOCS / "led-legend.svg").read_text() == legend_svg(PALETTES.values())
    assert main(["legend", "--check"]) == 0


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_colour(Terminal()) and not wants_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_colour(Terminal())


def test_the_command_prints_the_legend(capsys):
    assert main(["legend", "--palette", "colour-blind"]) == 0
    out = capsys.readouterr().out
    assert "the dice:" in out and "storage-fault" in out and "\x1b[" not in out   # captured: not a terminal


def test_the_terminal_columns_never_run_together():
    """Name, blink and meaning stand apart by at least two spaces on every line, the longest blink
    ("two quick flashes, a pause, dim") included."""
    import re
    from firmware_host.leds.legend import how_it_looks
    for line in legend_lines(STANDARD, in_colour=False):
        if line.endswith(":"):
            continue
        code, element, blink, meaning = re.fullmatch(r"  (\S\S) (\S+)\s{2,}(.+?)\s{2,}(\S.*)", line).groups()
        assert blink == how_it_looks(element) and MEANINGS[element] == (code, meaning)


def test_the_check_says_the_picture_is_current(capsys):
    assert main(["legend", "--check"]) == 0
    assert "is the legend of the code" in capsys.readouterr().out
