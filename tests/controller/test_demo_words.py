"""The demo's words: a play in the position format whichever way the board lies, and Ctrl-C is a clean line."""
import firmware_host.demo
from firmware_host.cli import main
from firmware_host.controller.numbering import play_text
from firmware_host.rules import Color, Position, Turn


def test_a_play_is_written_in_the_position_format_from_whites_side():
    """docs/position-format.md: a record numbers the points from White's side for both colours, White
    moving 24 -> 1 (so the same play reads the same on a board that lies any way round)."""
    white = next(play for play in Turn(Position.start("portes"), (6, 5)).plays()
                 if [(move.origin, move.destination) for move in play.moves] == [("24", "18"), ("18", "13")])
    assert play_text(white.moves) == "24/18 18/13"
    black = Turn(Position.start("portes", Color.BLACK), (6, 5)).plays()
    assert all(int(move.origin) < int(move.destination) for play in black for move in play.moves)   # 1 -> 24


def test_ctrl_c_in_the_demo_is_one_line_not_a_traceback(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(firmware_host.demo, "run_demo", interrupted)
    assert main(["demo", "--match", "portes"]) == 130
    assert capsys.readouterr().err.strip() == "tavli-board demo: stopped (Ctrl-C)"
