"""The other board of a remote match, played by a test on the broker, and a client in place of the
broker's for tests of the seat message by message (test_remote_seat_*.py)."""
import json
import threading

import paho.mqtt.client as mqtt

from firmware_host.club.envelope import Signer, Verifier

WAIT_S = 20
CLUB = "kefalonia"


class Opponent:
    """The test's table-2 on the broker: what it receives from table-1 (opened with table-1's key),
    and what it sends, signed with `key` (table-2's, or another)."""

    def __init__(self, port: int, key, table_1_key):
        self.signer = Signer("table-2", key)
        self.verifier = Verifier({"table-1": table_1_key})
        self.received: list[dict] = []
        self.seq = 0
        self.subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-table-2")
        self.client.on_connect = lambda client, *args: client.subscribe(f"tavli/{CLUB}/table-1/remote/table-2", qos=1)
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.subscribed.wait(WAIT_S)

    def _message(self, client, userdata, message) -> None:
        board, stream, seq, body = self.verifier.open(json.loads(message.payload))
        self.received.append(body)

    def send(self, body: dict, signer: Signer | None = None) -> bytes:
        self.seq += 1
        payload = json.dumps((signer or self.signer).seal("remote/table-1", self.seq, body)).encode()
        self.publish(payload)
        return payload

    def publish(self, payload: bytes) -> None:
        self.client.publish(f"tavli/{CLUB}/table-2/remote/table-1", payload, qos=1).wait_for_publish(WAIT_S)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Sent:
    """A message the fake broker took at once."""

    def wait_for_publish(self, timeout=None):
        pass


class FakeClient:
    """The part of paho's client the seat uses; what it publishes is kept (the envelopes, as sent)."""

    def __init__(self, *args, **kwargs):
        self.sent = []

    def publish(self, topic, payload, qos=0, retain=False):
        self.sent.append(json.loads(payload))
        return Sent()

    def is_connected(self):
        return True

    def reconnect_delay_set(self, *args):
        pass
