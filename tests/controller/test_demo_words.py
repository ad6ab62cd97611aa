"""The demo's words: one numbering (the one drawn on the board), and Ctrl-C is a clean line."""
import pytest

import firmware_host.demo
from firmware_host.cli import main
from firmware_host.controller import Orientation
from firmware_host.demo.players import as_drawn
from firmware_host.rules import Position, Turn


@pytest.mark.parametrize("orientation", list(Orientation))
def test_a_play_is_named_in_the_points_drawn_on_the_board(orientation):
    play = next(play for play in Turn(Position.start("portes"), (6, 5)).plays()
                if [(move.origin, move.destination) for move in play.moves] == [("24", "18"), ("18", "13")])
    drawn = [orientation.point(point) for point in (24, 18, 13)]
    assert as_drawn(orientation, play) == f"{drawn[0]}/{drawn[1]} {drawn[1]}/{drawn[2]}"


def test_ctrl_c_in_the_demo_is_one_line_not_a_traceback(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(firmware_host.demo, "run_demo", interrupted)
    assert main(["demo", "--match", "portes"]) == 130
    assert capsys.readouterr().err.strip() == "tavli-board demo: stopped (Ctrl-C)"
