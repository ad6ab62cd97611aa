"""A board restarted in the middle of a remote match takes it up again, message by message, without a
broker: everything of the seat's memory is dropped (a new `RemoteSeat` on the same journal and kept
file, as after a kill) and what it had done before is taken up: the secret it committed to (never a new
one), the other board's messages taken (a replay still refused), the dice agreed and not rolled, the
other's plays taken and not yet made here, and what the other missed sent again, once, in order."""
import json
import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from remote_kit import FakeClient

from firmware_host.club.dice import RollExchange, RollId, commitment
from firmware_host.club.envelope import Signer, Verifier, public_key_text
from firmware_host.config import ClubSettings
from firmware_host.controller.remote import RemoteFault, RemoteForfeit, RemotePlay
from firmware_host.journal import Journal
from firmware_host.rules import WHITE, Rules
from firmware_host.rules.match import MatchRules, OpeningRoll
from firmware_host.service.remote_seat import RemoteSeat

MATCH = "kefalonia/table-1+table-2"


class Pair:
    """table-1's seat (its key, its folder) and table-2 played by the test."""

    def __init__(self, tmp_path: Path):
        self.folder = tmp_path
        self.table_1_key, self.table_2_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
        self.table_2 = Signer("table-2", self.table_2_key)
        self.from_table_1 = Verifier({"table-1": self.table_1_key.public_key()})
        self.seq = 0
        self.posted: list = []

    def seat(self, secret_seed: int) -> RemoteSeat:
        """table-1's seat as the service makes it at start: nothing in memory but its files."""
        club = ClubSettings(broker="127.0.0.1", club="kefalonia", board="table-1", opponent="table-2",
                            opponent_key=public_key_text(self.table_2_key), seat=WHITE)
        return RemoteSeat(club, self.folder / "journal.sqlite3", self.posted.append, key=self.table_1_key,
                          client_factory=FakeClient, draw_secret=random.Random(secret_seed).randbytes)

    def envelope(self, body: dict) -> bytes:
        self.seq += 1
        return json.dumps(self.table_2.seal("remote/table-1", self.seq, body)).encode()

    def control(self, body: dict, seq: int) -> bytes:
        return json.dumps(self.table_2.seal("resume/table-1", seq, body)).encode()


def bodies(seat, stream="remote/table-2") -> list[dict]:
    return [envelope["body"] for envelope in seat.client.sent if envelope["stream"] == stream]


def faults(posted) -> list[str]:
    return [event.message for event in posted if isinstance(event, RemoteFault)]


def test_a_board_restarted_between_its_commitment_and_its_reveal_reveals_the_secret_it_committed_to(tmp_path):
    pair = Pair(tmp_path)
    before = pair.seat(secret_seed=1)
    before._agree_dice()
    [committed] = bodies(before)
    assert committed["type"] == "commit" and committed["roll"] == 1
    after = pair.seat(secret_seed=2)   # restarted: a generator that would draw another secret
    table_2 = RollExchange(RollId(MATCH, 1), "table-2", "table-1", bytes(range(32)))
    after._receive(pair.envelope({"type": "commit", "roll": 1, "commitment": table_2.my_commitment}))
    after._agree_dice()
    [revealed] = bodies(after)
    assert revealed["type"] == "reveal" and revealed["roll"] == 1   # no second commitment to roll 1
    assert commitment(RollId(MATCH, 1), "table-1", bytes.fromhex(revealed["secret"])) == committed["commitment"]
    assert not faults(pair.posted)


def test_a_message_taken_before_a_restart_and_sent_again_after_it_is_refused_as_a_replay(tmp_path):
    pair = Pair(tmp_path)
    before = pair.seat(secret_seed=1)
    warning = pair.envelope({"type": "warning", "roll": 1, "message": "genuine, once"})
    before._receive(warning)
    after = pair.seat(secret_seed=1)
    after._receive(warning)
    said = faults(pair.posted)
    assert sum("genuine, once" in message for message in said) == 1 and "replayed" in said[-1]


def test_the_dice_agreed_and_the_play_taken_before_a_restart_are_there_after_it(tmp_path):
    pair = Pair(tmp_path)
    before = pair.seat(secret_seed=1)
    before._agree_dice()
    table_2 = RollExchange(RollId(MATCH, 1), "table-2", "table-1", bytes(range(32)))
    before._receive(pair.envelope({"type": "commit", "roll": 1, "commitment": table_2.my_commitment}))
    before._agree_dice()   # reveals; the dice come with table-2's secret
    before._receive(pair.envelope({"type": "reveal", "roll": 1, "secret": table_2.secret.hex()}))
    before._agree_dice()
    table_2.receive_commitment("table-1", bodies(before)[0]["commitment"])
    table_2.my_reveal()
    table_2.receive_reveal("table-1", bytes.fromhex(bodies(before)[1]["secret"]))
    play = {"type": "play", "side": "black", "dice": [6, 5], "moves": [], "position": {"variant": "portes"}}
    before._receive(pair.envelope(play))
    pair.posted.clear()
    after = pair.seat(secret_seed=2)
    # Nothing was rolled (the journal holds no roll): roll 1's dice are still to be rolled, the same.
    assert (after.dice.roll_die(), after.dice.roll_die()) == table_2.dice()
    assert pair.posted == [RemotePlay("table-2", "black", (6, 5), (), {"variant": "portes"})]


def test_what_the_other_board_missed_is_sent_again_once_in_order_when_it_asks(tmp_path):
    pair = Pair(tmp_path)
    before = pair.seat(secret_seed=1)
    before._agree_dice()                                                  # commit, roll 1 (message 1)
    table_2 = RollExchange(RollId(MATCH, 1), "table-2", "table-1", bytes(range(32)))
    before._receive(pair.envelope({"type": "commit", "roll": 1, "commitment": table_2.my_commitment}))
    before._agree_dice()                                                  # reveal, roll 1 (message 2)
    sent = [envelope for envelope in before.client.sent if envelope["stream"] == "remote/table-2"]
    after = pair.seat(secret_seed=2)
    # table-2 (restarted too) took message 1 only, and asks for the rest.
    after._receive(pair.control({"type": "resume", "taken": 1, "answer": False}, seq=10))
    words = [envelope["body"] for envelope in after.client.sent if envelope["stream"] == "resume/table-2"]
    again = [envelope for envelope in after.client.sent if envelope["stream"] == "remote/table-2"]
    assert words[0] == {"type": "resume", "taken": 1, "answer": True}     # what table-1 took of table-2's
    assert words[1] == {"type": "resending", "first": 2, "last": 2}
    assert again == sent[1:]                                              # the same message, the same number
    for envelope in again:
        pair.from_table_1.open(envelope)                                  # genuine, taken once by table-2
    # Sent again after an announcement, a message table-1 took already is dropped without a fault.
    repeated = pair.envelope({"type": "warning", "roll": 1, "message": "once"})
    after._receive(repeated)
    after._receive(pair.control({"type": "resending", "first": 2, "last": 2}, seq=11))
    after._receive(repeated)
    assert faults(pair.posted) == ["table-2 warns: once"]


def agree_roll(pair: Pair, seat, roll: int) -> tuple[int, int]:
    """One roll agreed between table-1's seat and the test's table-2; its dice."""
    table_2 = RollExchange(RollId(MATCH, roll), "table-2", "table-1", bytes([roll] * 32))
    seat._receive(pair.envelope({"type": "commit", "roll": roll, "commitment": table_2.my_commitment}))
    seat._agree_dice()
    seat._receive(pair.envelope({"type": "reveal", "roll": roll, "secret": table_2.secret.hex()}))
    seat._agree_dice()
    mine = {body["type"]: body for body in bodies(seat) if body.get("roll") == roll}
    table_2.receive_commitment("table-1", mine["commit"]["commitment"])
    table_2.my_reveal()
    table_2.receive_reveal("table-1", bytes.fromhex(mine["reveal"]["secret"]))
    return table_2.dice()


def test_across_matches_what_is_kept_is_one_matchs_and_a_restart_rolls_on_where_the_journal_stopped(tmp_path):
    pair = Pair(tmp_path)
    journal = Journal.open(tmp_path / "journal.sqlite3")
    seat = pair.seat(secret_seed=1)
    dice = [agree_roll(pair, seat, roll) for roll in (1, 2, 3)]
    # The first match rolls two of them (its opening roll and one roll), then a new match begins.
    journal.start_match(MatchRules(sequence=("portes",), target=1))
    journal.start_game("portes", Rules.for_variant("portes"))
    journal.record_opening_roll(*dice[0], OpeningRoll(WHITE))
    journal.record_roll(WHITE, dice[1])
    journal.end_match("abandoned")
    journal.start_match(MatchRules(sequence=("portes",), target=1))
    seat._send_plays()
    assert json.loads((tmp_path / "journal.sqlite3-remote.json").read_text())["dice"] == list(dice[2])
    after = pair.seat(secret_seed=2)
    assert (after.dice.roll_die(), after.dice.roll_die()) == dice[2] and after.dice.left() == 0
    assert after.next_roll == 4


def test_a_forfeit_taken_before_a_restart_ends_the_match_after_it_and_once_journaled_a_new_match_begins(tmp_path):
    pair = Pair(tmp_path)
    journal = Journal.open(tmp_path / "journal.sqlite3")
    before = pair.seat(secret_seed=1)
    agree_roll(pair, before, 1)
    before._receive(pair.envelope({"type": "forfeit", "reason": "table-1 did not reveal"}))
    assert before.forfeited and isinstance(pair.posted[-1], RemoteForfeit)
    pair.posted.clear()
    # Stopped before the loop journaled it: the forfeit is posted again at the start.
    again = pair.seat(secret_seed=2)
    assert again.forfeited and pair.posted == [RemoteForfeit(WHITE, "table-2: table-1 did not reveal")]
    journal.record_fault("remote_forfeit", "table-2: table-1 did not reveal", loser="white")
    # Journaled: the match is over; a restart of both boards begins a new remote match, from roll 1.
    pair.posted.clear()
    new = pair.seat(secret_seed=3)
    assert not new.forfeited and new.next_roll == 1 and new.dice.left() == 0 and not pair.posted


def test_a_message_that_comes_before_one_it_follows_is_asked_for_again_and_taken_in_order(tmp_path):
    pair = Pair(tmp_path)
    seat = pair.seat(secret_seed=1)
    first = pair.envelope({"type": "warning", "roll": 1, "message": "first"})
    second = pair.envelope({"type": "warning", "roll": 1, "message": "second"})
    seat._receive(second)   # the first was lost on the way
    words = [envelope["body"] for envelope in seat.client.sent if envelope["stream"] == "resume/table-2"]
    assert words == [{"type": "resume", "taken": 0, "answer": False}] and not pair.posted
    # table-2 answers by sending both again, announced.
    seat._receive(pair.control({"type": "resending", "first": 1, "last": 2}, seq=10))
    seat._receive(first)
    seat._receive(second)
    assert faults(pair.posted) == ["table-2 warns: first", "table-2 warns: second"]


def test_a_message_whose_type_names_no_kind_of_message_is_refused_as_such(tmp_path):
    """A signed message is taken only as one of the match's kinds: a type that happens to name another
    method of the seat's ("up", "resume") is refused as unknown and changes nothing."""
    pair = Pair(tmp_path)
    seat = pair.seat(secret_seed=1)
    for kind in ("up", "resume", "unknown"):
        seat._receive(pair.envelope({"type": kind}))
    assert faults(pair.posted) == [f"refused a message from the broker: table-2: no message of type {kind!r}"
                                   for kind in ("up", "resume", "unknown")]
    assert seat.next_roll == 1 and not bodies(seat)
