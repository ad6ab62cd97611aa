"""`tavli-board club`: a board's key, the hub as its own process on a real Mosquitto, and the hub's
records read and completed from the command line; a bad hub configuration is one line per problem."""
import json
import signal
import subprocess
import sys
import time

import pytest
from club_kit import hub_key_text
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.cli import main
from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings
from firmware_host.journal import Journal
from firmware_host.rules import Color, Rules
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import GameResult
from firmware_host.service.club import ClubPublisher

WAIT_S = 30


def hub_config(tmp_path, port: int, keys: dict, web_port: int) -> str:
    path = tmp_path / "hub.toml"
    boards = "".join(f'{name} = "{public_key_text(key)}"\n' for name, key in keys.items())
    path.write_text(f'club = "kefalonia"\ndatabase = "{tmp_path / "hub.sqlite3"}"\n[broker]\nhost = "127.0.0.1"\n'
                    f'port = {port}\n[boards]\n{boards}[web]\nport = {web_port}\n')
    return str(path)


def test_a_boards_key_is_printed_as_the_hubs_line(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text(f'[club]\nbroker = "127.0.0.1"\nboard = "table-3"\nkey_file = "{tmp_path / "k"}"\n')
    assert main(["club", "key", "--config", str(config)]) == 0
    first = capsys.readouterr().out
    assert first.startswith('table-3 = "') and main(["club", "key", "--config", str(config)]) == 0
    assert capsys.readouterr().out == first          # the same key: made once, kept


def test_the_hub_process_records_a_boards_match_and_the_ladder_rates_it_once_seated(tmp_path, broker, web_port, capsys):
    key = Ed25519PrivateKey.generate()
    config = hub_config(tmp_path, broker.port, {"table-1": key}, web_port)
    hub_key = hub_key_text(tmp_path)   # made before the hub starts, which reads it
    hub = subprocess.Popen([sys.executable, "-m", "firmware_host", "club", "hub", "--config", config],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    journal = Journal.open(tmp_path / "board.sqlite3")
    publisher = ClubPublisher(ClubSettings(broker="127.0.0.1", port=broker.port, club="kefalonia", board="table-1",
                                           hub_key=hub_key),
                              journal.path, key=key)
    publisher.start()
    try:
        assert "tavli-board club hub: club kefalonia, 1 boards" in hub.stdout.readline()
        journal.start_match(MatchRules(sequence="portes", target=1))
        journal.start_game("portes", Rules.for_variant("portes"), starter=Color.WHITE)
        journal.end_game(GameResult(Color.BLACK, 1, "bear-off"), Color.BLACK, "referee")
        publisher.journal_changed()
        deadline = time.monotonic() + WAIT_S
        while True:
            assert main(["club", "matches", "--config", config]) == 0
            matches = json.loads(capsys.readouterr().out)
            if matches and matches[0]["games"] and matches[0]["games"][0]["result"]:
                break
            assert time.monotonic() < deadline, "the match never reached the hub"
            time.sleep(0.2)
    finally:
        publisher.close()
        journal.close()
        hub.send_signal(signal.SIGTERM)
        hub.wait(WAIT_S)
    assert hub.returncode == 0
    match = matches[0]
    assert main(["club", "seat", "--config", config, "table-1", match["stream"], str(match["match"]), "anna", "babis"]) == 0
    capsys.readouterr()
    assert main(["club", "ladder", "--config", config]) == 0
    ladder = json.loads(capsys.readouterr().out)
    assert ladder["hitting"] == [{"player": "babis", "rating": 1510.0, "experience": 1},
                                 {"player": "anna", "rating": 1490.0, "experience": 1}]
    assert main(["club", "seat", "--config", config, "table-1", match["stream"], "99", "anna", "babis"]) == 2
    assert "no match 99 of table-1" in capsys.readouterr().err


@pytest.mark.parametrize("text, said", [
    ('club = "a b"\n[boards]\nt = "x"\n', ["club: 'a b' is not valid", "boards.t: not an Ed25519 public key"]),
    ('colour = 1\n[boards]\n', ["colour: unknown key", "boards: no board"]),
    ('[broker]\nport = "x"\nwho = 1\n[boards]\n', ["broker.port: 'x' is not valid", "broker.who: unknown key"]),
    ('not toml [', ["is not valid TOML"]),
    ('[boards]\n[web]\nport = 0\npin = "1234"\nwho = 1\n',
     ["web.port: 0 is not valid", "web.pin: is not a hashed PIN", "web.who: unknown key"]),
])
def test_a_bad_hub_configuration_names_every_problem(tmp_path, capsys, text, said):
    path = tmp_path / "hub.toml"
    path.write_text(text)
    assert main(["club", "ladder", "--config", str(path)]) == 2
    error = capsys.readouterr().err
    for words in said:
        assert words in error
    assert "Traceback" not in error


def test_a_relative_path_in_the_hub_configuration_is_beside_the_file(tmp_path, monkeypatch):
    from firmware_host.hub.config import load_hub_config
    path = tmp_path / "hub.toml"
    path.write_text(f'database = "records/hub.sqlite3"\n[broker]\nusername = "hub"\npassword_file = "secret"\n'
                    f'[boards]\nt1 = "{public_key_text(Ed25519PrivateKey.generate())}"\n')
    monkeypatch.chdir("/")
    config = load_hub_config(path)
    assert config.database == tmp_path / "records" / "hub.sqlite3" and config.password_file == tmp_path / "secret"
