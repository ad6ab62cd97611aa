"""The remote seat's dice exchange, message by message, without a broker: the messages of the other
board come in whatever batches the network delivers them, and the dice are still agreed with nothing
refused; both boards get the same dice."""
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from remote_kit import FakeClient

from firmware_host.club.dice import RollExchange, RollId
from firmware_host.club.envelope import Signer, public_key_text
from firmware_host.config import ClubSettings
from firmware_host.controller.remote import RemoteFault
from firmware_host.rules import WHITE
from firmware_host.service.remote_seat import RemoteSeat

MATCH = "kefalonia/table-1+table-2"


def sent(seat: RemoteSeat) -> list[dict]:
    return [envelope["body"] for envelope in seat.client.sent]


def seat(tmp_path: Path, table_2: Ed25519PrivateKey, posted: list) -> RemoteSeat:
    club = ClubSettings(broker="127.0.0.1", club="kefalonia", board="table-1", opponent="table-2",
                        opponent_key=public_key_text(table_2), seat=WHITE)
    return RemoteSeat(club, tmp_path / "journal.sqlite3", posted.append, key=Ed25519PrivateKey.generate(),
                      client_factory=FakeClient)


def test_the_other_boards_next_commitment_before_this_board_has_finished_the_roll_is_kept(tmp_path):
    """table-2 finished roll 1 first and committed to roll 2 at once: its commitment, reveal and next
    commitment reach table-1 together, before table-1 has taken roll 1's dice."""
    table_2, posted = Ed25519PrivateKey.generate(), []
    table_1 = seat(tmp_path, table_2, posted)
    table_1._agree_dice()                                    # the dice run short: table-1 commits to roll 1
    assert [body["type"] for body in sent(table_1)] == ["commit"]
    signer = Signer("table-2", table_2)
    first = RollExchange(RollId(MATCH, 1), "table-2", "table-1", bytes(range(32)))
    second = RollExchange(RollId(MATCH, 2), "table-2", "table-1", bytes(range(1, 33)))
    batch = [{"type": "commit", "roll": 1, "commitment": first.my_commitment},
             {"type": "reveal", "roll": 1, "secret": first.secret.hex()},
             {"type": "commit", "roll": 2, "commitment": second.my_commitment}]
    for seq, body in enumerate(batch, 1):
        table_1._receive(json.dumps(signer.seal("remote/table-1", seq, body)).encode())
    table_1._agree_dice()
    assert not [event for event in posted if isinstance(event, RemoteFault)]
    assert [(body["type"], body["roll"]) for body in sent(table_1)] == \
        [("commit", 1), ("reveal", 1), ("commit", 2), ("reveal", 2)]
    # table-2 takes table-1's secret for roll 1: both hold the same dice.
    first.receive_commitment("table-1", sent(table_1)[0]["commitment"])
    first.my_reveal()
    first.receive_reveal("table-1", bytes.fromhex(sent(table_1)[1]["secret"]))
    assert (table_1.dice.roll_die(), table_1.dice.roll_die()) == first.dice()
