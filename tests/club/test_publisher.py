"""A board publishes its view and every journal record to a real Mosquitto broker, signed; with the
broker killed (kill -9) and restarted, and records made while it was down, every record arrives
exactly once and in order, and the view is retained for a screen that subscribes later."""
import itertools
import json
import logging
import threading
import time
from types import SimpleNamespace

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.envelope import EnvelopeRefused, Signer, Verifier, public_key_text
from firmware_host.config import ClubSettings
from firmware_host.journal import Journal
from firmware_host.service.club import ClubPublisher, board_key

WAIT_S = 20
HUB_KEY = Ed25519PrivateKey.generate()   # the club's hub's: it signs the acknowledgements these boards take
ACKNOWLEDGEMENTS = itertools.count(1)    # the hub numbers its acknowledgements upward


class Screen:
    """A subscriber that opens every envelope as the club's hub does, and counts what it refused."""

    def __init__(self, port: int, key):
        self.verifier = Verifier({"table-3": key.public_key()})
        self.records: list[int] = []
        self.faults: list[str] = []   # the faults among the records
        self.views: list[dict] = []
        self.refused: list[str] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="screen")
        self.client.on_connect = lambda client, *args: client.subscribe("tavli/kefalonia/#", qos=1)
        self.client.on_message = self.received
        self.client.reconnect_delay_set(0.2, 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def received(self, client, userdata, message) -> None:
        if message.topic.endswith("/online"):
            return
        with self.lock:
            try:
                board, stream, seq, body = self.verifier.open(json.loads(message.payload))
            except EnvelopeRefused as refused:
                self.refused.append(str(refused))
                return
            (self.views if stream == "view" else self.records).append(body if stream == "view" else seq)
            if stream != "view" and body.get("kind") == "fault":
                self.faults.append(body["fault"])

    def close(self) -> None:
        self.client.disconnect()   # first: it ends the client's loop at once
        self.client.loop_stop()


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture
def key():
    return Ed25519PrivateKey.generate()


def club(port: int) -> ClubSettings:
    return ClubSettings(broker="127.0.0.1", port=port, club="kefalonia", board="table-3", hub_key=public_key_text(HUB_KEY))


def test_every_record_arrives_once_in_order_across_a_broker_killed_and_restarted(tmp_path, broker, key):
    journal = Journal.open(tmp_path / "journal.sqlite3", wall_clock=lambda: 1_790_000_000.0)
    for number in range(20):
        journal.record_fault("sensor", f"fault {number}")
    screen = Screen(broker.port, key)
    publisher = ClubPublisher(club(broker.port), journal.path, key=key)
    publisher.start()
    try:
        expected = [event.seq for event in journal.tail(1000)]
        wait_for(lambda: screen.records == expected, "the first records on the screen")
        broker.kill()                       # the club's broker dies; the board goes on refereeing
        for number in range(30):
            journal.record_fault("sensor", f"while offline {number}")
        publisher.journal_changed()
        time.sleep(1)
        broker.start()
        expected = [event.seq for event in journal.tail(1000)]
        wait_for(lambda: screen.records == expected, "every record once, in order, after the restart")
        assert not [refusal for refusal in screen.refused if "forged" in refusal]
    finally:
        publisher.close()
        screen.close()
        journal.close()
    # The acknowledged progress is kept beside the journal: a restarted board sends nothing twice.
    progress = json.loads((tmp_path / "journal.sqlite3-club.json").read_text())
    assert list(progress["journal"].values()) == [expected[-1]]


def test_the_view_is_retained_for_a_screen_that_subscribes_later(tmp_path, broker, key):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    publisher = ClubPublisher(club(broker.port), journal.path, key=key)
    publisher.start()
    try:
        publisher.show({"state": "moving", "turn": "white"})
        publisher.show({"state": "moving", "turn": "black"})
        time.sleep(1)
        screen = Screen(broker.port, key)
        wait_for(lambda: screen.views, "the retained view")
        assert screen.views[-1] == {"state": "moving", "turn": "black"}
        screen.close()
    finally:
        publisher.close()
        journal.close()


def test_a_message_from_another_key_is_refused_by_the_screen(tmp_path, broker, key):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.record_fault("sensor", "one")
    screen = Screen(broker.port, key)
    impostor = ClubPublisher(club(broker.port), journal.path, key=Ed25519PrivateKey.generate())
    impostor.start()
    try:
        wait_for(lambda: screen.refused, "the impostor's messages refused")
        assert screen.records == [] and all("signature does not match" in refusal for refusal in screen.refused)
    finally:
        impostor.close()
        screen.close()
        journal.close()


def test_the_boards_key_is_made_once_and_kept_private(tmp_path):
    path = tmp_path / "state" / "club-board.key"
    first = board_key(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert board_key(path).public_key().public_bytes_raw() == first.public_key().public_bytes_raw()


def test_the_service_in_a_club_publishes_its_view_and_journal_as_it_referees(tmp_path, broker, key):
    """`tavli-board run` with [club]: the service on the simulated board, its view and journal on the
    broker; refereeing starts whether or not the broker is there."""
    from firmware_host.config import load_config
    from firmware_host.service.run import Service
    from firmware_host.service.club import board_key

    key_file = tmp_path / "club.key"
    signing = board_key(key_file)
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'hardware = "simulated"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                           f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n'
                           f'[club]\nbroker = "127.0.0.1"\nport = {broker.port}\nclub = "kefalonia"\n'
                           f'board = "table-3"\nkey_file = "{key_file}"\nhub_key = "{public_key_text(HUB_KEY)}"\n')
    screen = Screen(broker.port, signing)
    service = Service.open(load_config(config_file))
    runner = threading.Thread(target=service.run)
    runner.start()
    try:
        wait_for(lambda: screen.views and screen.views[-1]["state"] == "opening_roll", "the service's view")
        assert screen.views[-1]["match"]["sequence"] == ["portes", "plakoto", "fevga"]
        wait_for(lambda: len(screen.records) >= 3, "the service's journal records")
        assert screen.records == list(range(screen.records[0], screen.records[0] + len(screen.records)))
        # Someone on the broker says, as the hub, that the hub holds everything: not signed by the hub's
        # key, so refused; the fault is journaled (and published) and shown, as a remote seat's refusals.
        forged = Signer("hub", Ed25519PrivateKey.generate()).seal("ack/table-3", 1, {"stream": "journal/x/1", "seq": 10**6})
        screen.client.publish("tavli/kefalonia/hub/ack/table-3", json.dumps(forged), qos=1).wait_for_publish(WAIT_S)
        wait_for(lambda: "hub_refused" in screen.faults, "the refused acknowledgement journaled and published")
        assert "the signature does not match" in service.loop.controller.view().remote_fault
    finally:
        service.stop()
        runner.join(20)
        screen.close()


class InstantClient:
    """A paho client that is always connected and has every message acknowledged at once."""

    def __init__(self, *args, **kwargs):
        self.sent: list[tuple[str, dict]] = []

    def publish(self, topic, payload, qos=0, retain=False):
        self.sent.append((topic, json.loads(payload)))
        return SimpleNamespace(wait_for_publish=lambda timeout=None: None, is_published=lambda: True)

    def is_connected(self) -> bool:
        return True

    def __getattr__(self, name):   # the setters, connect, the loop: nothing to do
        return lambda *args, **kwargs: None

    def journal_seqs(self) -> list[int]:
        return [envelope["seq"] for topic, envelope in self.sent if topic.endswith("/journal")]


def test_a_record_committed_just_after_the_journal_was_read_is_sent_at_once(tmp_path, monkeypatch, key):
    """The journal is opened at most twice a second when nothing was committed, but a committed record
    does not wait for that: with the publisher's clock stopped, it is still sent (it never was, before:
    a play right after an idle read waited for the next one, up to a second, the p95 of the club's bench)."""
    import firmware_host.service.club as club_module

    monkeypatch.setattr(club_module, "time", SimpleNamespace(monotonic=lambda: 1000.0, sleep=time.sleep))
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.record_fault("sensor", "one")
    publisher = ClubPublisher(club(1883), journal.path, key=key, client_factory=InstantClient)
    publisher.start()
    try:
        wait_for(lambda: publisher.client.journal_seqs() == [event.seq for event in journal.tail(100)], "the first records")
        later = journal.record_fault("sensor", "two")
        publisher.observe({"state": "moving"}, None)
        wait_for(lambda: later in publisher.client.journal_seqs(), "the record committed after the journal was read")
    finally:
        publisher.close()
        journal.close()


class FailingOnceClient(InstantClient):
    """The connection lost while the first journal record waits for the broker (paho raises then)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.failed = False

    def publish(self, topic, payload, qos=0, retain=False):
        info = super().publish(topic, payload, qos, retain)
        if topic.endswith("/journal") and not self.failed:
            self.failed = True
            self.sent.pop()

            def lost(timeout=None):
                raise RuntimeError("Message publish failed: The client is not currently connected.")
            info.wait_for_publish = lost
        return info


def test_a_connection_lost_while_sending_is_no_error_and_the_record_goes_again(tmp_path, caplog, key):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.record_fault("sensor", "one")
    publisher = ClubPublisher(club(1883), journal.path, key=key, client_factory=FailingOnceClient)
    with caplog.at_level(logging.INFO, logger="firmware_host.service.club"):
        publisher.start()
        try:
            wait_for(lambda: publisher.client.journal_seqs() == [event.seq for event in journal.tail(100)], "every record")
        finally:
            publisher.close()
            journal.close()
    assert publisher.client.failed and "connection lost while sending" in caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR or record.exc_info]


def hub_says(publisher: ClubPublisher, stream: str, seq: int, *, number: int | None = None,
             signer: Signer = Signer("hub", HUB_KEY), payload: bytes | None = None) -> SimpleNamespace:
    """The hub's acknowledgement to `publisher`'s board, signed and numbered, as the broker delivers
    it (or what `signer` signs, or `payload` as it is)."""
    number = next(ACKNOWLEDGEMENTS) if number is None else number
    envelope = signer.seal(f"ack/{publisher.club.board}", number, {"stream": stream, "seq": seq})
    return SimpleNamespace(topic=f"tavli/{publisher.club.club}/hub/ack/{publisher.club.board}",
                           payload=payload if payload is not None else json.dumps(envelope).encode())


def test_a_hub_that_says_again_what_it_holds_gets_what_followed_at_once(tmp_path, monkeypatch, key):
    """The hub, killed and started again, missed what came meanwhile; at the next record it says again
    the last it holds, and the board sends everything after that at once, not once it has been idle
    for a while (which, at a quick game's pace, may never come: HUB_LAG_S made endless here)."""
    import firmware_host.service.club as club_module

    monkeypatch.setattr(club_module, "HUB_LAG_S", 10**9)
    journal = Journal.open(tmp_path / "journal.sqlite3")
    first = journal.record_fault("sensor", "one")
    publisher = ClubPublisher(club(1883), journal.path, key=key, client_factory=InstantClient)

    def hub_holds(seq: int) -> None:
        stream = next(envelope["stream"] for topic, envelope in publisher.client.sent if topic.endswith("/journal"))
        publisher._hub_ack(None, None, hub_says(publisher, stream, seq))

    publisher.start()
    try:
        wait_for(lambda: first in publisher.client.journal_seqs(), "the first record")
        hub_holds(first)
        missed = [journal.record_fault("sensor", "while the hub was down") for _ in range(3)]
        publisher.journal_changed()
        wait_for(lambda: publisher.client.journal_seqs()[-1] == missed[-1], "the records the hub missed")
        hub_holds(first)                                   # the hub is back: it holds no more than that
        wait_for(lambda: publisher.client.journal_seqs().count(missed[-1]) == 2, "the missed records sent again")
        assert publisher.client.journal_seqs()[-3:] == missed
        # The records sent before the hub came back each get the same word: echoes, not a new request.
        hub_holds(first)
        marker = journal.record_fault("sensor", "after the echo")
        publisher.journal_changed()
        wait_for(lambda: marker in publisher.client.journal_seqs(), "the next record")
        assert publisher.client.journal_seqs().count(missed[-1]) == 2
    finally:
        publisher.close()
        journal.close()


def test_a_board_back_online_awaits_the_hubs_word_and_sends_its_offline_records_once(tmp_path, key):
    """Back from a while offline, the board first hears where the hub stands (its retained
    acknowledgement), then sends what it recorded meanwhile: once (it sent them all, then went back to
    the hub's word and sent them again, before)."""
    journal = Journal.open(tmp_path / "journal.sqlite3")
    before = journal.record_fault("sensor", "before going offline")
    first = ClubPublisher(club(1883), journal.path, key=key, client_factory=InstantClient)
    first.start()
    wait_for(lambda: before in first.client.journal_seqs(), "the records before going offline")
    stream = next(envelope["stream"] for topic, envelope in first.client.sent if topic.endswith("/journal"))
    first.close()
    offline = [journal.record_fault("sensor", "while offline") for _ in range(5)]
    back = ClubPublisher(club(1883), journal.path, key=key, client_factory=InstantClient)
    back.start()
    try:
        back._connected(back.client, None, None, SimpleNamespace(is_failure=False), None)
        time.sleep(0.5)                    # the broker hands over the hub's retained word soon after
        back._hub_ack(None, None, hub_says(back, stream, before))
        wait_for(lambda: offline[-1] in back.client.journal_seqs(), "the records made offline")
        marker = journal.record_fault("sensor", "back")
        back.journal_changed()
        wait_for(lambda: marker in back.client.journal_seqs(), "the next record")
        assert back.client.journal_seqs() == offline + [marker]
    finally:
        back.close()
        journal.close()


@pytest.mark.parametrize("attack", ["unsigned", "replayed"])
def test_an_acknowledgement_the_hub_did_not_sign_now_trims_nothing(tmp_path, monkeypatch, key, attack):
    """Records the hub lacks, and an acknowledgement that says it holds them all: not signed (as every
    acknowledgement was, before), or the hub's own but older than the last taken (from before the hub
    lost records). Refused, a `hub_refused` fault: the board still sends them again once the hub has
    lagged (nothing lost)."""
    import firmware_host.service.club as club_module

    monkeypatch.setattr(club_module, "HUB_LAG_S", 1.0)
    journal = Journal.open(tmp_path / "journal.sqlite3")
    first = journal.record_fault("sensor", "one")
    faults = []
    publisher = ClubPublisher(club(1883), journal.path, key=key, post=faults.append, client_factory=InstantClient)
    publisher.start()
    try:
        wait_for(lambda: first in publisher.client.journal_seqs(), "the first record")
        stream = next(envelope["stream"] for topic, envelope in publisher.client.sent if topic.endswith("/journal"))
        publisher._hub_ack(None, None, hub_says(publisher, stream, first, number=20))
        missed = [journal.record_fault("sensor", "the hub lacks it") for _ in range(3)]
        publisher.journal_changed()
        wait_for(lambda: publisher.client.journal_seqs()[-1] == missed[-1], "the records the hub lacks")
        claim = {"payload": json.dumps({"stream": stream, "seq": missed[-1]}).encode()} if attack == "unsigned" \
            else {"number": 19}
        publisher._hub_ack(None, None, hub_says(publisher, stream, missed[-1], **claim))
        wait_for(lambda: publisher.client.journal_seqs().count(missed[-1]) == 2, "the records sent again")
        assert publisher.client.journal_seqs()[-3:] == missed
        assert [fault.fault for fault in faults] == ["hub_refused"]
        assert publisher._hub_holds == {stream: first}
    finally:
        publisher.close()
        journal.close()


def test_the_hubs_own_acknowledgement_is_taken_again_after_a_restart_and_no_other(tmp_path, key):
    """The hub's acknowledgement, signed and newer than the last, is taken; the broker's retained copy
    of it, handed over at every connection, is taken again, by the board restarted too; an older one
    (after the restart as well), one signed by another key and the hub's to another board are not."""
    journal = Journal.open(tmp_path / "journal.sqlite3")
    records = [journal.record_fault("sensor", "one") for _ in range(2)]
    faults = []
    first = ClubPublisher(club(1883), journal.path, key=key, post=faults.append, client_factory=InstantClient)
    first.start()
    wait_for(lambda: records[-1] in first.client.journal_seqs(), "the records")
    stream = next(envelope["stream"] for topic, envelope in first.client.sent if topic.endswith("/journal"))
    first._hub_ack(None, None, hub_says(first, stream, records[0], number=5))
    first._hub_ack(None, None, hub_says(first, stream, records[-1], number=7))
    retained = hub_says(first, stream, records[-1], number=7)
    first._hub_ack(None, None, retained)
    wait_for(lambda: json.loads(first.progress.path.read_text())["hub_acknowledgement"] == 7, "the number kept")
    first.close()
    back = ClubPublisher(club(1883), journal.path, key=key, post=faults.append, client_factory=InstantClient)
    back._hub_ack(None, None, retained)
    assert back._hub_holds == {stream: records[-1]} and faults == []
    for refused in (hub_says(back, stream, records[0], number=5),
                    hub_says(back, stream, records[0], signer=Signer("hub", Ed25519PrivateKey.generate())),
                    hub_says(back, stream, records[0], payload=json.dumps(Signer("hub", HUB_KEY).seal(
                        "ack/table-4", 100, {"stream": stream, "seq": records[0]})).encode())):
        back._fault_at = float("-inf")   # each journaled (at most one every few seconds otherwise)
        back._hub_ack(None, None, refused)
    assert back._hub_holds == {stream: records[-1]}
    assert [fault.fault for fault in faults] == ["hub_refused"] * 3
    assert ["an old acknowledgement" in faults[0].message, "the signature does not match" in faults[1].message,
            "an acknowledgement for 'ack/table-4', not ack/table-3" in faults[2].message] == [True] * 3
    journal.close()
