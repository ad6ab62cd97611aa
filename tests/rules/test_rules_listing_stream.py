"""`moves` writes a long listing as it makes it (issue 29: a Gul Bara cascade of 733,804 plays took
4.7 GB as one text): each play is written and let go before the next is made, so what a listing
holds at once is the search's ends, not every play's objects and text."""
import gc
import io
import json
import sys

from firmware_host.cli import main
from firmware_host.commands.rules import plays_json
from firmware_host.rules import Play, Position, legal_plays

# Gul Bara after three turns each, 4-4 cascading through 4s, 5s and 6s: 22,316 distinct plays; the
# listing is cut by --max-plays where a test needs only its first hundreds.
CASCADE = Position.from_json({"variant": "gulbara", "turn": "white", "rolls": {"white": 3, "black": 3},
                              "white": {"points": {"14": 1, "22": 1, "23": 2, "24": 11}},
                              "black": {"points": {"12": 5, "2": 3, "4": 1, "5": 1, "6": 4, "8": 1}}})
PORTES = Position.start("portes")


def plays_alive() -> int:
    gc.collect()
    return sum(isinstance(thing, Play) for thing in gc.get_objects())


def test_the_listing_comes_in_pieces_and_each_play_is_let_go_once_written():
    before = plays_alive()
    pieces = plays_json(PORTES, [1, 1], None, 1000)
    assert next(pieces) == '{"plays": ['
    alive_while_written = [plays_alive() - before for _ in pieces]
    assert len(alive_while_written) == len(legal_plays(PORTES, (1, 1))) + 1 > 2
    assert max(alive_while_written) <= 1


def test_a_bad_request_and_too_many_plays_fail_before_any_piece_is_written(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"position": CASCADE.to_json(), "dice": [4, 4]}) + "\n"))
    assert main(["moves", "--jsonl", "--max-plays", "500"]) == 0
    (answer,) = capsys.readouterr().out.splitlines()
    assert "more than 500 distinct plays" in json.loads(answer)["error"]


def test_the_pieces_make_the_listing(capsys):
    assert main(["moves", "--dice", "1", "1"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing == {"plays": [play.to_json() for play in legal_plays(PORTES, (1, 1))]}
