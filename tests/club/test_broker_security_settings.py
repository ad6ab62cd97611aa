"""A board's [club] and the hub's [broker] take the broker's account (username with a password_file) and
TLS (tls with a ca_file); settings that cannot work together are named when the file is read, and a
password or CA file that cannot be used is one line: the hub does not start, the board referees without
publishing."""
import logging

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.cli import main
from firmware_host.club.envelope import public_key_text
from firmware_host.config import ClubSettings, ConfigError, load_config
from firmware_host.hub.config import HubConfigError, load_hub_config
from firmware_host.service.club import ClubPublisher, ClubUnavailable

KEY = public_key_text(Ed25519PrivateKey.generate())
# Each file's section and how it is read: a board's [club], the hub's [broker].
READERS = {"club": ('[club]\nbroker = "club.local"\nboard = "table-3"\n', "", load_config, ConfigError),
           "broker": ("[broker]\n", f'[boards]\nt1 = "{KEY}"\n', load_hub_config, HubConfigError)}


@pytest.mark.parametrize("section", READERS)
@pytest.mark.parametrize("lines, said", [
    ('username = "table-3"\n', "password_file: is missing (with username)"),
    ('password_file = "secret"\n', "username: is missing (with password_file)"),
    ('ca_file = "ca.pem"\n', "ca_file: is set but tls is false"),
])
def test_account_and_tls_settings_that_cannot_work_together_are_named(tmp_path, section, lines, said):
    before, after, load, refusal = READERS[section]
    path = tmp_path / "config.toml"
    path.write_text(before + lines + after)
    with pytest.raises(refusal) as refused:
        load(path)
    assert f"{path}: {section}.{said}" in str(refused.value)


def test_a_board_that_cannot_use_its_password_or_ca_file_says_which(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    missing = ClubSettings(broker="127.0.0.1", board="table-3", username="table-3", password_file=tmp_path / "nothing",
                           hub_key=KEY)
    with pytest.raises(ClubUnavailable, match=f"club.password_file: {tmp_path / 'nothing'} cannot be read: No such file"):
        ClubPublisher(missing, journal, key=Ed25519PrivateKey.generate())
    (tmp_path / "ca.pem").write_text("not a certificate")
    not_pem = ClubSettings(broker="127.0.0.1", board="table-3", tls=True, ca_file=tmp_path / "ca.pem", hub_key=KEY)
    with pytest.raises(ClubUnavailable, match=f"club.ca_file: {tmp_path / 'ca.pem'} cannot be used: .*NO_CERTIFICATE"):
        ClubPublisher(not_pem, journal, key=Ed25519PrivateKey.generate())


def test_the_service_referees_when_its_club_password_cannot_be_read(tmp_path, caplog):
    from firmware_host.service.run import Service

    config_file = tmp_path / "config.toml"
    config_file.write_text(f'hardware = "simulated"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                           f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n'
                           f'[club]\nbroker = "127.0.0.1"\nboard = "table-3"\nkey_file = "{tmp_path / "key"}"\n'
                           f'username = "table-3"\npassword_file = "{tmp_path / "not-copied-yet"}"\nhub_key = "{KEY}"\n')
    with caplog.at_level(logging.ERROR):
        service = Service.open(load_config(config_file))
    service.stop()
    service.run()
    assert service.club is None
    assert f"club: not publishing: club.password_file: {tmp_path / 'not-copied-yet'} cannot be read" in caplog.text


@pytest.mark.parametrize("broker, said", [
    ('username = "hub"\npassword_file = "hub-password"\n', "broker.password_file: {}/hub-password cannot be read: No such file"),
    ('tls = true\nca_file = "ca.pem"\n', "broker.ca_file: {}/ca.pem cannot be used: [X509: NO_CERTIFICATE_OR_CRL_FOUND]"),
])
def test_the_hub_that_cannot_use_its_password_or_ca_file_does_not_start(tmp_path, capsys, broker, said):
    (tmp_path / "ca.pem").write_text("not a certificate")
    path = tmp_path / "hub.toml"
    path.write_text(f'database = "hub.sqlite3"\n[broker]\n{broker}[boards]\nt1 = "{KEY}"\n')
    assert main(["club", "hub", "--config", str(path)]) == 2
    error = capsys.readouterr().err
    assert said.format(tmp_path) in error and "Traceback" not in error


def test_a_board_without_the_hubs_key_or_with_a_bad_one_says_so(tmp_path):
    """The hub's acknowledgements are taken only with the hub's key: a [club] without one does not
    publish (the board referees), and a key that is not one is named when the file is read."""
    with pytest.raises(ClubUnavailable, match="club.hub_key is not set"):
        ClubPublisher(ClubSettings(broker="127.0.0.1", board="table-3"), tmp_path / "journal.sqlite3",
                      key=Ed25519PrivateKey.generate())
    path = tmp_path / "config.toml"
    path.write_text(READERS["club"][0] + 'hub_key = "not a key"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert "club.hub_key: 'not a key' is not valid; allowed: the hub's key, as `tavli-board club broker-config` prints it" \
        in str(refused.value)
