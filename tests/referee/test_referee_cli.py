"""The commands `tavli-board judge` (one reading, or JSON lines) and `tavli-board restore`."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.rules import WHITE, Position
from referee_kit import moved, pos, position_json_reading, reading_json, reading_of

START = Position.start("portes")
PARTIAL = reading_json(moved(reading_of(START), WHITE, "13", "7"))
TAVLI_BOARD = Path(sys.executable).with_name("tavli-board")


@pytest.fixture
def files(tmp_path):
    def write(name, data):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return str(path)
    return write


@pytest.fixture
def stdin(monkeypatch):
    def feed(text):
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    return feed


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_judge_prints_the_verdict_of_one_reading(capsys, files):
    code, out, err = run(capsys, "judge", "--position", files("start.json", START.to_json()),
                         "--dice", "6", "5", "--reading", files("reading.json", PARTIAL))
    assert code == 0 and err == ""
    verdict = json.loads(out)
    assert verdict["verdict"] == "partial"
    assert verdict["remaining"] == [5]
    assert verdict["destinations"]["7"] == ["2"]
    judged = Position.from_json(verdict["position"])       # a full position: the mover to move
    assert reading_of(judged) == moved(reading_of(START), WHITE, "13", "7") and judged.turn is WHITE


def test_judge_reads_the_reading_from_stdin(capsys, files, stdin):
    stdin(json.dumps(reading_json(moved(moved(reading_of(START), WHITE, "13", "7"), WHITE, "13", "8"))))
    code, out, _ = run(capsys, "judge", "--position", files("start.json", START.to_json()),
                       "--dice", "6", "5", "--reading", "-")
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "complete"
    assert {(m["from"], m["to"]) for m in verdict["play"]["moves"]} == {("13", "7"), ("13", "8")}
    assert verdict["play"]["position"]["turn"] == "black"


@pytest.mark.parametrize("rules, expected", [([], "partial"), (["--rule", "entry_may_trap=false"], "illegal")])
def test_judge_takes_house_rules(capsys, files, rules, expected):
    entering = pos("neverfinishing", {24: 13, 6: 1}, {1: 14, 22: 1}, bar=(1, 0))
    trapped = reading_json(moved(reading_of(entering), WHITE, "bar", "22"))
    code, out, _ = run(capsys, "judge", "--position", files("p.json", entering.to_json()),
                       "--dice", "3", "1", "--reading", files("r.json", trapped), *rules)
    assert code == 0 and json.loads(out)["verdict"] == expected


def test_judge_reports_an_illegal_reading_with_its_guidance(capsys, files):
    wrong = reading_json(moved(reading_of(START), WHITE, "13", "10"))
    code, out, _ = run(capsys, "judge", "--position", files("p.json", START.to_json()),
                       "--dice", "6", "5", "--reading", files("r.json", wrong))
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "illegal"
    assert verdict["differs"] and verdict["target"]["variant"] == "portes"
    assert [(s["color"], s["from"]) for s in verdict["steps"]] == [("white", "10")]
    assert all(set(s) == {"color", "from", "to", "text"} for s in verdict["steps"])


def test_judge_says_which_rule_an_illegal_reading_breaks_as_values_and_in_words(capsys, files):
    # rules.md: a checker lands only on an open point; black holds 12 with five at portes' start.
    onto_black = reading_json(moved(reading_of(START), WHITE, "13", "12"))
    code, out, _ = run(capsys, "judge", "--position", files("p.json", START.to_json()),
                       "--dice", "6", "5", "--reading", files("r.json", onto_black))
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "illegal"
    assert verdict["refusals"] == [{"rule": "point_held", "mover": "white", "points": ["12"], "count": 5, "limit": 2}]
    assert verdict["why"] == ["Point 12 is held by black (5 checkers): white may not land there."]


def test_judge_reports_a_fault(capsys, files):
    reading = position_json_reading(START)
    reading["black"]["bar"] = 1
    code, out, _ = run(capsys, "judge", "--position", files("p.json", START.to_json()),
                       "--dice", "6", "5", "--reading", files("r.json", reading))
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "fault"
    assert verdict["fault"]["location"] == "bar" and verdict["fault"]["color"] == "black"


@pytest.mark.parametrize("argv, message", [
    (["judge", "--dice", "6", "5"], "--position"),
    (["judge", "--position", "-", "--reading", "-", "--dice", "1", "2"], "stdin"),
    (["judge", "--position", "{missing}", "--reading", "{reading}", "--dice", "6", "5"], "cannot read"),
    (["judge", "--position", "{bad_json}", "--reading", "{reading}", "--dice", "6", "5"], "not valid JSON"),
    (["judge", "--position", "{start}", "--reading", "{pinned}", "--dice", "6", "5"], "pinned"),
    (["judge", "--position", "{start}", "--reading", "{reading}", "--dice", "7", "5"], "die"),
    (["judge", "--position", "{start}", "--reading", "{reading}", "--dice", "6", "5",
      "--rule", "no_such_rule=1"], "no_such_rule"),
    (["restore", "--target", "-", "--reading", "-"], "stdin"),
    (["restore", "--target", "{bad_json}", "--reading", "{reading}"], "not valid JSON"),
    (["restore", "--target", "{short}", "--reading", "{reading}"], "14 checkers"),
])
def test_bad_arguments_are_one_line_on_stderr_and_exit_code_2(capsys, files, argv, message):
    paths = {"missing": str(Path(files("x", "")).with_name("missing.json")),
             "bad_json": files("bad.json", "{not json"),
             "start": files("start.json", START.to_json()),
             "reading": files("reading.json", PARTIAL),
             "pinned": files("pinned.json", {**PARTIAL, "pinned": {}}),
             "short": files("short.json", {"variant": "portes",
                                           "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 4}},
                                           "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})}
    argv = [arg.format(**paths) for arg in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"tavli-board {argv[0]}: ") and err.count("\n") == 1
    assert message in err


def test_restore_prints_the_steps_to_the_target(capsys, files):
    code, out, err = run(capsys, "restore", "--target", files("t.json", START.to_json()),
                         "--reading", files("r.json", PARTIAL))
    assert code == 0 and err == ""
    assert json.loads(out) == {"steps": [{"color": "white", "from": "7", "to": "13",
                                          "text": "take one white checker from 7 to 13"}]}


def test_restore_reads_the_reading_from_stdin(capsys, files, stdin):
    stdin(json.dumps(position_json_reading(START)))
    code, out, _ = run(capsys, "restore", "--target", files("t.json", START.to_json()), "--reading", "-")
    assert code == 0 and json.loads(out) == {"steps": []}


# -- JSON lines ----------------------------------------------------------------------------------------

def request(reading=PARTIAL, position=None, dice=(6, 5), **extra):
    return json.dumps({"position": (position or START).to_json(), "dice": list(dice),
                       "reading": reading, **extra})


def answers(capsys, stdin, lines):
    stdin("\n".join(lines) + "\n")
    code, out, err = run(capsys, "judge", "--jsonl")
    assert code == 0 and err == ""
    return [json.loads(line) for line in out.splitlines()]


def test_jsonl_answers_every_line_in_order_and_a_bad_line_gets_an_error(capsys, stdin):
    complete = reading_json(moved(moved(reading_of(START), WHITE, "13", "7"), WHITE, "13", "8"))
    lines = [
        request(),
        "{not json",
        request(dice=(6, 5, 4)),
        request(reading={**PARTIAL, "turn": "white"}),
        json.dumps({"position": START.to_json(), "dice": [6, 5]}),
        request(extra_key=1),
        json.dumps([1, 2]),
        request(dice="65"),
        "",
        request(reading=complete),
        request(reading=position_json_reading(Position.start("fevga"))),
        request(position=Position.start("fevga"), dice=(1, 1),
                reading=position_json_reading(Position.start("fevga"))),
    ]
    got = answers(capsys, stdin, lines)
    assert len(got) == len(lines) - 1          # the blank line is skipped
    assert got[0]["verdict"] == "partial" and got[0]["remaining"] == [5]
    for number, answer in zip((2, 3, 4, 5, 6, 7, 8), got[1:8]):
        assert set(answer) == {"error"} and answer["error"].startswith(f"line {number}: "), answer
    assert "JSON" in got[1]["error"] and "turn" in got[3]["error"] and "extra_key" in got[5]["error"]
    assert got[8]["verdict"] == "complete"
    assert set(got[9]) == {"error"} and "fevga" in got[9]["error"]
    assert got[10]["verdict"] == "unchanged"


@pytest.mark.parametrize("rules", ["fast", ["higher_die_rule"]])
def test_jsonl_rules_that_are_not_an_object_get_an_error_and_the_rest_go_on(capsys, stdin, rules):
    got = answers(capsys, stdin, [request(rules=rules), request()])
    assert len(got) == 2
    assert set(got[0]) == {"error"} and got[0]["error"].startswith("line 1: ")
    assert got[1]["verdict"] == "partial"


def test_jsonl_with_house_rules(capsys, stdin):
    entering = pos("neverfinishing", {24: 13, 6: 1}, {1: 14, 22: 1}, bar=(1, 0))
    trapped = reading_json(moved(reading_of(entering), WHITE, "bar", "22"))
    got = answers(capsys, stdin, [
        request(position=entering, dice=(3, 1), reading=trapped),
        request(position=entering, dice=(3, 1), reading=trapped, rules={"entry_may_trap": False}),
        request(position=entering, dice=(3, 1), reading=trapped, rules={"entry_may_trap": "maybe"}),
    ])
    assert [a.get("verdict") for a in got] == ["partial", "illegal", None]
    assert "entry_may_trap" in got[2]["error"]


def test_the_installed_command_answers_json_lines():
    result = subprocess.run([str(TAVLI_BOARD), "judge", "--jsonl"], input=request() + "\n{\n",
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["verdict"] == "partial" and "error" in second
