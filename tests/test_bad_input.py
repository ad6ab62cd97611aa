"""Bad input thrown at every command that reads a file or a stream: a clear line, never a traceback.

Every command that reads a file someone names (a position, a reading, the configuration and the board
file it names, a journal, a scenario, a trace) gets fixed odd files (empty, not UTF-8, a folder,
/dev/zero, nesting thousands deep, a 5000-digit number, a list where a name belongs, another
program's database) and generated ones (random bytes, random JSON and TOML values, a good file with a
value replaced). The command must end with an exit code (2 for bad input), and never raise. The JSON
lines commands must answer every line.
"""
import io
import json
import sqlite3
import sys
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware_host.cli import main
from firmware_host.rules import Position

ROOT = Path(__file__).resolve().parents[1]
PORTES = json.dumps(Position.start("portes").to_json())
READING = json.dumps({key: value for key, value in Position.start("portes").to_json().items()
                      if key in ("white", "black")})
SCENARIO = next((ROOT / "tests" / "hil" / "scenarios").glob("*.toml")).read_text()
BOARD = (ROOT / "hardware" / "board.toml").read_text()


def commands(tmp: Path) -> dict[str, callable]:
    """Each command that reads a file, as a function of the file's path -> its arguments."""
    good_position, good_reading = tmp / "good-position.json", tmp / "good-reading.json"
    if tmp.is_dir():
        good_position.write_text(PORTES)
        good_reading.write_text(READING)

    def config_naming_board(path: str) -> list[str]:
        config = tmp / "names-board.toml"
        config.write_text(tomli_w.dumps({"board_file": path}))
        return ["config", "check", "--config", str(config)]

    return {
        "show": lambda f: ["show", f],
        "moves --position": lambda f: ["moves", "--dice", "6", "5", "--position", f],
        "judge --position": lambda f: ["judge", "--position", f, "--dice", "6", "5", "--reading", str(good_reading)],
        "judge --reading": lambda f: ["judge", "--position", str(good_position), "--dice", "6", "5", "--reading", f],
        "restore --target": lambda f: ["restore", "--target", f, "--reading", str(good_reading)],
        "restore --reading": lambda f: ["restore", "--target", str(good_position), "--reading", f],
        "config check": lambda f: ["config", "check", "--config", f],
        "config show": lambda f: ["config", "show", "--config", f],
        "board_file in the config": config_naming_board,
        "history --journal": lambda f: ["history", "--journal", f],
        "export --journal": lambda f: ["export", "last", "--journal", f],
        "dice-stats --journal": lambda f: ["dice-stats", "--journal", f],
        "firmware-config --board": lambda f: ["firmware-config", "--board", f, "--output", str(tmp / "board_config.py")],
        "wiring --board": lambda f: ["wiring", "--check", "--board", f, "--output", str(tmp / "wiring")],
        "maker-docs --board": lambda f: ["maker-docs", "--check", "--board", f, "--output", str(tmp / "maker")],
        "hil run": lambda f: ["hil", "run", f],
        "hil replay": lambda f: ["hil", "replay", f],
        "hil to-scenario": lambda f: ["hil", "to-scenario", f],
        "bug-report --config": lambda f: ["bug-report", "--config", f, "--output", str(tmp / "report.tar.gz")],
    }


def odd_files(tmp: Path) -> dict[str, str]:
    """The fixed odd files, by what they are -> path."""
    contents = {
        "empty": b"",
        "not UTF-8": b"\xff\xfe\x00\x81 position",
        "JSON nested 100000 deep": b"[" * 100_000 + b"]" * 100_000,
        "TOML nested 100000 deep": b"a = " + b"[" * 100_000 + b"]" * 100_000,
        "a 5000-digit number": b"9" * 5000,
        "a 4000-digit count": b'{"variant": "portes", "turn": "white", "white": {"points": {"1": ' + b"9" * 4000
                              + b'}}, "black": {}}',
        "a 5000-digit TOML number": b"[leds]\nbrightness = " + b"9" * 5000,
        "a list where a name belongs": b'{"variant": ["portes"], "turn": "white"}',
        "a list where a name belongs (TOML)": b'hardware = ["simulated"]\nboard_file = ["board.toml"]\n',
        "a table where a name belongs (scenario)": SCENARIO.replace('title = "', 'title = {x = "').encode()
        if 'title = "' in SCENARIO else b"title = {x = 1}",
        "a list of counts": b'{"variant": "portes", "turn": "white", "white": {"points": [15]}, "black": {}}',
        "nulls everywhere": b'{"variant": null, "turn": null, "white": null, "black": null}',
        "a float count": b'{"variant": "portes", "white": {"points": {"1": 1e999}}, "black": {}}',
        "a JSON list": b"[1, 2, 3]",
        "a JSON string": b'"portes"',
        "binary noise": bytes(range(256)) * 4,
        "a trace line that is not an object": b"[]\n",
        "the board file": BOARD.encode(),
    }
    paths = {}
    for name, data in contents.items():
        path = tmp / f"odd-{len(paths)}"
        path.write_bytes(data)
        paths[name] = str(path)
    paths["a folder"] = str(tmp)
    paths["/dev/zero"] = "/dev/zero"
    paths["a missing file"] = str(tmp / "no-such-file")
    foreign = tmp / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE recipes (name TEXT)")
    paths["another program's database"] = str(foreign)
    return paths


def run(args: list[str], capsys, stdin: str = "") -> tuple[int, str, str]:
    """The command's exit code, stdout and stderr; any exception out of main fails the test."""
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(args)
    except SystemExit as exit_:   # argparse's own usage errors
        code = exit_.code
    finally:
        sys.stdin = old_stdin
    out, err = capsys.readouterr()
    return code, out, err


def check(name: str, what: str, args: list[str], capsys) -> None:
    code, out, err = run(args, capsys)
    assert code in (0, 1, 2), f"{name} with {what}: exit {code}"
    if code == 2:   # said on stderr (hil run reports each scenario, a bad one too, on stdout)
        assert (err if err.strip() else out).strip(), f"{name} with {what}: exit 2 without a word"


def test_every_command_that_reads_a_file_with_every_odd_file(tmp_path, capsys):
    tried, tracebacks = 0, []
    for what, path in odd_files(tmp_path).items():
        for name, arguments in commands(tmp_path).items():
            tried += 1
            try:
                check(name, what, arguments(path), capsys)
            except Exception as error:   # collected, to list every one at the end
                tracebacks.append(f"{name} with {what}: {type(error).__name__}: {str(error)[:200]}")
    print(f"odd files tried: {tried}, tracebacks: {len(tracebacks)}")
    assert not tracebacks, "\n".join(tracebacks)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)
POSITION_KEYS = ("variant", "turn", "white", "black", "pinned", "rolls", "points", "bar", "off")


@st.composite
def mutated_position(draw) -> bytes:
    """The portes start with one value, somewhere in it, replaced by any JSON value."""
    document = json.loads(PORTES)
    key = draw(st.sampled_from(POSITION_KEYS))
    target = document if key in document or draw(st.booleans()) else document[draw(st.sampled_from(["white", "black"]))]
    target[key] = draw(json_values)
    return json.dumps(document).encode()


bad_contents = st.one_of(
    st.binary(max_size=64),
    json_values.map(lambda value: json.dumps(value).encode()),
    mutated_position(),
    st.dictionaries(st.text(max_size=8), json_values.filter(lambda v: v is not None), max_size=4).map(
        lambda table: tomli_w.dumps({key: value for key, value in table.items()}).encode()
        if _tomlable(table) else b"x = 1"),
)


def _tomlable(value) -> bool:
    try:
        tomli_w.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=bad_contents, command=st.sampled_from(sorted(commands(Path("/nonexistent/just-the-names")))))
def test_generated_bad_files(tmp_path_factory, capsys, content, command):
    tmp = tmp_path_factory.mktemp("bad")
    path = tmp / "input"
    path.write_bytes(content)
    check(command, repr(content[:60]), commands(tmp)[command](str(path)), capsys)


BAD_LINES = ["", "not json", "[" * 100_000, "9" * 5000, '{"position": [1], "dice": [6, 5]}', "[]", "null",
             '{"position": {"variant": ["portes"]}, "dice": [6, 5]}', '{"dice": "65"}',
             json.dumps({"position": json.loads(PORTES), "dice": [6, 5], "reading": {"white": []}}),
             json.dumps({"position": json.loads(PORTES), "dice": [7, 0]}),
             json.dumps({"position": json.loads(PORTES), "dice": [6, 5], "rules": {"no_such_rule": 1}}),
             json.dumps({"position": json.loads(PORTES), "dice": [6, 5], "reading": json.loads(READING)})]


@pytest.mark.parametrize("command", [["moves", "--jsonl"], ["judge", "--jsonl"]])
def test_a_json_lines_stream_answers_every_line(capsys, command):
    lines = [line for line in BAD_LINES if line.strip()]
    code, out, err = run(command, capsys, stdin="\n".join(BAD_LINES) + "\n")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == len(lines), err
    assert sum("error" in answer for answer in answers) >= len(lines) - 2


LINE_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Zl", "Zp")), max_size=40)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.one_of(LINE_TEXT, json_values.map(json.dumps)), min_size=1, max_size=5),
       command=st.sampled_from([["moves", "--jsonl"], ["judge", "--jsonl"]]))
def test_generated_json_lines(lines, command):
    out = io.StringIO()
    old_stdin, old_stdout = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO("\n".join(lines) + "\n"), out
    try:
        assert main(command) == 0
    finally:
        sys.stdin, sys.stdout = old_stdin, old_stdout
    assert len(out.getvalue().splitlines()) == len([line for line in lines if line.strip()])


@pytest.mark.parametrize("command", [["moves", "--jsonl"], ["judge", "--jsonl"]])
def test_a_json_lines_stream_of_raw_bytes_answers_a_line_not_utf8_and_one_too_long(command, monkeypatch, capsys):
    raw = b"\xff\xfe not text\n" + b"[" * (2 * 1024 * 1024) + b"\n" + b"[]\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    assert main(command) == 0
    answers = [json.loads(line)["error"] for line in capsys.readouterr().out.splitlines()]
    assert len(answers) == 3 and "not UTF-8" in answers[0] and "longer than" in answers[1]


class _InterruptedStdin(io.StringIO):
    """Standard input on which the person presses Ctrl-C after the first line."""

    def __init__(self):
        super().__init__(json.dumps({"position": Position.start("portes").to_json(), "dice": [3, 1]}) + "\n")

    def readline(self, size=-1):
        line = super().readline(size)
        if not line:
            raise KeyboardInterrupt
        return line


@pytest.mark.parametrize("command", [["moves", "--jsonl"], ["hint", "--jsonl"]])
def test_ctrl_c_stops_a_command_in_one_line_after_the_answers_it_gave(command, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _InterruptedStdin())
    code = main(command)
    out, err = capsys.readouterr()
    assert code == 130 and err.strip() == f"tavli-board {command[0]}: stopped"
    assert len(out.splitlines()) == 1 and "error" not in json.loads(out)
