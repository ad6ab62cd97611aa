"""The board's side of a club: its view and its journal published to the club's MQTT broker.

Refereeing never waits for the network. The loop's observer only keeps the latest view and wakes
the publisher's thread; everything else happens there. The journal is the outbox: every record after
the last one sent is published in order, one at a time (MQTT QoS 1, each acknowledged by the broker
before the next), and the number of the last sent is kept in a small file beside the journal. The
club's hub says which record it holds last (`tavli/CLUB/hub/ack/BOARD`, retained): at every
(re)connection, when the hub says again what it holds (it missed what followed: it was down), and
whenever the hub lags for a while, the board sends again from there, so what a
broker lost when it died, or what came while the hub was down, still arrives. A board offline for an
hour publishes everything it recorded meanwhile when it is back; a record sent twice carries the same
number, and the hub takes it once.

Topics, under the club's and the board's names (`[club]` in the config):

    tavli/CLUB/BOARD/view      the board as it stands (retained: a screen that subscribes sees it at once)
    tavli/CLUB/BOARD/journal   every journal record: matches, rolls, plays, game and match ends, faults
    tavli/CLUB/BOARD/online    "1" while connected, "0" (the broker's last will) once it is not
    tavli/CLUB/hub/ack/BOARD   (read) the last record of this board the hub holds

Each view and journal message is an envelope signed with the board's Ed25519 key
(firmware_host/club/envelope.py): `tavli-board club key` prints the public key for the club's
director to register. The hub's acknowledgements are signed by the hub's key (`hub_key` in [club]);
one that key did not sign, for another board, or older than the last taken (a replay) is refused:
a `hub_refused` fault is journaled and shown, and the board goes on as before it came (what the hub
may lack stays to be sent again; nothing is dropped on its word). The broker's password is read from `password_file` (never from the config
itself); with `tls = true` the connection is TLS, checked against `ca_file` or the system's CAs.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (Encoding, NoEncryption, PrivateFormat,
                                                          load_pem_private_key)

from firmware_host.club.envelope import (HUB, AlreadyAccepted, EnvelopeRefused, Signer, Verifier,
                                         acknowledgement_stream, acknowledgement_topic, public_key_from_text)
from firmware_host.config import ClubSettings
from firmware_host.controller.remote import RemoteFault
from firmware_host.journal import JournalReader

log = logging.getLogger(__name__)

ACK_TIMEOUT_S = 10      # a message not acknowledged by then is sent again after a reconnection
BATCH = 200             # records read from the journal at a time
FAULT_INTERVAL_S = 5.0  # refused acknowledgements journaled at most this often (each is logged)
HUB_LAG_S = 5           # the hub still short of what was sent this long after the last send: send again
HUB_WAIT_S = 2          # after a (re)connection, the hub's word (retained) is awaited this long before sending
VIEW_INTERVAL_S = 0.5   # at most two views a second: a screen needs no more, a broker of 100 boards less


def topic(club: ClubSettings, leaf: str) -> str:
    return f"tavli/{club.club}/{club.board}/{leaf}"


def club_client(club: ClubSettings, role: str, client_factory: Callable[..., Any] | None = None) -> Any:
    """A paho client for this board on the club's broker (its credentials, TLS), not yet connected;
    `role` ("" or `REMOTE_SEAT_ROLE`) names it among the board's clients and follows the board's
    account name: the club's broker names each connection by its account (`use_username_as_clientid`),
    and drops a connection when another comes with its name."""
    import paho.mqtt.client as mqtt   # the club extra; only a board in a club needs it

    client = (client_factory or mqtt.Client)(mqtt.CallbackAPIVersion.VERSION2,
                                             client_id=f"tavli-{club.club}-{club.board}{role}")
    if club.username is not None:   # the configuration gives a password_file with a username
        try:
            client.username_pw_set(club.username + role, club.password_file.read_text().strip())
        except OSError as error:
            raise ClubUnavailable(f"club.password_file: {club.password_file} cannot be read: {error.strerror}") from None
    if club.tls:
        try:
            client.tls_set(ca_certs=str(club.ca_file) if club.ca_file else None)
        except OSError as error:   # ssl.SSLError (a file that holds no certificate) is an OSError
            raise ClubUnavailable(f"club.ca_file: {club.ca_file} cannot be used: {error}") from None
    client.reconnect_delay_set(1, 30)
    return client


def board_key(path: Path) -> Ed25519PrivateKey:
    """The board's signing key (or the hub's: `tavli-board club hub`), made on first use (readable by
    the service's user only)."""
    try:
        return load_pem_private_key(path.read_bytes(), password=None)
    except FileNotFoundError:
        key = Ed25519PrivateKey.generate()
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
        return key


class ClubUnavailable(ValueError):
    """The board cannot log in to the club's broker as configured (its password or CA file): one line."""


class Progress:
    """What the broker has acknowledged, kept beside the journal: the last journal record of each
    journal file (named by its first record), the view's counter and the number of the hub's last
    acknowledgement taken (an older one sent again is refused after a restart too). Written whole
    and renamed."""

    def __init__(self, journal_path: Path):
        self.path = journal_path.with_name(journal_path.name + "-club.json")
        try:
            data = json.loads(self.path.read_text())
            self.journal: dict[str, int] = {str(key): int(value) for key, value in data["journal"].items()}
            self.view = int(data["view"])
            self.hub_acknowledgement = int(data.get("hub_acknowledgement", 0))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            # none yet, or unreadable: everything is sent (again), and the hub's next word taken
            self.journal, self.view, self.hub_acknowledgement = {}, 0, 0

    def save(self) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps({"journal": self.journal, "view": self.view,
                                         "hub_acknowledgement": self.hub_acknowledgement}))
        os.replace(temporary, self.path)


class ClubWorker:
    """A board's client on the club's broker and a thread of its own (`_run`), which `_wake` wakes and
    `_stop` ends; the client's callbacks only hand over and wake it."""

    def _open(self, club: ClubSettings, role: str, client_factory: Callable[..., Any] | None, join_s: float) -> Any:
        self.club, self._join_s = club, join_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.client = club_client(club, role, client_factory)
        self._thread = threading.Thread(target=self._run, name=f"club{role or '-publisher'}", daemon=True)
        return self.client

    def start(self) -> None:
        self.client.connect_async(self.club.broker, self.club.port, keepalive=30)
        self.client.loop_start()
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=self._join_s)
        self.client.loop_stop()
        self.client.disconnect()


class ClubPublisher(ClubWorker):
    """Publishes the board's view and journal to the club's broker from a thread of its own."""

    def __init__(self, club: ClubSettings, journal_path: Path, *, key: Ed25519PrivateKey | None = None,
                 post: Callable[[object], None] | None = None, client_factory: Callable[..., Any] | None = None):
        """`post`: the loop's queue, told of an acknowledgement refused (a `RemoteFault`)."""
        if club.hub_key is None:
            raise ClubUnavailable("club.hub_key is not set: the hub's acknowledgements could not be checked; "
                                  "allowed: the hub's key, as `tavli-board club broker-config` prints it")
        self.journal_path, self.post = journal_path, post
        self.signer = Signer(club.board, key or board_key(club.signing_key_path))
        self.progress = Progress(journal_path)
        self.hub = Verifier({HUB: public_key_from_text(club.hub_key)},
                            {(HUB, acknowledgement_stream(club.board)): self.progress.hub_acknowledgement})
        self._fault_at = float("-inf")   # when a refused acknowledgement was last journaled
        self._view: Any = None
        self._hub_holds: dict[str, int] | None = None   # stream -> last record the hub holds (None: no hub heard)
        self._resend = False
        self._sent_again_from: dict[str, int] = {}   # stream -> where the board last went back to, for the hub
        self._heard_since_connected, self._connected_at = True, 0.0
        self._last_send = 0.0
        self._watch: sqlite3.Connection | None = None   # the publisher's thread's: the journal's version
        client = self._open(club, "", client_factory, join_s=ACK_TIMEOUT_S + 5)
        client.will_set(topic(club, "online"), "0", qos=1, retain=True)
        client.on_connect = self._connected
        client.on_message = self._hub_ack
        client.on_disconnect = lambda *args: log.warning("club broker %s: disconnected", club.broker)

    def show(self, view: Any) -> None:
        """The latest view (a `GameView`, or JSON-ready data); it never waits."""
        self._view = view
        self._wake.set()

    def observe(self, view: Any, event: object) -> None:
        """The loop's observer: the view to show, and a journal that may have grown. Its JSON is made
        on the publisher's thread, never the loop's."""
        self.show(view)

    def journal_changed(self) -> None:
        self._wake.set()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.error("club broker %s:%s refused the board: %s", self.club.broker, self.club.port, reason)
            return
        log.info("club broker %s:%s: connected as %s", self.club.broker, self.club.port, self.club.board)
        client.publish(topic(self.club, "online"), "1", qos=1, retain=True)
        client.subscribe(acknowledgement_topic(self.club.club, self.club.board), qos=1)
        self._heard_since_connected, self._connected_at = False, time.monotonic()
        self._resend = True
        self._wake.set()

    def _hub_ack(self, client, userdata, message) -> None:
        if message.topic != acknowledgement_topic(self.club.club, self.club.board):
            return   # a broker's mistake (amqtt hands a new subscriber retained messages of other topics)
        try:
            stream, seq = self._open_acknowledgement(message.payload)
        except EnvelopeRefused as error:
            self._refused(str(error))
            return
        self._heard_since_connected = True
        holds = self._hub_holds or {}
        # The hub says again where it stands: it missed what followed. Once sent again from there, the
        # same word is the echo of records already on their way, not a new request.
        if seq <= holds.get(stream, -1) and seq != self._sent_again_from.get(stream):
            self._resend = True
        self._hub_holds = {**holds, stream: seq}
        self._wake.set()

    def _open_acknowledgement(self, payload: bytes) -> tuple[str, int]:
        """(stream, last record the hub holds) of an acknowledgement the hub's key signed for this board,
        newer than the last taken or that one again (the broker's retained copy at a reconnection)."""
        try:
            envelope = json.loads(payload)
        except ValueError:
            raise EnvelopeRefused("not an envelope (not JSON)") from None
        mine = acknowledgement_stream(self.club.board)
        if isinstance(envelope, dict) and envelope.get("stream") != mine:
            raise EnvelopeRefused(f"an acknowledgement for {str(envelope.get('stream'))[:60]!r}, not {mine}")
        try:
            *_, number, body = self.hub.open(envelope)
        except AlreadyAccepted:   # genuine (its signature was checked first); taken only if it is the last taken
            number, body = envelope["seq"], envelope["body"]
            if number != self.progress.hub_acknowledgement:
                raise EnvelopeRefused(f"an old acknowledgement of the hub ({number}, after "
                                      f"{self.progress.hub_acknowledgement}): sent again by someone") from None
        if not (isinstance(body, dict) and isinstance(body.get("stream"), str) and isinstance(body.get("seq"), int)
                and not isinstance(body["seq"], bool)):
            raise EnvelopeRefused("the hub's acknowledgement is not {stream, seq}")
        self.progress.hub_acknowledgement = number   # saved by the publisher's thread
        return body["stream"], body["seq"]

    def _refused(self, why: str) -> None:
        message = f"refused an acknowledgement on the hub's topic: {why[:200]}"
        log.warning("club: %s", message)
        if self.post is not None and time.monotonic() - self._fault_at >= FAULT_INTERVAL_S:
            self._fault_at = time.monotonic()
            self.post(RemoteFault("hub_refused", message))

    def _run(self) -> None:
        published_view, published_json, last_view_at, last_journal_at = None, None, 0.0, 0.0
        journal_read = None   # the journal's version at the last read
        acknowledgement_saved = self.progress.hub_acknowledgement
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            if not self.client.is_connected():
                continue
            try:
                if self.progress.hub_acknowledgement != acknowledgement_saved:   # taken on paho's thread
                    acknowledgement_saved = self.progress.hub_acknowledgement
                    self.progress.save()
                view = self._view
                if view is not None and view is not published_view:
                    if time.monotonic() - last_view_at < VIEW_INTERVAL_S:
                        self._wake.set()   # come back for it once the interval has passed
                        time.sleep(VIEW_INTERVAL_S / 5)
                    else:
                        data = view.to_json() if hasattr(view, "to_json") else view
                        if data == published_json or self._publish_view(data):
                            published_view, published_json, last_view_at = view, data, time.monotonic()
                # Every view wakes this thread (a board being moved: many a second); the journal is
                # opened when a record was committed (at once), when the hub asks, and otherwise at
                # most as often as views are sent (to send again what was not acknowledged).
                asked_again = self._resend and self._hub_holds is not None
                # Just (re)connected: the hub's retained word says where to go on from; records sent
                # before it comes would be sent again after it (a board back from an hour offline).
                awaiting_hub = (not self._heard_since_connected
                                and time.monotonic() - self._connected_at < HUB_WAIT_S)
                if awaiting_hub:
                    time.sleep(VIEW_INTERVAL_S / 5)
                    self._wake.set()
                    continue
                version = self._journal_version()
                if (asked_again or version is None or version != journal_read
                        or time.monotonic() - last_journal_at >= VIEW_INTERVAL_S):
                    last_journal_at, journal_read = time.monotonic(), version
                    while self._publish_journal() and not self._stop.is_set():
                        pass
            except Exception:   # a fault of the network or the disk must not end the thread
                log.exception("club publisher: will try again")
        if self._watch is not None:
            self._watch.close()

    def _journal_version(self) -> int | None:
        """SQLite's count of the commits to the journal (by the service's connection), cheap to ask at
        every wake; None when it cannot be asked (the journal is then read)."""
        try:
            if self._watch is None:
                self._watch = sqlite3.connect(f"{self.journal_path.resolve().as_uri()}?mode=ro", uri=True)
            return self._watch.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            if self._watch is not None:
                self._watch.close()
            self._watch = None
            return None

    def _send(self, leaf: str, envelope: dict, retain: bool = False) -> bool:
        info = self.client.publish(topic(self.club, leaf), json.dumps(envelope, separators=(",", ":")),
                                   qos=1, retain=retain)
        try:
            info.wait_for_publish(timeout=ACK_TIMEOUT_S)
        except RuntimeError:   # paho's word for a connection lost before the broker's acknowledgement
            log.info("club broker %s: connection lost while sending; sent again once connected", self.club.broker)
            return False
        return info.is_published()

    def _publish_view(self, view: Any) -> bool:
        seq = self.progress.view + 1
        if not self._send("view", self.signer.seal("view", seq, view), retain=True):
            return False
        self.progress.view = seq
        self.progress.save()
        return True

    def _from_where(self, stream: str) -> int:
        """The last record sent, or the hub's last where the hub lacks what was sent: at a (re)connection,
        or once it has lagged for a while since the last send."""
        sent = self.progress.journal.get(stream, 0)
        if self._hub_holds is None:
            return sent
        holds = self._hub_holds.get(stream, 0)
        lagging = holds < sent and time.monotonic() - self._last_send > HUB_LAG_S
        if self._resend or lagging:
            self._resend = False
            if holds < sent:
                log.info("club: the hub holds %s up to %s of %s sent: sending again from there", stream, holds, sent)
                self.progress.journal[stream] = sent = self._sent_again_from[stream] = holds
        return sent

    def _publish_journal(self) -> bool:
        """Publish the next batch of records not yet acknowledged; True if there may be more."""
        try:
            with JournalReader.open(self.journal_path) as journal:
                first = journal.records_after(0, 1)
                if not first:
                    return False
                # One stream per journal file, named by its first record: the hub knows where it begins.
                stream = f"journal/{first[0].at}/{first[0].seq}"
                done = self._from_where(stream)
                records = journal.records_after(done, BATCH)
        except Exception as error:   # the journal is the service's; a reader may meet it mid-write
            log.warning("club publisher: cannot read the journal now: %s", error)
            return False
        for record in records:
            if not self._send("journal", self.signer.seal(stream, record.seq, record.to_json())):
                break
            self.progress.journal[stream] = record.seq
            self._last_send = time.monotonic()
        else:
            self.progress.save()
            return len(records) == BATCH
        self.progress.save()
        return False
