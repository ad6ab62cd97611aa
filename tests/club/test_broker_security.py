"""The club's broker as `tavli-board club broker-config` writes it, run by a real Mosquitto: each board
writes only under its own topic and the hub only its acknowledgements (the broker drops the rest: the
hub never sees it), an unknown client or a wrong password is refused, no account takes over another's
connection by its client id, TLS works with the club's own CA and a plain connection to the TLS port
gets nowhere; a board's account that leaks still cannot make the hub keep a message its key did not
sign."""
import datetime
import ipaddress
import json
import threading
import time

import paho.mqtt.client as mqtt
import pytest
from club_kit import hub_key_text
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from firmware_host.cli import main
from firmware_host.club.envelope import Signer, public_key_text
from firmware_host.config import REMOTE_SEAT_ROLE, ClubSettings
from firmware_host.hub.config import load_hub_config
from firmware_host.hub.listener import HubListener
from firmware_host.hub.store import HubStore
from firmware_host.journal import Journal
from firmware_host.service.club import ClubPublisher, board_key, club_client

CLUB = "kefalonia"
WAIT_S = 20


def write_hub_config(tmp_path, port: int, boards: dict, *, tls_ca=None) -> str:
    path = tmp_path / "hub.toml"
    lines = "".join(f'{name} = "{public_key_text(key)}"\n' for name, key in boards.items())
    tls = f'tls = true\nca_file = "{tls_ca}"\n' if tls_ca else ""
    path.write_text(f'club = "{CLUB}"\ndatabase = "hub.sqlite3"\n[broker]\nhost = "127.0.0.1"\nport = {port}\n'
                    f'username = "hub"\npassword_file = "hub-password"\n{tls}[boards]\n{lines}')
    return str(path)


def broker_config(hub_toml: str, out, *extra: str) -> None:
    assert main(["club", "broker-config", "--config", hub_toml, "--out", str(out), "--bind", "127.0.0.1", *extra]) == 0


def connection(port: int, username=None, password=None, *, ca_file=None, tls=False) -> str:
    """What the broker answers a client: "Success", the reason it refused, or "no answer"."""
    answered, reasons = threading.Event(), []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"probe-{time.monotonic_ns()}")
    if username is not None:
        client.username_pw_set(username, password)
    if tls:
        client.tls_set(ca_certs=ca_file)

    def connected(client, userdata, flags, reason, properties):
        reasons.append(str(reason))
        answered.set()

    client.on_connect = connected
    client.on_disconnect = lambda *args: answered.set()
    try:
        client.connect("127.0.0.1", port, keepalive=10)
    except OSError as error:      # a TLS handshake refused (ssl.SSLError is an OSError)
        return f"no connection: {error}"
    deadline = time.monotonic() + 10
    while not answered.is_set() and time.monotonic() < deadline:   # the client's loop here: nothing to wait for after
        client.loop(timeout=0.05)
    client.disconnect()
    return reasons[0] if reasons else "no answer"


class Witness:
    """A client on a board's account that records every message of the club it may read."""

    def __init__(self, port: int, username: str, password: str):
        self.messages: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="witness")
        self.client.username_pw_set(username, password)
        self.client.on_connect = lambda client, *args: client.subscribe(f"tavli/{CLUB}/#", qos=1)
        self.client.on_subscribe = lambda *args: self.ready.set()
        self.client.on_message = lambda client, userdata, message: self.messages.append((message.topic, message.payload))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.ready.wait(WAIT_S), "the witness never subscribed"

    def topics(self) -> list[str]:
        return [topic for topic, _ in self.messages]

    def close(self) -> None:
        self.client.disconnect()   # first: it ends the client's loop at once
        self.client.loop_stop()


def logged_in(port: int, username: str, password: str, client: mqtt.Client | None = None,
              client_id: str | None = None) -> mqtt.Client:
    """`client` (or a new one, with `client_id`) connected with that account."""
    if client is None:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"{username}-by-hand")
        client.username_pw_set(username, password)
    connected = threading.Event()
    client.on_connect = lambda client, userdata, flags, reason, properties: reason.is_failure or connected.set()
    client.connect("127.0.0.1", port)
    client.loop_start()
    assert connected.wait(WAIT_S), f"{username} could not log in"
    return client


def publish(client: mqtt.Client, topic: str, payload) -> None:
    client.publish(topic, payload, qos=1).wait_for_publish(WAIT_S)


@pytest.fixture
def club(tmp_path, secured_broker):
    """Two registered boards and the hub on a broker locked by the files broker-config wrote."""
    port = secured_broker.port
    keys = {name: Ed25519PrivateKey.generate() for name in ("table-1", "table-2")}
    hub_toml = write_hub_config(tmp_path, port, keys)
    broker_config(hub_toml, tmp_path / "broker")
    secured_broker.start(tmp_path / "broker")
    passwords = {name: (tmp_path / "broker" / "boards" / f"{name}.password").read_text().strip() for name in keys}
    passwords["hub"] = (tmp_path / "hub-password").read_text().strip()
    return port, keys, passwords, hub_toml


def test_a_board_writes_only_under_its_own_topic_and_the_hub_only_its_acknowledgements(tmp_path, club, wait_for):
    port, keys, passwords, hub_toml = club
    config = load_hub_config(tmp_path / "hub.toml")
    witness = Witness(port, "table-2", passwords["table-2"])   # a board's account reads the whole club
    table_1 = logged_in(port, "table-1", passwords["table-1"])
    hub_account = logged_in(port, "hub", passwords["hub"])
    store = HubStore(config.database)
    hub = HubListener(store, CLUB, config.boards, board_key(config.key_file))
    try:
        record = {"seq": 1, "match": 1, "game": None, "kind": "match_started", "at": "2026-11-28T20:00:00.000Z"}
        # table-1 speaks for table-2, on table-2's topics and the hub's: the broker drops every one.
        forged = Signer("table-2", keys["table-1"]).seal("journal/x/1", 1, record)
        for leaf in ("journal", "view", "online"):
            publish(table_1, f"tavli/{CLUB}/table-2/{leaf}", json.dumps(forged))
        publish(table_1, f"tavli/{CLUB}/hub/ack/table-2", json.dumps({"stream": "journal/x/1", "seq": 0}))
        # The hub's account publishes a board's view: dropped too.
        publish(hub_account, f"tavli/{CLUB}/table-1/view", json.dumps(Signer("table-1", keys["table-1"]).seal("view", 1, {})))
        # A leaked account: table-1's login with a key that is not table-1's. The broker passes it (kept
        # for the hub, which connects below); the hub refuses it.
        table_1.publish(f"tavli/{CLUB}/table-1/journal", json.dumps(Signer("table-1", Ed25519PrivateKey.generate())
                                                                    .seal("journal/x/1", 1, record)),
                        qos=1, retain=True).wait_for_publish(WAIT_S)
        publish(table_1, f"tavli/{CLUB}/table-1/online", "1")     # what each account may write: these arrive
        publish(hub_account, f"tavli/{CLUB}/hub/ack/table-1", json.dumps({"stream": "journal/x/1", "seq": 0}))
        wait_for(lambda: {f"tavli/{CLUB}/table-1/online", f"tavli/{CLUB}/hub/ack/table-1"} <= set(witness.topics()),
                 "the messages each account may publish")
        assert not [topic for topic in witness.topics() if "table-2" in topic]
        assert f"tavli/{CLUB}/table-1/view" not in witness.topics()
        # The hub and the board, on their accounts (one connection per account: those by hand go first).
        for client in (table_1, hub_account):
            client.disconnect()   # first: it ends the client's loop at once
            client.loop_stop()
        hub.start("127.0.0.1", port, username="hub", password=config.password())
        wait_for(lambda: hub.refused["table-1"] == 1, "the leaked account's message refused by the hub")
        assert hub.refused == {"table-1": 1} and store.last_accepted() == {}
        # The board itself, with its account and its key, is taken in, and takes the hub's signed acknowledgement.
        journal = Journal.open(tmp_path / "board.sqlite3")
        journal.record_fault("sensor", "one")
        (tmp_path / "table-1.password").write_text(passwords["table-1"])
        board = ClubPublisher(ClubSettings(broker="127.0.0.1", port=port, club=CLUB, board="table-1", username="table-1",
                                           password_file=tmp_path / "table-1.password", hub_key=hub_key_text(tmp_path)),
                              journal.path, key=keys["table-1"])
        board.start()
        try:
            last = journal.tail(1)[0].seq
            wait_for(lambda: list(store.last_accepted().values()) == [last], "the board's records at the hub")
            held = {stream: seq for (_, stream), seq in store.last_accepted().items()}
            wait_for(lambda: board._hub_holds == held, "the hub's acknowledgement at the board")
        finally:
            board.close()
            journal.close()
    finally:
        for client in (table_1, hub_account):   # again, if it failed before
            client.disconnect()   # first: it ends the client's loop at once
            client.loop_stop()
        witness.close()
        hub.close()
        store.close()


def test_no_account_takes_over_another_ones_connection_by_its_client_id(tmp_path, club, wait_for):
    """MQTT drops the older of two connections with one client id. On the club's broker a connection's
    id is its account, so table-2's account connecting with table-1's client ids (those the board asks
    for, and those the broker gives it) leaves table-1's connections up; a board's two connections,
    its publisher's and its remote match's seat's, log in with two accounts, and the seat's reaches the
    other board's seat."""
    port, keys, passwords, hub_toml = club
    for name in keys:
        (tmp_path / f"{name}.password").write_text(passwords[name])
    settings = {name: ClubSettings(broker="127.0.0.1", port=port, club=CLUB, board=name, username=name,
                                   password_file=tmp_path / f"{name}.password") for name in keys}
    dropped: list[str] = []
    connections = {}
    for role in ("", REMOTE_SEAT_ROLE):
        client = club_client(settings["table-1"], role)
        client.on_disconnect = lambda *args, role=role: dropped.append(f"table-1{role}")
        connections[role] = logged_in(port, "table-1" + role, passwords["table-1"], client)
    received = threading.Event()
    other_seat = logged_in(port, "table-2" + REMOTE_SEAT_ROLE, passwords["table-2"],
                           club_client(settings["table-2"], REMOTE_SEAT_ROLE))
    intruders = []
    try:
        other_seat.on_message = lambda *args: received.set()
        other_seat.subscribe(f"tavli/{CLUB}/table-1/remote/table-2", qos=1)
        for client_id in ("tavli-kefalonia-table-1", "table-1", "tavli-kefalonia-table-1-remote", "table-1-remote"):
            intruders.append(logged_in(port, "table-2", passwords["table-2"], client_id=client_id))
        time.sleep(0.2)   # the subscription's acknowledgement
        publish(connections[REMOTE_SEAT_ROLE], f"tavli/{CLUB}/table-1/remote/table-2", "a play")
        assert received.wait(WAIT_S), "table-1's seat's message at table-2's seat"
        assert dropped == [] and all(client.is_connected() for client in connections.values())
    finally:
        for client in (*connections.values(), other_seat, *intruders):
            client.disconnect()   # first: it ends the client's loop at once
            client.loop_stop()


def test_an_unknown_client_or_a_wrong_password_is_refused(tmp_path, club):
    port, keys, passwords, hub_toml = club
    assert connection(port, "table-1", passwords["table-1"]) == "Success"
    for username, password in ((None, None), ("stranger", "guess"), ("table-1", "wrong"),
                               ("table-1", passwords["table-2"]), ("hub", "")):
        assert connection(port, username, password) != "Success", (username, password)


def test_written_again_for_a_new_board_the_passwords_made_are_kept(tmp_path, secured_broker, capsys):
    port = secured_broker.port
    keys = {"table-1": Ed25519PrivateKey.generate()}
    hub_toml = write_hub_config(tmp_path, port, keys)
    broker_config(hub_toml, tmp_path / "broker")
    hub_key_line = f'hub_key = "{hub_key_text(tmp_path)}"'   # the hub's key (hub.key beside hub.toml), for the boards
    assert hub_key_line in capsys.readouterr().out
    first = (tmp_path / "broker" / "boards" / "table-1.password").read_text()
    assert (tmp_path / "broker" / "boards" / "table-1.password").stat().st_mode & 0o777 == 0o600
    keys["table-9"] = Ed25519PrivateKey.generate()
    write_hub_config(tmp_path, port, keys)
    broker_config(hub_toml, tmp_path / "broker")
    assert hub_key_line in capsys.readouterr().out   # the same key: made once, kept
    secured_broker.start(tmp_path / "broker")
    assert (tmp_path / "broker" / "boards" / "table-1.password").read_text() == first
    for name in keys:
        password = (tmp_path / "broker" / "boards" / f"{name}.password").read_text().strip()
        assert connection(port, name, password) == "Success"
        assert connection(port, name + REMOTE_SEAT_ROLE, password) == "Success"   # its remote seat's account


def make_certificates(folder):
    """The club's own CA and the broker's certificate for 127.0.0.1 and localhost, as PEM files."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kefalonia club CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    server = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
              .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                          x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
              .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
              .sign(ca_key, hashes.SHA256()))
    paths = {name: folder / f"{name}.pem" for name in ("ca", "server", "server-key")}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths["server"].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths["server-key"].write_bytes(server_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                             serialization.NoEncryption()))
    return paths


def test_tls_with_the_clubs_own_ca_and_no_plain_connection_on_its_port(tmp_path, secured_broker, wait_for):
    port = secured_broker.port
    pem = make_certificates(tmp_path)
    key = Ed25519PrivateKey.generate()
    hub_toml = write_hub_config(tmp_path, port, {"table-1": key}, tls_ca=pem["ca"])
    broker_config(hub_toml, tmp_path / "broker", "--certfile", str(pem["server"]), "--keyfile", str(pem["server-key"]))
    secured_broker.start(tmp_path / "broker")
    password = (tmp_path / "broker" / "boards" / "table-1.password").read_text().strip()
    assert connection(port, "table-1", password, tls=True, ca_file=str(pem["ca"])) == "Success"
    plain = connection(port, "table-1", password)
    assert plain == "no answer" or plain.startswith("no connection"), plain
    assert "certificate verify failed" in connection(port, "table-1", password, tls=True)   # the system's CAs: not the club's
    # The hub and a board, as their configurations say, over TLS: the board's record reaches the hub.
    config = load_hub_config(tmp_path / "hub.toml")
    store = HubStore(config.database)
    hub = HubListener(store, CLUB, config.boards, board_key(config.key_file))
    hub.start(config.host, config.port, username=config.username, password=config.password(), tls=True,
              ca_file=str(config.ca_file))
    journal = Journal.open(tmp_path / "board.sqlite3")
    journal.record_fault("sensor", "one")
    board = ClubPublisher(ClubSettings(broker="127.0.0.1", port=port, club=CLUB, board="table-1", username="table-1",
                                       password_file=tmp_path / "broker" / "boards" / "table-1.password", tls=True,
                                       ca_file=pem["ca"], hub_key=hub_key_text(tmp_path)), journal.path, key=key)
    board.start()
    try:
        wait_for(lambda: len(store.last_accepted()) == 1, "the board's record at the hub, over TLS")
    finally:
        board.close()
        journal.close()
        hub.close()
        store.close()


@pytest.mark.parametrize("hub_extra, arguments, said", [
    ("tls_without_certificate", [], "broker.tls is true: give the broker's certificate"),
    ("", ["--certfile", "cert.pem", "--keyfile", "key.pem"], "a certificate was given but broker.tls is false"),
    ("", ["--certfile", "cert.pem"], "--certfile and --keyfile go together"),
    ("no_account", [], "broker.username and broker.password_file: the hub's account"),
    ("board_named_hub", [], "boards.hub: no board may be named 'hub'"),
    ("board_named_as_a_remote_seat", [], "boards.table-1-remote: no board may be named 'table-1-remote': "
                                         "it is the account of table-1's remote seat"),
])
def test_broker_config_says_what_keeps_it_from_writing(tmp_path, capsys, hub_extra, arguments, said):
    keys = {"hub" if hub_extra == "board_named_hub" else "table-1": Ed25519PrivateKey.generate()}
    if hub_extra == "board_named_as_a_remote_seat":
        keys["table-1-remote"] = Ed25519PrivateKey.generate()
    hub_toml = write_hub_config(tmp_path, 8883, keys, tls_ca="ca.pem" if hub_extra == "tls_without_certificate" else None)
    if hub_extra == "no_account":
        text = (tmp_path / "hub.toml").read_text().replace('username = "hub"\npassword_file = "hub-password"\n', "")
        (tmp_path / "hub.toml").write_text(text)
    assert main(["club", "broker-config", "--config", hub_toml, "--out", str(tmp_path / "out"), *arguments]) == 2
    error = capsys.readouterr().err
    assert said in error and "Traceback" not in error
    assert not (tmp_path / "out" / "passwords").exists()


def test_a_certificate_that_is_not_pem_is_named(tmp_path, capsys):
    (tmp_path / "cert.pem").write_text("not a certificate")
    hub_toml = write_hub_config(tmp_path, 8883, {"table-1": Ed25519PrivateKey.generate()}, tls_ca="ca.pem")
    assert main(["club", "broker-config", "--config", hub_toml, "--out", str(tmp_path / "out"),
                 "--certfile", str(tmp_path / "cert.pem"), "--keyfile", str(tmp_path / "missing.pem")]) == 2
    error = capsys.readouterr().err
    assert f"--certfile {tmp_path / 'cert.pem'}: not a PEM certificate" in error
    assert f"--keyfile {tmp_path / 'missing.pem'}: cannot be read: No such file or directory" in error
