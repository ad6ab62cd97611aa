"""[club] opponent, opponent_key and seat: a remote match's three keys, checked with the rest of the
configuration, each bad value named in one line with what is allowed."""
import base64

import pytest

from firmware_host.config import ConfigError, parse_config
from firmware_host.rules import BLACK, WHITE

KEY = base64.b64encode(bytes(range(32))).decode()


def club(**keys):
    return {"club": {"broker": "127.0.0.1", "board": "table-1", **keys}}


def problems(document) -> str:
    with pytest.raises(ConfigError) as refused:
        parse_config(document, "c.toml")
    return str(refused.value)


def test_a_remote_match_seats_this_boards_player_and_the_other_colour_is_the_opponent_boards():
    settings = parse_config(club(opponent="table-2", opponent_key=KEY, seat="black"), "c.toml").club
    assert (settings.opponent, settings.opponent_key, settings.seat) == ("table-2", KEY, BLACK)
    assert settings.remote_seats == {WHITE}
    assert parse_config(club(), "c.toml").club.remote_seats == frozenset()


@pytest.mark.parametrize("keys, expected", [
    ({"opponent": "table-1", "opponent_key": KEY, "seat": "white"}, "club.opponent: 'table-1' is not valid"),
    ({"opponent": "table 2", "opponent_key": KEY, "seat": "white"}, "club.opponent: 'table 2' is not valid"),
    ({"opponent": "table-2", "opponent_key": "not a key", "seat": "white"}, "club.opponent_key: 'not a key' is not valid"),
    ({"opponent": "table-2", "opponent_key": base64.b64encode(b"short").decode(), "seat": "white"},
     "club.opponent_key"),
    ({"opponent": "table-2", "opponent_key": KEY, "seat": "red"}, "club.seat: 'red' is not valid; allowed: \"white\", \"black\""),
    ({"opponent": "table-2", "seat": "white"}, "club.opponent_key: is missing"),
])
def test_a_bad_remote_match_is_named_key_by_key(keys, expected):
    assert expected in problems(club(**keys))


def test_the_opponent_boards_colour_cannot_also_be_the_bots():
    found = problems({**club(opponent="table-2", opponent_key=KEY, seat="white"), "match": {"black": "bot"}})
    assert "match.black" in found and "the opponent board plays this colour" in found


def test_a_remote_match_needs_a_broker():
    found = problems({"club": {"board": "table-1", "opponent": "table-2", "opponent_key": KEY, "seat": "white"}})
    assert "club.broker: is missing" in found
