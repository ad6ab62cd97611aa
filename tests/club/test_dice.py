"""Commit-reveal dice between two boards: both compute the same roll, a reveal that does not match its
commitment is refused, nobody reveals before holding the other's commitment, and the mapping from
hash bytes to faces has no modulo bias."""
import collections
import itertools
import random

import pytest

from firmware_host.club.dice import DiceExchangeError, RollExchange, RollId, commitment, dice_from

ROLL = RollId("kefalonia-3", 17)


def secret(seed: int) -> bytes:
    return random.Random(seed).randbytes(32)


def exchange(a_secret: bytes, b_secret: bytes, roll: RollId = ROLL) -> tuple[RollExchange, RollExchange]:
    a = RollExchange(roll, "board-a", "board-b", a_secret)
    b = RollExchange(roll, "board-b", "board-a", b_secret)
    a.receive_commitment("board-b", b.my_commitment)
    b.receive_commitment("board-a", a.my_commitment)
    b.receive_reveal("board-a", a.my_reveal())
    a.receive_reveal("board-b", b.my_reveal())
    return a, b


def test_both_boards_compute_the_same_dice():
    for seed in range(50):
        a, b = exchange(secret(seed), secret(1000 + seed))
        assert a.dice() == b.dice() and all(1 <= face <= 6 for face in a.dice())
        assert a.waiting_for is None and b.waiting_for is None


def test_a_secret_changed_after_the_commitment_is_refused():
    a = RollExchange(ROLL, "board-a", "board-b", secret(1))
    b = RollExchange(ROLL, "board-b", "board-a", secret(2))
    a.receive_commitment("board-b", b.my_commitment)
    b.receive_commitment("board-a", a.my_commitment)
    a.my_reveal()
    with pytest.raises(DiceExchangeError, match="does not match its commitment"):
        a.receive_reveal("board-b", secret(3))         # board b tries another secret, having seen a's
    with pytest.raises(DiceExchangeError, match="need both secrets"):
        a.dice()
    assert a.waiting_for == "board-b"


def test_nobody_reveals_before_holding_the_others_commitment():
    a = RollExchange(ROLL, "board-a", "board-b", secret(1))
    assert a.waiting_for == "board-b"
    with pytest.raises(DiceExchangeError, match="no reveal before board-b's commitment"):
        a.my_reveal()
    with pytest.raises(DiceExchangeError, match="revealed before it committed"):
        a.receive_reveal("board-b", secret(2))
    with pytest.raises(DiceExchangeError, match="board-c is not in this roll"):
        a.receive_commitment("board-c", "00")


def test_a_commitment_is_bound_to_its_roll_and_board():
    one = secret(7)
    assert commitment(ROLL, "board-a", one) != commitment(RollId("kefalonia-3", 18), "board-a", one)
    assert commitment(ROLL, "board-a", one) != commitment(ROLL, "board-b", one)
    # A commitment replayed from another roll does not open with this roll's secret.
    a = RollExchange(ROLL, "board-a", "board-b", secret(1))
    a.receive_commitment("board-b", commitment(RollId("kefalonia-3", 16), "board-b", secret(2)))
    a.my_reveal()
    with pytest.raises(DiceExchangeError):
        a.receive_reveal("board-b", secret(2))


def test_every_face_pair_is_equally_likely_from_the_bytes():
    # Every pair of bytes below 252 gives each of the 36 rolls exactly 42 x 42 times; bytes 252-255
    # are skipped, so they bias nothing.
    counts = collections.Counter(dice_from(bytes(pair)) for pair in itertools.product(range(252), repeat=2))
    assert set(counts.values()) == {42 * 42} and len(counts) == 36
    assert dice_from(bytes([255, 252, 3, 253, 10])) == (4, 5)


def test_hash_bytes_all_skipped_extend_the_hash():
    assert all(1 <= face <= 6 for face in dice_from(bytes([255] * 32)))
