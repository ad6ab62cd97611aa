"""The hub's ear on the club's broker: every board's view, journal and presence, opened and kept.

A message is kept only when its envelope opens with the board's registered key and its number is new
for that board's stream (firmware_host/club/envelope.py); anything else is counted and logged in one
line, and nothing of it is kept. A board's journal must arrive whole: its stream is named after its
first record's number, and only the record after the last one kept is taken. After each record kept,
the hub says so on `tavli/CLUB/hub/ack/BOARD` (retained), signed with the hub's own key: a board sends
again from there what the hub lacks (lost with a broker that died, or sent while the hub was down), and
takes no acknowledgement the hub's key did not sign. The verifier goes on from the numbers already kept,
so the hub killed and restarted takes every record once.
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from typing import Callable, Mapping

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from firmware_host.club.envelope import (HUB, AlreadyAccepted, EnvelopeRefused, OutOfOrder, Signer, Verifier,
                                         acknowledgement_stream, acknowledgement_topic, number_after)
from firmware_host.hub.store import HubStore

log = logging.getLogger(__name__)


class HubListener:
    def __init__(self, store: HubStore, club: str, keys: Mapping[str, Ed25519PublicKey], key: Ed25519PrivateKey):
        """`keys`: every board's public key; `key`: the hub's own, which signs its acknowledgements."""
        self.store, self.club = store, club
        self.verifier = Verifier(keys, dict(store.last_accepted()))
        self.signer = Signer(HUB, key)
        self._acknowledgement = 0   # the number of the last acknowledgement signed
        self.refused: Counter[str] = Counter()
        self.client = None
        self.on_change: Callable[[str], None] | None = None   # told the board whose view, presence or records changed

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker (paho's thread calls this; tests call it directly)."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[:2] != ["tavli", self.club]:
            return
        board, leaf = parts[2], parts[3]
        if leaf == "online":
            if board in self.verifier.keys:
                self.store.set_online(board, payload == b"1")
                self._changed(board)
            return
        try:
            envelope = json.loads(payload)
            if not isinstance(envelope, dict) or envelope.get("board") != board:
                raise EnvelopeRefused(f"not {board}'s message on {board}'s topic")
            expected = self._expected(board, leaf, envelope)
            _, stream, seq, body = self.verifier.open(envelope, expected)
        except AlreadyAccepted as error:   # a redelivery after a reconnection: no fault
            log.debug("hub: %s", error)
            return
        except OutOfOrder as error:        # a gap (sent while the hub was down): say where it stands
            log.info("hub: %s; asking for it again", error)
            self._acknowledge(board, envelope["stream"], expected - 1)
            return
        except (ValueError, EnvelopeRefused) as error:   # JSONDecodeError is a ValueError
            self.refused[board] += 1
            log.warning("hub: refused a message on %s: %s", topic, str(error)[:200])
            return
        if leaf == "view" and stream == "view":
            self.store.set_view(board, body)
        elif leaf == "journal" and isinstance(body, dict):
            self.store.keep(board, stream, seq, body)
            self._acknowledge(board, stream, seq)
        self._changed(board)

    def _changed(self, board: str) -> None:
        if self.on_change is not None:
            self.on_change(board)

    def _acknowledge(self, board: str, stream: str, seq: int) -> None:
        """The last record of `stream` the hub holds (retained: a board that connects later reads it)."""
        if self.client is not None:
            # Numbered upward across restarts too: a board refuses a number not above the last it
            # took, so an old acknowledgement sent again is not taken.
            self._acknowledgement = number_after(self._acknowledgement)
            envelope = self.signer.seal(acknowledgement_stream(board), self._acknowledgement, {"stream": stream, "seq": seq})
            self.client.publish(acknowledgement_topic(self.club, board), json.dumps(envelope, separators=(",", ":")),
                                qos=1, retain=True)

    def _expected(self, board: str, leaf: str, envelope: object) -> int | None:
        """The one number a journal message may have: the next after the last kept, or the stream's first."""
        if leaf != "journal":
            return None
        stream = envelope.get("stream") if isinstance(envelope, dict) else None
        first = stream.rsplit("/", 1)[-1] if isinstance(stream, str) and stream.startswith("journal/") else ""
        if not first.isascii() or not first.isdigit():
            raise EnvelopeRefused(f"{board}: a journal stream is named journal/FILE/FIRST-RECORD")
        last = self.verifier.accepted.get((board, stream))
        return int(first) if last is None else last + 1

    def start(self, host: str, port: int, *, username: str | None = None, password: str | None = None,
              tls: bool = False, ca_file: str | None = None) -> None:
        import paho.mqtt.client as mqtt

        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"tavli-hub-{self.club}")
        if username is not None:
            client.username_pw_set(username, password)
        if tls:
            client.tls_set(ca_certs=ca_file)
        client.reconnect_delay_set(1, 30)
        client.on_connect = lambda client, *args: client.subscribe(f"tavli/{self.club}/+/+", qos=1)
        self.client = client
        client.on_message = lambda client, userdata, message: self.handle(message.topic, message.payload)
        client.connect_async(host, port, keepalive=30)
        client.loop_start()

    def close(self) -> None:
        if self.client is not None:
            self.client.loop_stop()
            self.client.disconnect()
