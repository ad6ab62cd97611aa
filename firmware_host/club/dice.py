"""Dice that neither of two boards can choose: commit, then reveal.

For each roll of a remote match, each board draws a secret of 32 random bytes (its own dice source;
this module draws nothing) and first publishes only a commitment to it, SHA-256 over the roll's
identity and the secret. Once it holds the other board's commitment it reveals its secret; the
other checks it against the commitment. The dice come from both secrets together, so a board that
saw the other's commitment still cannot steer them (the commitment hides the secret), and a board
cannot change its secret after seeing the other's (the commitment binds it).

From the secrets to the dice without modulo bias: the bytes of SHA-256(roll identity, both secrets)
are read in turn, a byte under 252 (= 6 x 42) gives the face byte % 6 + 1 and a byte of 252 or more
is skipped; should 32 bytes not give two dice (a chance of about 10^-70), the hash is extended by
hashing it with a counter.

A board that does not reveal in time forfeits after a warning: the clock is the service's; here a
roll only says which side it still waits for.
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

SECRET_BYTES = 32
_UNBIASED = 252   # the largest multiple of 6 a byte can hold


class DiceExchangeError(ValueError):
    """A message that breaks the exchange: a reveal that does not match its commitment, or out of turn."""


@dataclass(frozen=True)
class RollId:
    """What a commitment is bound to, so it cannot be replayed for another roll or match."""
    match: str
    roll: int

    def encoded(self) -> bytes:
        return f"{self.match}\x00{self.roll}".encode()


def commitment(roll: RollId, board: str, secret: bytes) -> str:
    if len(secret) != SECRET_BYTES:
        raise DiceExchangeError(f"a secret is {SECRET_BYTES} bytes, not {len(secret)}")
    return hashlib.sha256(b"tavli-dice-commit\x00" + roll.encoded() + b"\x00" + board.encode() + b"\x00" + secret).hexdigest()


def dice_from(material: bytes) -> tuple[int, int]:
    """Two fair dice from hash output, by rejection of the bytes 252-255."""
    faces: list[int] = []
    block, counter = material, 0
    while True:
        for byte in block:
            if byte < _UNBIASED:
                faces.append(byte % 6 + 1)
                if len(faces) == 2:
                    return faces[0], faces[1]
        counter += 1
        block = hashlib.sha256(material + counter.to_bytes(4, "big")).digest()


@dataclass
class RollExchange:
    """One roll between two boards, seen from one of them."""
    roll: RollId
    me: str
    other: str
    secret: bytes
    commitments: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.me == self.other:
            raise DiceExchangeError("a remote roll is between two boards")
        self.commitments[self.me] = commitment(self.roll, self.me, self.secret)

    @property
    def my_commitment(self) -> str:
        return self.commitments[self.me]

    def receive_commitment(self, board: str, value: str) -> None:
        if board != self.other:
            raise DiceExchangeError(f"{board} is not in this roll")
        if board in self.commitments and self.commitments[board] != value:
            raise DiceExchangeError(f"{board} committed twice to different secrets")
        self.commitments[board] = value

    def my_reveal(self) -> bytes:
        """The secret, once the other's commitment is held (revealing sooner would let it choose)."""
        if self.other not in self.commitments:
            raise DiceExchangeError(f"no reveal before {self.other}'s commitment")
        self.secrets[self.me] = self.secret
        return self.secret

    def receive_reveal(self, board: str, secret: bytes) -> None:
        if board != self.other:
            raise DiceExchangeError(f"{board} is not in this roll")
        if self.other not in self.commitments:
            raise DiceExchangeError(f"{board} revealed before it committed")
        if not hmac.compare_digest(commitment(self.roll, board, secret), self.commitments[board]):
            raise DiceExchangeError(f"{board}'s secret does not match its commitment")
        self.secrets[board] = secret

    @property
    def waiting_for(self) -> str | None:
        """The board whose commitment or secret is still missing (after a timeout it forfeits)."""
        if self.other not in self.commitments or self.other not in self.secrets:
            return self.other
        return None

    def dice(self) -> tuple[int, int]:
        if self.me not in self.secrets or self.other not in self.secrets:
            raise DiceExchangeError("the dice need both secrets")
        first, second = sorted((self.me, self.other))   # both boards hash in the same order
        material = hashlib.sha256(b"tavli-dice-roll\x00" + self.roll.encoded() + self.secrets[first]
                                  + self.secrets[second]).digest()
        return dice_from(material)
