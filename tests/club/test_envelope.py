"""Signed envelopes: a genuine message opens once, in order; a forged, changed, replayed or unknown
board's message is refused with its reason, and nothing of it is returned."""
import copy

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.envelope import (EnvelopeRefused, Signer, Verifier, public_key_from_text,
                                         public_key_text)

PLAY = {"kind": "play", "match": "kefalonia-3", "moves": [["13", "7"], ["7", "3"]]}


@pytest.fixture
def boards():
    a, b = Signer("board-a", Ed25519PrivateKey.generate()), Signer("board-b", Ed25519PrivateKey.generate())
    keys = {signer.board: public_key_from_text(public_key_text(signer.key)) for signer in (a, b)}
    return a, b, Verifier(keys)


def test_a_genuine_message_opens_once_and_in_order_per_stream(boards):
    a, _, hub = boards
    first, second = a.seal("journal", 1, PLAY), a.seal("journal", 2, {"kind": "result"})
    assert hub.open(first) == ("board-a", "journal", 1, PLAY)
    assert hub.open(a.seal("view", 1, {"kind": "view"})) == ("board-a", "view", 1, {"kind": "view"})
    assert hub.open(second) == ("board-a", "journal", 2, {"kind": "result"})
    with pytest.raises(EnvelopeRefused, match="journal message 1 was already accepted"):
        hub.open(first)                        # recorded and sent again


def test_a_body_changed_or_moved_to_another_board_is_refused(boards):
    a, b, hub = boards
    envelope = a.seal("journal", 1, PLAY)
    changed = copy.deepcopy(envelope)
    changed["body"]["moves"][0] = ["13", "8"]
    with pytest.raises(EnvelopeRefused, match="board-a: the signature does not match"):
        hub.open(changed)
    moved = dict(envelope, board="board-b")     # board b's name on board a's message
    with pytest.raises(EnvelopeRefused, match="board-b: the signature does not match"):
        hub.open(moved)
    for changed_field in ({"seq": 5}, {"stream": "view"}):
        with pytest.raises(EnvelopeRefused, match="signature does not match"):
            hub.open(dict(envelope, **changed_field))
    assert hub.accepted == {}                   # nothing of a refused message counts


def test_a_stranger_cannot_sign_for_a_board(boards):
    _, _, hub = boards
    forger = Signer("board-a", Ed25519PrivateKey.generate())
    with pytest.raises(EnvelopeRefused, match="forged or changed"):
        hub.open(forger.seal("journal", 1, PLAY))
    with pytest.raises(EnvelopeRefused, match="unknown board: 'board-z'"):
        hub.open(Signer("board-z", Ed25519PrivateKey.generate()).seal("journal", 1, PLAY))


@pytest.mark.parametrize("envelope", [None, [], "text", {"board": "board-a"},
                                      {"board": "board-a", "stream": "v", "seq": True, "body": {}, "signature": ""},
                                      {"board": "board-a", "stream": "v", "seq": 0, "body": {}, "signature": ""},
                                      {"board": "board-a", "stream": "", "seq": 1, "body": {}, "signature": ""},
                                      {"board": "board-a", "stream": "v", "seq": 1, "body": {}, "signature": "not base64!"}])
def test_malformed_envelopes_are_refused_in_words(boards, envelope):
    _, _, hub = boards
    with pytest.raises(EnvelopeRefused):
        hub.open(envelope)


def test_a_bad_public_key_is_named():
    with pytest.raises(EnvelopeRefused, match="not an Ed25519 public key"):
        public_key_from_text("AAAA")


def test_a_stream_that_must_arrive_in_order_takes_only_the_next_number(boards):
    from firmware_host.club.envelope import AlreadyAccepted, OutOfOrder
    a, _, hub = boards
    with pytest.raises(OutOfOrder, match="message 2 came before 1"):
        hub.open(a.seal("journal/x/1", 2, PLAY), expect=1)
    assert hub.open(a.seal("journal/x/1", 1, PLAY), expect=1)[2] == 1
    with pytest.raises(AlreadyAccepted):
        hub.open(a.seal("journal/x/1", 1, PLAY), expect=2)
    assert hub.open(a.seal("journal/x/1", 2, PLAY), expect=2)[2] == 2
