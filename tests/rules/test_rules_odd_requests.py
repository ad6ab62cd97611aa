"""Generated odd requests to every JSON-lines command that reads a position (`moves`, `hint`,
`judge`): a good request with one value or key anywhere in it replaced by an odd one (other
scripts' digits, superscripts, huge and negative numbers, floats, nesting, empty and odd strings).
Every line gets one answer line, an {"error": ...} naming what is wrong or the answer, and the
good line after it is still answered: never a traceback (issue 29, item 5)."""
import io
import json
import sys

from hypothesis import given, settings, strategies as st

from firmware_host.cli import main
from firmware_host.rules import Position

GOOD = {
    "moves": {"position": Position.start("portes").to_json(), "dice": [6, 5]},
    "hint": {"position": Position.start("plakoto").to_json(), "dice": [3, 1]},
    "judge": {"position": Position.start("fevga").to_json(), "dice": [6, 5],
              "reading": {key: value for key, value in Position.start("fevga").to_json().items()
                          if key in ("variant", "white", "black")}},
}

odd_text = st.sampled_from(["²⁴", "²", "٣", "１", "01", "25", "-1", "3\n", ""]) | st.text(
    alphabet=st.characters(categories=("Nd", "No", "Nl", "Zs", "Cf", "So", "Lo")) | st.sampled_from("0123456789-+.e\n\"\\"),
    max_size=6)
odd_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | odd_text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(odd_text, children, max_size=3),
    max_leaves=6)


def paths(value, path=()):
    """Every place in a JSON value: the path of keys and indexes to it."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, path + (index,))


@st.composite
def odd_request(draw, command: str):
    request = json.loads(json.dumps(GOOD[command]))
    every = list(paths(request))[1:]
    points = [path for path in every if len(path) >= 2 and path[-2] == "points"]   # half the time
    path = draw(st.sampled_from(points if draw(st.booleans()) else every))
    parent = request
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if isinstance(parent, dict) and draw(st.booleans()):   # the key replaced, its value kept
        parent[draw(odd_text)] = parent.pop(last)
    else:
        parent[last] = draw(odd_values)
    return request


@settings(max_examples=120, deadline=None)
@given(data=st.data(), command=st.sampled_from(sorted(GOOD)))
def test_every_odd_request_is_answered_and_the_next_line_too(data, command):
    requests = [data.draw(odd_request(command)) for _ in range(data.draw(st.integers(1, 3)))]
    good = json.dumps(GOOD[command])
    lines = [line for request in requests for line in (json.dumps(request), good)]
    out, old = io.StringIO(), (sys.stdin, sys.stdout)
    sys.stdin, sys.stdout = io.StringIO("\n".join(lines) + "\n"), out
    try:
        assert main([command, "--jsonl"]) == 0
    finally:
        sys.stdin, sys.stdout = old
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == len(lines)
    assert all("error" not in answer for answer in answers[1::2])   # the good lines
    assert all(answer["error"].startswith("line ") and "\n" not in answer["error"]
               for answer in answers[::2] if "error" in answer)
