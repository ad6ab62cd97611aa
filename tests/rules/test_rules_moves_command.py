"""The command `tavli-board moves`: every legal play as JSON, for one request or JSON lines."""
import io
import json
import sys

from firmware_host.cli import main
from firmware_host.rules import Position, legal_plays


def run(capsys, monkeypatch, stdin, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_prints_every_legal_play_as_its_json(capsys, monkeypatch):
    position = Position.from_json({"variant": "plakoto", "turn": "black",
                                   "white": {"points": {"24": 12, "10": 1, "5": 2}},
                                   "black": {"points": {"1": 13, "10": 1, "18": 1}},
                                   "pinned": {"10": "white"}})
    code, out, err = run(capsys, monkeypatch, json.dumps(position.to_json()),
                         "moves", "--position", "-", "--dice", "3", "3")
    assert code == 0 and err == ""
    assert json.loads(out) == {"plays": [play.to_json() for play in legal_plays(position, (3, 3))]}


def test_moves_jsonl_answers_each_line_and_errors_in_place(capsys, monkeypatch):
    start = Position.start("portes").to_json()
    lines = [json.dumps({"position": start, "dice": [6, 5]}), "[1,", json.dumps({"position": start, "dice": [0, 5]}),
             json.dumps({"position": start, "dice": [2, 1], "rules": {"higher_die_rule": False}})]
    code, out, _ = run(capsys, monkeypatch, "\n".join(lines) + "\n", "moves", "--jsonl")
    answers = out.splitlines()
    assert code == 0 and len(answers) == 4
    expected = {"plays": [play.to_json() for play in legal_plays(Position.start("portes"), (6, 5))]}
    assert json.loads(answers[0]) == expected
    assert answers[0] == json.dumps(expected, sort_keys=True)   # the keys sorted, as every line
    assert "line 2: is not valid JSON" in json.loads(answers[1])["error"]
    assert "a die shows 1 to 6" in json.loads(answers[2])["error"]
    assert json.loads(answers[3])["plays"]
