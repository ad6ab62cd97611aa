"""Odd point keys in a position or a reading (position-json.md: points are keyed "1" to "24").

A key that Python's `str.isdigit` accepts but `int` cannot read (superscripts "²⁴"), digits of other
scripts ("٣", which `int` reads as 3), keys with spaces, signs, leading zeros or line breaks: every
command that reads a position or a JSON-lines stream of them says what is wrong in one line (exit 2,
or an {"error": ...} answer per line), never a traceback, and answers every line of a stream.
"""
import io
import json
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from firmware_host.cli import main
from firmware_host.rules import Position, PositionError

PORTES = Position.start("portes").to_json()
PLAKOTO = Position.start("plakoto").to_json()   # a game with pins, for odd keys under "pinned"
ODD_KEYS = ["²⁴", "²", "٣", "１", "01", "0", "25", "-1", "+3", " 3", "3 ", "3\n", "", "1.0", "\u0663\u0660"]

# Keys made of any kind of digit (decimal ones of every script, superscripts, fractions, numerals),
# mixed with a few ASCII characters.
odd_keys = st.text(alphabet=st.characters(categories=("Nd", "No", "Nl")) | st.sampled_from("0123456789 +-.\n"),
                   min_size=0, max_size=3).filter(lambda key: key not in {str(p) for p in range(1, 25)})


def with_key(document: dict, where: str, key: str) -> dict:
    """`document` (a position or a reading) with one more entry under `where`: "white", "black"
    (their points) or "pinned"."""
    changed = json.loads(json.dumps(document))
    if where == "pinned":
        changed.setdefault("pinned", {})[key] = "white"
    else:
        changed[where]["points"][key] = 1
    return changed


def odd_position(where: str, key: str) -> dict:
    return with_key(PLAKOTO if where == "pinned" else PORTES, where, key)


def reading_of(position: dict) -> dict:
    return {key: value for key, value in position.items() if key in ("variant", "white", "black")}


@pytest.mark.parametrize("key", ODD_KEYS)
@pytest.mark.parametrize("where", ["white", "black", "pinned"])
def test_an_odd_point_key_is_a_position_error_naming_the_field(key, where):
    document = odd_position(where, key)
    with pytest.raises(PositionError) as error:
        Position.from_json(document)
    message = str(error.value)
    assert "\n" not in message and 'points are "1" to "24"' in message
    assert message.startswith(f"{where}.points." if where != "pinned" else "pinned.")


def run(args: list[str], stdin: str = "") -> tuple[int, str]:
    """The command's exit code and standard output; any exception out of main fails the test."""
    out, old = io.StringIO(), (sys.stdin, sys.stdout)
    sys.stdin, sys.stdout = io.StringIO(stdin), out
    try:
        code = main(args)
    except SystemExit as exit_:   # argparse's own usage errors
        code = exit_.code
    finally:
        sys.stdin, sys.stdout = old
    return code, out.getvalue()


def file_commands(position: str, reading: str, good_position: str, good_reading: str) -> dict[str, list[str]]:
    """Every command that reads a position or reading file, given the odd file where it reads one."""
    return {
        "show": ["show", position],
        "moves": ["moves", "--dice", "6", "5", "--position", position],
        "hint": ["hint", "--dice", "6", "5", "--position", position],
        "judge --position": ["judge", "--position", position, "--dice", "6", "5", "--reading", good_reading],
        "judge --reading": ["judge", "--position", good_position, "--dice", "6", "5", "--reading", reading],
        "restore --target": ["restore", "--target", position, "--reading", good_reading],
        "restore --reading": ["restore", "--target", good_position, "--reading", reading],
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(ODD_KEYS) | odd_keys, where=st.sampled_from(["white", "black", "pinned"]),
       command=st.sampled_from(sorted(file_commands("", "", "", ""))))
def test_every_command_reading_a_file_refuses_an_odd_key_in_one_line(tmp_path_factory, capsys, key, where, command):
    assume(where != "pinned" or "--reading" not in command)   # a reading has no pins
    tmp = tmp_path_factory.mktemp("odd")
    odd = odd_position(where, key)
    files = {name: tmp / f"{name}.json" for name in ("position", "reading", "good-position", "good-reading")}
    for name, document in (("position", odd), ("reading", reading_of(odd)),
                           ("good-position", PORTES), ("good-reading", reading_of(PORTES))):
        files[name].write_text(json.dumps(document))
    code, _ = run(file_commands(*(str(path) for path in files.values()))[command])
    err = capsys.readouterr().err
    assert code == 2, f"{command} with key {key!r}: exit {code}"
    assert len(err.strip().splitlines()) == 1 and 'points are "1" to "24"' in err


def jsonl_request(command: str, position: dict) -> dict:
    request = {"position": position, "dice": [6, 5]}
    if command == "judge":
        request["reading"] = reading_of(position)
    return request


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.sampled_from(ODD_KEYS) | odd_keys, min_size=1, max_size=4),
       where=st.sampled_from(["white", "black", "pinned"]), command=st.sampled_from(["moves", "hint", "judge"]))
def test_a_json_lines_stream_answers_every_line_around_odd_keys(keys, where, command):
    """Odd lines between good ones: an error answer for each odd one, and the good ones after it
    are still answered."""
    good = json.dumps(jsonl_request(command, PORTES))
    lines = [good]
    for key in keys:
        lines += [json.dumps(jsonl_request(command, odd_position(where, key))),
                  good]
    code, out = run([command, "--jsonl"], "\n".join(lines) + "\n")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == len(lines)
    assert ['error' in answer for answer in answers] == [index % 2 == 1 for index in range(len(lines))]
    assert all('points are \\"1\\" to \\"24\\"' in json.dumps(answer["error"])
               for answer in answers[1::2])


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(ODD_KEYS) | odd_keys, where=st.sampled_from(["white", "black"]))
def test_judge_refuses_an_odd_key_in_the_reading_of_a_stream(key, where):
    request = {"position": PORTES, "dice": [6, 5], "reading": with_key(reading_of(PORTES), where, key)}
    code, out = run(["judge", "--jsonl"], json.dumps(request) + "\n")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 1 and 'points are "1" to "24"' in answers[0]["error"]
