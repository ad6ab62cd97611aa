"""A remote seat refuses what it cannot verify, with a fault journaled and shown and nothing applied: a
play signed with another key (nobody else on the broker can inject one), a genuine message sent again
(a replay), and a board that committed to its dice secret and does not reveal it forfeits the match
after a warning. Board table-1 is a simulated board on a real Mosquitto; table-2 is played by the
test, with table-2's key or without it."""
import io

import pytest
from club_kit import wait_until
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from remote_kit import CLUB, WAIT_S, Opponent

from firmware_host.club.dice import RollExchange, RollId
from firmware_host.club.envelope import Signer
from firmware_host.controller import machine as m
from firmware_host.demo.club import open_board, remote_pair
from firmware_host.journal import JournalReader, Kind
from firmware_host.rules import BLACK, Position, Rules, Turn
from firmware_host.rules.match import MatchRules
from firmware_host.service.club import board_key


def wait_for(condition, what: str):
    return wait_until(condition, what, WAIT_S)


@pytest.fixture
def table_1(tmp_path, broker):
    """table-1 (white) as a simulated board, and the test's table-2 (black) with table-2's key."""
    board, other = remote_pair(("table-1", "table-2"), tmp_path, "127.0.0.1", broker.port, CLUB,
                               MatchRules(sequence=("portes",), target=3), seed=5, speed=8.0,
                               outs=(io.StringIO(), io.StringIO()), reveal_timeout_s=0.5)
    keys = {name: board_key(tmp_path / name / "club-board.key") for name in ("table-1", "table-2")}
    opponent = Opponent(broker.port, keys["table-2"], keys["table-1"].public_key())
    try:
        with open_board(board) as demo:
            # table-1's seat subscribes, then asks table-2 for what it missed: once that ask is here, the
            # broker has the subscription, and what the test sends cannot be lost before it (a loaded
            # machine connected table-1 after the test's play had gone).
            wait_for(lambda: any(body["type"] == "resume" for body in opponent.received), "table-1's seat listening")
            yield demo, opponent, board
    finally:
        opponent.close()


def faults(journal) -> list[dict]:
    with JournalReader.open(journal) as reader:
        return [dict(event.data) for event in reader.tail(1000) if event.kind == Kind.FAULT]


def black_play() -> dict:
    """A legal play of black's from the start of portes, as a journal records it."""
    start = Position.start("portes").with_turn(BLACK)
    play = Turn(start, (6, 5), Rules.for_variant("portes")).plays()[0]
    return {"type": "play", "side": "black", "dice": [6, 5], "moves": [move.to_json() for move in play.moves],
            "position": play.position.to_json()}


def test_a_play_signed_with_another_key_is_refused_shown_and_journaled(tmp_path, broker, table_1):
    demo, opponent, board = table_1
    opponent.send(black_play(), signer=Signer("table-2", Ed25519PrivateKey.generate()))   # table-2's name, another key
    seen = demo.table.wait(lambda view: view.remote_fault is not None, "the forged play refused")
    assert "signature does not match" in seen.remote_fault
    assert seen.to_json()["faults"]["remote"] == seen.remote_fault
    assert any(fault["fault"] == "remote_refused" and "signature" in fault["message"] for fault in faults(board.journal))
    assert seen.remote_fault and not seen.awaiting_remote_play and seen.last_play is None


def test_a_genuine_message_sent_again_is_refused_as_a_replay(tmp_path, broker, table_1):
    demo, opponent, board = table_1
    payload = opponent.send({"type": "warning", "roll": 1, "message": "genuine, once"})
    first = demo.table.wait(lambda view: view.remote_fault is not None, "the genuine warning taken")
    assert "genuine, once" in first.remote_fault
    opponent.publish(payload)   # the very same signed message, recorded and sent again
    seen = demo.table.wait(lambda view: view.remote_fault != first.remote_fault, "the replay refused")
    assert "replayed" in seen.remote_fault
    messages = [fault["message"] for fault in faults(board.journal)]
    assert sum("genuine, once" in message for message in messages) == 1   # taken once
    assert sum("replayed" in message for message in messages) == 1


def test_a_board_that_committed_and_does_not_reveal_is_warned_then_forfeits(tmp_path, broker, table_1):
    demo, opponent, board = table_1

    # table-2 commits to the first roll, as a board does when it begins, and never reveals its secret.
    exchange = RollExchange(RollId(f"{CLUB}/table-1+table-2", 1), "table-2", "table-1", bytes(32))
    opponent.send({"type": "commit", "roll": 1, "commitment": exchange.my_commitment})
    over = demo.table.wait(lambda view: view.state == m.MATCH_OVER, "the forfeit")
    assert over.match.winner.value == "white" and over.match.games[-1].result.reason == "forfeit"
    # table-1 revealed (after table-2's commitment), then warned table-2, then told it that it forfeits
    # (the word crosses the broker after the match is over on table-1).
    wait_for(lambda: any(body["type"] == "forfeit" for body in opponent.received), "table-2 told it forfeits")
    kinds = [body["type"] for body in opponent.received]
    assert kinds.index("reveal") < kinds.index("warning") < kinds.index("forfeit")
    journaled = faults(board.journal)
    assert [fault["fault"] for fault in journaled if fault["fault"].startswith("remote")] == ["remote_late", "remote_forfeit"]
    with JournalReader.open(board.journal) as reader:
        ends = [dict(event.data) for event in reader.tail(100) if event.kind in (Kind.GAME_ENDED, Kind.MATCH_ENDED)]
    assert ends[0]["reason"] == "forfeit" and ends[1] == {"reason": "won", "winner": "white", "score": {"white": 3, "black": 0}}
