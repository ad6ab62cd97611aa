"""A club tournament through faults (issue 31): the broker killed (kill -9) and restarted in the middle
of a round, the hub killed (kill -9) and restarted in the middle of another, and a board offline for
an hour, then back. Checks that every record of every board (each play and result) is in the hub's
records exactly once and in the board's order, and that the ladder's ratings equal a recomputation
from the results the boards played.

Run: .venv/bin/python bench/bench_club_faults.py [--boards 8] [--rounds 5] [--json FILE]

The club is locked as `tavli-board club broker-config` writes it; the hub is `tavli-board club hub`,
its own process; the boards are light boards (bench_club_common.py: real journals, the real
`ClubPublisher`, random legal plays), one thread each, a turn every 50 ms (fast, to play a tournament
in minutes). A Swiss tournament of twice as many players as boards, one game a match, each match of a
round at a board; the director seats each match at the hub (as `tavli-board club seat` does) from
`club matches`. The faults, by round:

    1  none
    2  the broker killed one second into the round, started again three seconds later
    3  the hub killed one second into the round, started again three seconds later
    4+ the last board offline from the start of round 4: it plays its tournament matches and then
       casual games until it has played an hour of turns at game rate (450 turns, one every 8 s; its
       journal's clock runs on by 8 s a turn), and comes back when the last round is over

The hour is simulated: the records are an hour's, written in seconds.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import paho.mqtt.client as mqtt

from bench_club_common import CLUB, READER, Club, LightBoard, ProcessFigures, machine, write_record
from firmware_host.club.ratings import GameResult, Ladder
from firmware_host.club.tournament import Swiss
from firmware_host.hub.store import HubStore, MatchKey
from firmware_host.rules import Color

TURN_PAUSE_S = 0.05
HOUR_TURNS = 450        # an hour at game rate: a turn every 8 s
WAIT_S = 300


class HourClock:
    """A journal's wall clock that runs on by `step` for every turn played offline."""

    def __init__(self):
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


class Witness:
    """Every journal message on the broker, counted per record (a record sent again shows twice)."""

    def __init__(self, club: Club):
        self.seen: Counter[tuple[str, int]] = Counter()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-witness")
        self.client.username_pw_set(READER, club.reader_password())
        self.client.reconnect_delay_set(0.2, 2)
        self.client.on_connect = lambda client, *rest: client.subscribe(f"tavli/{CLUB}/+/journal", qos=1)
        self.client.on_message = self.received
        self.client.connect_async("127.0.0.1", club.port)
        self.client.loop_start()

    def received(self, client, userdata, message) -> None:
        envelope = json.loads(message.payload)
        self.seen[envelope["board"], envelope["seq"]] += 1

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def twice(witness: Witness, board: str) -> dict:
    """How many of a board's records went by more than once, and the numbers of the first and last."""
    seqs = sorted(seq for (name, seq), count in witness.seen.items() if name == board and count > 1)
    return {"count": len(seqs), "first": seqs[0] if seqs else None, "last": seqs[-1] if seqs else None}


def play_game(board: LightBoard, clock: HourClock | None = None) -> tuple[int, str, Color | None, int]:
    """One match of one game to its end: its number, variant, winner and turns."""
    match, variant = board.start_match()
    turns = 0
    while True:
        dice = board.roll()
        _, winner = board.play(dice)
        turns += 1
        if clock is not None:
            clock.ahead += 8.0
        else:
            time.sleep(TURN_PAUSE_S)
        if board.position is None:
            return match, variant, winner, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    if args.rounds < 4:
        parser.error("--rounds: 4 or more (the board goes offline at round 4)")
    command = "bench/bench_club_faults.py " + " ".join(sys.argv[1:])
    players = [f"player-{number:02d}" for number in range(1, 2 * args.boards + 1)]
    tournament = Swiss(players, args.rounds)
    events, seatings, expected = [], {}, []   # expected: (board, match, GameResult) as the boards played them
    with tempfile.TemporaryDirectory(prefix="bench-club-faults-") as name:
        folder = Path(name)
        club = Club.create(folder, args.boards)
        club.start_broker()
        club.start_hub()
        witness = Witness(club)
        clocks = {club.boards[-1]: HourClock()}
        boards = [LightBoard(club, board, folder, seed=index, wall_clock=clocks.get(board, time.time))
                  for index, board in enumerate(club.boards)]
        for board in boards:
            board.connect()
        offline, offline_turns, before_offline = boards[-1], 0, 0
        started = time.monotonic()

        def note(what: str) -> None:
            events.append({"at_s": round(time.monotonic() - started, 1), "what": what})
            print(events[-1], flush=True)

        for number in range(1, args.rounds + 1):
            round_ = tournament.next_round()
            if number == 4:
                offline.disconnect()
                before_offline = len(offline.journal.records_after(0, 1_000_000))
                note(f"{offline.name} offline")

            def play_pairing(board: LightBoard, white: str, black: str) -> None:
                """The pairing's match at `board`; a tie (no winner) is played again."""
                nonlocal offline_turns
                clock = clocks.get(board.name) if board is offline and number >= 4 else None
                winner = None
                while winner is None:
                    match, variant, winner, turns = play_game(board, clock)
                    if clock is not None:
                        offline_turns += turns
                    seatings[board.name, match] = (white, black)
                names = {Color.WHITE: white, Color.BLACK: black}
                loser = Color.BLACK if winner == Color.WHITE else Color.WHITE
                expected.append((board.name, match, GameResult(names[winner], names[loser], variant)))
                tournament.record(names[winner], names[loser])

            pool = ThreadPoolExecutor(len(boards))
            playing = [pool.submit(play_pairing, board, pairing.first, pairing.second)
                       for board, pairing in zip(boards, round_.pairings)]
            time.sleep(1.0)
            if number == 2:
                club.kill_broker()
                note("broker killed (kill -9)")
                time.sleep(3)
                club.start_broker()
                note("broker started again")
            if number == 3:
                club.kill_hub()
                note("hub killed (kill -9)")
                time.sleep(3)
                club.start_hub()
                note("hub started again")
            for match in playing:
                match.result()     # a board's fault ends the bench
            pool.shutdown()
            note(f"round {number} played")
        while offline_turns < HOUR_TURNS:          # the rest of the hour: casual games, not seated
            offline_turns += play_game(offline, clocks[offline.name])[3]
        offline_records = len(offline.journal.records_after(0, 1_000_000))
        note(f"{offline.name} back after {offline_turns} turns ({offline_turns * 8 / 3600:.2f} h at game rate)")
        back = time.monotonic()
        offline.connect()

        store = HubStore(folder / "hub.sqlite3")
        journals = {board.name: [event.seq for event in board.journal.records_after(0, 1_000_000)] for board in boards}

        def kept(board: str) -> list[int]:
            return [seq for (seq,) in store._run("SELECT seq FROM messages WHERE board = ? ORDER BY rowid", (board,))]

        deadline = time.monotonic() + WAIT_S
        while kept(offline.name) != journals[offline.name] and time.monotonic() < deadline:
            time.sleep(0.2)
        caught_up_s = round(time.monotonic() - back, 1)
        while any(kept(board) != seqs for board, seqs in journals.items()) and time.monotonic() < deadline:
            time.sleep(0.5)
        note("every journal at the hub" if all(kept(board) == seqs for board, seqs in journals.items())
             else "NOT every journal at the hub")
        hub_figures = {"cpu_s": ProcessFigures(club.hub.pid).cpu_s(), **ProcessFigures(club.hub.pid).memory_mb()}
        # The director seats each tournament match, found with `club matches`.
        streams = {(match["board"], match["match"]): match["stream"] for match in store.matches()}
        for (board, match), (white, black) in seatings.items():
            store.seat(MatchKey(board, streams[board, match], match), white, black)
        boards_kept = {board: kept(board) for board in journals}
        accepted = {(match["board"], match["match"]): game.get("accepted") for match in store.matches() for game in match["games"]}
        results = store.results()
        ladder = store.ladder().to_json()
        again = HubStore(folder / "hub.sqlite3")
        ladder_again = again.ladder().to_json()
        again.close()
        store.close()
        refused = (folder / "hub.log").read_text().count("refused a message")
        dropped = (folder / "broker.log").read_text().count("Outgoing messages are being dropped")
        witness.close()
        for board in boards:
            board.close()
        club.close()
    in_hub_order = [result for _, _, result in sorted(expected, key=lambda item: accepted[item[0], item[1]])]
    recomputed = Ladder.of(in_hub_order).to_json()
    record = {
        "what": "a Swiss tournament through a broker and a hub killed and restarted and a board offline for an hour",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": command, "machine": machine(),
        "boards": args.boards, "players": len(players), "rounds": args.rounds, "turn_pause_s": TURN_PAUSE_S,
        "events": events,
        "records_per_board": {board: len(seqs) for board, seqs in journals.items()},
        "records_in_all": sum(len(seqs) for seqs in journals.values()),
        "every_record_once_in_order": all(boards_kept[board] == seqs for board, seqs in journals.items()),
        "records_missing_at_hub": sum(len(set(seqs) - set(boards_kept[board])) for board, seqs in journals.items()),
        "records_kept_twice": sum(len(kept_) - len(set(kept_)) for kept_ in boards_kept.values()),
        "records_seen_more_than_once_on_the_wire": sum(1 for count in witness.seen.values() if count > 1),
        "records_seen_more_than_once_per_board": {board: twice(witness, board) for board in journals},
        "messages_refused_by_hub": refused,
        "broker_dropped_messages_notices": dropped,
        "offline_board": {"board": offline.name, "turns_offline": offline_turns, "simulated_hours": round(offline_turns * 8 / 3600, 2),
                          "records_in_its_journal": offline_records, "records_before_offline": before_offline,
                          "caught_up_s": caught_up_s},
        "tournament_games": len(expected),
        "results_at_hub_equal_the_boards": sorted(map(repr, results)) == sorted(repr(result) for _, _, result in expected),
        "ladder_equals_recomputation": ladder == recomputed == ladder_again,
        "standings": tournament.standings()[:5],
        "hub_at_end": hub_figures,
    }
    write_record(record, args.json)
    if not (record["every_record_once_in_order"] and record["ladder_equals_recomputation"]
            and record["results_at_hub_equal_the_boards"]):
        raise SystemExit("the club lost, doubled or misrated something: see the record")


if __name__ == "__main__":
    main()
