"""A remote match: two simulated boards (the demo's rig and scripted players) play one match through a
real Mosquitto, each the seat of one player. Each board's players make their own colour's plays and
move the other board's as their lights show them, the referee holding the board to them; the dice
come from both boards (commit, then reveal), here from seeded secrets, so the match is the same short
one every run. One board is stopped twice in the middle of the match and started again from its
files alone (its journal and the seat's kept state): once in its own turn, its dice rolled, and once
in the other board's turn with that board's play lit for its players to make. Both journals end with
the same match: the same dice, in the same order, and the same plays.

The stop is in-process: the scripted players drive the simulated board through objects of this
process, and a board's physical checkers stay where they lie across a power cut, which a killed
process would lose. Everything of the stopped board is dropped (its loop, controller, seat, players and
their memory) and made anew from the files, as the service is after a kill; the seat writes its file
whole and renames it, so a kill between two writes leaves what a stop after the first leaves."""
import dataclasses
import io
import threading

from firmware_host.controller import machine as m
from firmware_host.demo.club import last_match, open_board, remote_pair
from firmware_host.demo.players import Players
from firmware_host.demo.rig import Demo
from firmware_host.journal import JournalReader, Kind
from firmware_host.rules import BLACK
from firmware_host.rules.match import MatchRules

# Plakoto, the shortest game (pins lit across boards too), from dice secrets seeded to a short match;
# all nine games, each once and with fresh secrets, are bench/bench_remote_seat.py's.
FAMILY, SECRETS_SEED = "plakoto", 7


def pair(tmp_path, port: int):
    return remote_pair(("table-1", "table-2"), tmp_path, "127.0.0.1", port, "kefalonia",
                       MatchRules(sequence=(FAMILY,), target=1), seed=11, speed=8.0,
                       outs=(io.StringIO(), io.StringIO()), secrets_seed=SECRETS_SEED)


class Stops:
    """Where table-2 (black) is stopped: at the third of its own turns, its dice rolled and nothing yet
    moved, and at the third of table-1's turns, table-1's play lit on table-2 for its players to make."""

    def __init__(self):
        self.seen: dict[str, list] = {"own turn": [], "other's play lit": []}
        self.stopped: list[str] = []

    def __call__(self, view) -> bool:
        if view.state == m.MATCH_OVER:
            return True
        if view.state != m.MOVING:
            return False
        moment = "own turn" if view.turn is BLACK else "other's play lit" if view.bot_play is not None else None
        if moment is None or moment in self.stopped:
            return False
        turns = self.seen[moment]
        if (view.game_number, view.position) not in turns:
            turns.append((view.game_number, view.position))
        if len(turns) == 3:
            self.stopped.append(moment)
            return True
        return False


def play(demo, seed: int, until):
    players = Players(demo, seed)
    players.stunts.clear()   # each plays its match plainly
    return players.play_until(until)


def play_to_the_end(demo, seed: int, ended: list) -> None:
    """table-1's players, on a thread of their own: how they ended, or what stopped them."""
    try:
        ended.append(play(demo, seed, lambda view: view.state == m.MATCH_OVER))
    except BaseException as error:   # raised by the test
        ended.append(error)


def remote_refusals(journal) -> list[dict]:
    with JournalReader.open(journal) as reader:
        return [dict(event.data) for event in reader.tail(10_000)
                if event.kind == Kind.FAULT and event.data["fault"].startswith("remote")]


def test_a_remote_match_with_a_board_stopped_and_restarted_twice_ends_the_same_in_both_journals(tmp_path, broker):
    board_a, board_b = pair(tmp_path, broker.port)
    stops, table_1 = Stops(), []
    with open_board(board_a) as demo_a:
        demo_b = open_board(board_b).__enter__()
        try:
            runner = threading.Thread(target=play_to_the_end, args=(demo_a, 11, table_1), name="players-table-1",
                                      daemon=True)
            runner.start()
            while (seen := play(demo_b, 12, stops)).state != m.MATCH_OVER:
                demo_b.__exit__(None, None, None)
                # The same board, its checkers where they lie (pinned ones under their pinners).
                demo_b = Demo(dataclasses.replace(board_b.settings, resume=True), board_b.folder, demo_b.board).__enter__()
            runner.join(60)
        finally:
            demo_b.__exit__(None, None, None)
    assert stops.stopped == ["own turn", "other's play lit"] or stops.stopped == ["other's play lit", "own turn"]
    [table_1_end] = table_1
    if isinstance(table_1_end, BaseException):
        raise table_1_end
    assert table_1_end.state == m.MATCH_OVER
    a, b = last_match(board_a.journal), last_match(board_b.journal)
    assert a.plays and a.plays == b.plays
    assert a.dice == b.dice
    # Each board's player made one colour's plays; the other board's were moved for it as lit.
    assert {side for side, *_ in a.plays} == {"white", "black"}
    assert a.ended is not None and a.ended == b.ended
    assert table_1_end.score == seen.score
    # Nothing was refused or late: what table-2 missed while it was down came once, in order.
    assert remote_refusals(board_a.journal) == remote_refusals(board_b.journal) == []
