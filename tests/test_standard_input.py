"""Commands that read standard input: a person at a terminal is told what the command waits for, and
an empty input is named as empty rather than as a JSON parser's "Expecting value"."""
import io
import json
import sys

import pytest

from firmware_host.cli import main
from firmware_host.rules import Position

PORTES = json.dumps(Position.start("portes").to_json()).encode()


class Terminal(io.TextIOWrapper):
    """Standard input as a terminal, holding what the person pastes."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data), encoding="utf-8")

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("argv", [["show"], ["moves", "--dice", "6", "5", "--position", "-"],
                                  ["hint", "--dice", "6", "5"]], ids=" ".join)
def test_a_command_reading_a_terminal_says_what_it_waits_for(monkeypatch, capsys, argv):
    monkeypatch.setattr(sys, "stdin", Terminal(PORTES))
    assert main(argv) == 0
    assert "reading standard input: paste the text, then press Ctrl-D" in capsys.readouterr().err


def test_a_pipe_gets_no_prompt(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PORTES), encoding="utf-8"))
    assert main(["show"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("data", [b"", b"  \n\t\n"], ids=["empty", "blank"])
@pytest.mark.parametrize("argv", [["show"], ["moves", "--dice", "6", "5", "--position", "-"],
                                  ["hint", "--dice", "6", "5"]], ids=" ".join)
def test_empty_standard_input_is_named_empty(monkeypatch, capsys, argv, data):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "standard input: is empty: JSON was expected" in err and "Expecting value" not in err
    assert len(err.strip().splitlines()) == 1
