"""`hint` writes each ranked play as `moves` writes a play (keys sorted, as json.dumps(...,
sort_keys=True) writes them), with the mover's chances and expected points: the text it renders
directly is the same, character for character, on positions with pins, hits, the game's end and
every game's start."""
import io
import json
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

from firmware_host.bot import Bot
from firmware_host.bot.players import ten_thousandths
from firmware_host.cli import main
from firmware_host.commands.bot import _chance_texts
from firmware_host.rules import VARIANTS, Position, Turn

POSITIONS = [(Position.start(variant), dice) for variant in VARIANTS for dice in ((6, 5), (3, 3))] + [
    (Position.from_json({"variant": "portes", "white": {"points": {"2": 1}, "off": 14},
                         "black": {"points": {"1": 1, "20": 14}}}), (4, 1)),   # the game's end
    (Position.from_json({"variant": "plakoto", "turn": "black",
                         "white": {"points": {"24": 12, "10": 1, "5": 2}},
                         "black": {"points": {"1": 13, "10": 1, "18": 1}}, "pinned": {"10": "white"}}), (3, 3)),
    (Position.from_json({"variant": "portes", "turn": "black",     # one play: no move (a closed board)
                         "white": {"points": {"6": 2, "5": 2, "4": 2, "3": 2, "2": 2, "1": 2, "13": 3}},
                         "black": {"points": {"12": 13}, "bar": 2}}), (6, 6)),
    (Position.from_json({"variant": "portes", "white": {"points": {"24": 2, "13": 4, "8": 2, "6": 4, "5": 2, "3": 1}},
                         "black": {"points": {"1": 2, "12": 4, "17": 3, "19": 4, "4": 1, "20": 1}}}), (4, 2)),
]


def expected_line(position: Position, dice: tuple[int, int]) -> str:
    turn = Turn(position, dice)
    ranked = Bot.trained(turn.rules).ranked(turn)
    return json.dumps({"plays": [dict(choice.play.to_json(), chances=choice.chances_json(),
                                      equity=round(choice.equity, 4)) for choice in ranked]}, sort_keys=True)


@pytest.mark.parametrize("position, dice", POSITIONS,
                         ids=[f"{p.variant}-{d[0]}{d[1]}-{i}" for i, (p, d) in enumerate(POSITIONS)])
def test_hint_jsonl_writes_the_sorted_json_of_the_ranked_plays(position, dice, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"position": position.to_json(),
                                                              "dice": list(dice)}) + "\n"))
    assert main(["hint", "--jsonl"]) == 0
    assert capsys.readouterr().out == expected_line(position, dice) + "\n"


@given(st.lists(st.one_of(st.floats(0, 1, width=32), st.integers(0, 32).map(lambda k: k / 32)), min_size=1))
def test_each_chance_is_written_as_repr_writes_it_rounded(chances):
    # `hint` looks a chance's text up by its ten-thousandths: the text of round(v, 4), halves to even.
    values = np.array(chances, np.float32)
    looked_up = [_chance_texts()[k] for k in ten_thousandths(values).astype(int).tolist()]
    assert looked_up == [repr(round(float(value), 4)) for value in values]
