"""Signed messages between the boards of a club, so nobody else on the broker can inject or replay one.

Every board has an Ed25519 key pair of its own: it signs what it publishes, and the others (the other
board of a remote match, the club's hub) verify it with the board's public key, which the club's
director registers once (`tavli-board club`). A broker's access rules already keep a board to its own
topics; the signature also holds against a broker account that leaks, or a broker that is not the
club's.

An envelope is JSON: `{"board", "stream", "seq", "body", "signature"}`. The signature covers the
board's name, the stream, the sequence number and the body, as canonical JSON (sorted keys, no
spaces), so no field can be changed or moved to another envelope. A board numbers the messages of each
of its streams upward (its journal's records by their own numbers; its view by a counter it keeps
across restarts); a receiver accepts from each board's stream only numbers above the last it
accepted, so a message recorded and sent again is refused, and a message delivered twice after a
reconnection is recognised (idempotent by sequence).

The club's hub signs its acknowledgements the same way, with a key of its own, as `HUB` on the stream
`ack/BOARD`: a board takes only what the hub's key signed, for that board, newer than the last it took.
"""
from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


HUB = "hub"   # the hub's name: its topics (tavli/CLUB/hub/...) and its acknowledgements' signer; no board's


def acknowledgement_topic(club: str, board: str) -> str:
    """Where the hub says which of `board`'s records it holds last (retained)."""
    return f"tavli/{club}/{HUB}/ack/{board}"


def acknowledgement_stream(board: str) -> str:
    return f"ack/{board}"


def number_after(last: int) -> int:
    """The next number of a stream whose sender keeps no count across restarts (the hub's
    acknowledgements, a remote seat's words about resending): above `last`, and above any number
    sent before a restart, from the clock's microseconds (a receiver takes only numbers above the
    last it took)."""
    return max(last + 1, time.time_ns() // 1000)


class EnvelopeRefused(ValueError):
    """A message that is not accepted: its reason names what is wrong, never more than that."""


class AlreadyAccepted(EnvelopeRefused):
    """A genuine message taken before: a replay, or a redelivery after a reconnection."""


class OutOfOrder(EnvelopeRefused):
    """A genuine message that came before one it follows (one was lost on the way)."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _signed_part(board: str, stream: str, seq: int, body: Any) -> bytes:
    return canonical({"board": board, "stream": stream, "seq": seq, "body": body})


def public_key_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return base64.b64encode(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def public_key_from_text(text: str) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(text, validate=True))
    except ValueError as error:
        raise EnvelopeRefused(f"not an Ed25519 public key: {error}") from None


@dataclass
class Signer:
    """One board's side: its name and its key."""
    board: str
    key: Ed25519PrivateKey

    def seal(self, stream: str, seq: int, body: Any) -> dict[str, Any]:
        signature = self.key.sign(_signed_part(self.board, stream, seq, body))
        return {"board": self.board, "stream": stream, "seq": seq, "body": body,
                "signature": base64.b64encode(signature).decode()}


FIELDS = {"board", "stream", "seq", "body", "signature"}


@dataclass
class Verifier:
    """A receiver: the boards it knows by public key, and the last sequence number accepted from each
    board's stream."""
    keys: Mapping[str, Ed25519PublicKey]
    accepted: dict[tuple[str, str], int] = field(default_factory=dict)

    def open(self, envelope: Any, expect: int | None = None) -> tuple[str, str, int, Any]:
        """(board, stream, seq, body) of a genuine envelope not seen before; else `EnvelopeRefused`.
        With `expect`, only that number is taken (a stream that must arrive whole and in order): a
        later one is `OutOfOrder`, for its sender to send again from what was taken."""
        if not isinstance(envelope, dict) or set(envelope) != FIELDS:
            raise EnvelopeRefused("not an envelope: an object of board, stream, seq, body and signature")
        board, stream, seq, signature = (envelope[key] for key in ("board", "stream", "seq", "signature"))
        if not isinstance(board, str) or board not in self.keys:
            raise EnvelopeRefused(f"from an unknown board: {str(board)[:40]!r}")
        if not isinstance(stream, str) or not 0 < len(stream) <= 100:
            raise EnvelopeRefused(f"{board}: a stream is named by 1 to 100 characters")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise EnvelopeRefused(f"{board}: a sequence number is a whole number from 1")
        try:
            self.keys[board].verify(base64.b64decode(str(signature), validate=True),
                                    _signed_part(board, stream, seq, envelope["body"]))
        except (InvalidSignature, ValueError):
            raise EnvelopeRefused(f"{board}: the signature does not match (forged or changed)") from None
        if seq <= self.accepted.get((board, stream), 0) or (expect is not None and seq < expect):
            raise AlreadyAccepted(f"{board}: {stream} message {seq} was already accepted (a replay, or sent twice)")
        if expect is not None and seq > expect:
            raise OutOfOrder(f"{board}: {stream} message {seq} came before {expect}")
        self.accepted[board, stream] = seq
        return board, stream, seq, envelope["body"]
