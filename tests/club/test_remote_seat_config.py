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


def test_the_service_with_a_remote_match_plays_the_other_colour_from_the_broker(tmp_path):
    """`tavli-board run` with [club] opponent: the other colour is the remote seat and the dice are the
    ones both boards agree (none yet without the other board: a roll waits)."""
    import threading

    from firmware_host.config import load_config
    from firmware_host.service.remote_seat import AgreedDice
    from firmware_host.service.run import Service

    config_file = tmp_path / "config.toml"
    config_file.write_text(f'hardware = "simulated"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                           f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n'
                           f'[club]\nbroker = "127.0.0.1"\nport = 9\nboard = "table-1"\nkey_file = "{tmp_path / "key"}"\n'
                           f'opponent = "table-2"\nopponent_key = "{KEY}"\nseat = "black"\n')
    service = Service.open(load_config(config_file))
    runner = threading.Thread(target=service.run)
    runner.start()
    try:
        assert service.remote_seat is not None and isinstance(service.remote_seat.dice, AgreedDice)
        assert service.loop.controller.view().remote_seats == {WHITE}
        assert not service.remote_seat.dice.ready()
    finally:
        service.stop()
        runner.join(20)
    assert not runner.is_alive()


def test_a_remote_match_whose_broker_cannot_be_logged_in_to_stops_run_in_one_line(tmp_path):
    """A CA file that holds no certificate: the remote match cannot be played, and `tavli-board run`
    says so in one line, exit 2, rather than a traceback at start."""
    import subprocess
    import sys

    ca_file = tmp_path / "ca.pem"
    ca_file.write_text("not a certificate\n")
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'hardware = "simulated"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                           f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n'
                           f'[club]\nbroker = "127.0.0.1"\nport = 9\nboard = "table-1"\nkey_file = "{tmp_path / "key"}"\n'
                           f'tls = true\nca_file = "{ca_file}"\n'
                           f'opponent = "table-2"\nopponent_key = "{KEY}"\nseat = "black"\n')
    done = subprocess.run([sys.executable, "-m", "firmware_host", "run", "--config", str(config_file)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "the remote match cannot be played: club.ca_file:" in done.stderr
