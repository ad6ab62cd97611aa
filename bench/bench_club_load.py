"""A café's evening, a hundred tables: boards publishing at game rate to one Mosquitto, the hub taking
it all (issue 31). Measures the time from a play accepted on a board to the play in the hub's records,
which the café screen reads, and the hub's and the broker's CPU and memory.

Run: .venv/bin/python bench/bench_club_load.py [--boards 100] [--seconds 120] [--workers 4] [--json FILE]

The club is locked as `tavli-board club broker-config` writes it (an account per board, the ACL), the
hub is `tavli-board club hub` in a process of its own, and the boards are light boards
(bench_club_common.py: a real journal and the real `ClubPublisher`, random legal plays, no referee),
spread over `--workers` processes. Each board plays a turn every 6 to 10 s (8 on average: a quick
player): its roll journaled and shown, a view of checkers moving a second later, the play journaled and
shown a second after that; a game's end starts the next match. Every turn is three views and two
records, so a hundred boards send about 25 records and 37 views a second.

The play is timed from its journal write (committed: accepted) to the hub's acknowledgement of that
record, which the hub publishes after the record is in its SQLite store: an upper bound of the time to
the store by one hop through the broker. Plays of the first `--warmup` seconds are not counted (a
hundred boards logging in).
"""
from __future__ import annotations

import argparse
import heapq
import json
import logging
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from bench_club_common import CLUB, READER, Club, LightBoard, ProcessFigures, environment, machine, write_record

TURN_S = (6.0, 10.0)


def worker(args: argparse.Namespace) -> None:
    """Boards `--first` .. `--first + --count - 1`, driven until `--seconds` have passed; their plays'
    commit times to `--out`."""
    logging.basicConfig(level=logging.ERROR)   # a board closing says "disconnected": expected here
    club = Club(Path(args.folder), args.boards, args.port)
    boards = [LightBoard(club, club.boards[index], Path(args.folder) / "journals", seed=index)
              for index in range(args.first, args.first + args.count)]
    for board in boards:
        board.connect()
    plays, end = [], time.monotonic() + args.seconds
    pending = [(time.monotonic() + board.random.uniform(*TURN_S), index, "roll", None) for index, board in enumerate(boards)]
    heapq.heapify(pending)
    while pending and pending[0][0] < end:
        at, index, action, dice = heapq.heappop(pending)
        time.sleep(max(0.0, at - time.monotonic()))
        board = boards[index]
        if action == "roll":
            dice = board.roll()
            heapq.heappush(pending, (at + 1.0, index, "moving", dice))
        elif action == "moving":
            board.show("moving", dice)
            heapq.heappush(pending, (at + 1.0, index, "play", dice))
        else:
            seq, _ = board.play(dice)
            plays.append((board.name, seq, time.time()))
            heapq.heappush(pending, (at - 2.0 + board.random.uniform(*TURN_S), index, "roll", None))
    time.sleep(5)                      # the last plays on their way
    for board in boards:
        board.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    Path(args.out).write_text(json.dumps({"plays": plays, "cpu_s": usage.ru_utime + usage.ru_stime,
                                          "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}))


class Acknowledgements:
    """The hub's acknowledgements, each record's first, with the time it came."""

    def __init__(self, club: Club):
        self.first: dict[tuple[str, int], float] = {}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-acknowledgements")
        self.client.username_pw_set(READER, club.reader_password())
        self.client.on_connect = lambda client, *rest: client.subscribe(f"tavli/{CLUB}/hub/ack/+", qos=1)
        self.client.on_message = self.received
        self.client.connect("127.0.0.1", club.port)
        self.client.loop_start()

    def received(self, client, userdata, message) -> None:
        now = time.time()
        ack = json.loads(message.payload)["body"]   # the hub's signed envelope: the record it holds last
        self.first.setdefault((message.topic.rsplit("/", 1)[1], ack["seq"]), now)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the boards play")
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds of play not counted")
    parser.add_argument("--workers", type=int, default=4, help="processes the boards are spread over")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    for name in ("folder", "port", "first", "count", "out"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS, type=str if name in ("folder", "out") else int)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    command = "bench/bench_club_load.py " + " ".join(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="bench-club-") as name:
        folder = Path(name)
        (folder / "journals").mkdir()
        club = Club.create(folder, args.boards)
        club.start_broker()
        club.start_hub()
        acknowledgements = Acknowledgements(club)
        hub, broker = ProcessFigures(club.hub.pid), ProcessFigures(club.broker.pid)
        time.sleep(3)
        share = -(-args.boards // args.workers)
        workers = [subprocess.Popen([sys.executable, __file__, "--worker", "--folder", name, "--port", str(club.port),
                                     "--boards", str(args.boards), "--first", str(first),
                                     "--count", str(min(share, args.boards - first)), "--seconds", str(args.seconds),
                                     "--out", str(folder / f"worker-{first}.json")], env=environment())
                   for first in range(0, args.boards, share)]
        time.sleep(args.warmup)
        cpu_from = {"hub": hub.cpu_s(), "broker": broker.cpu_s(), "at": time.monotonic()}
        samples = []
        while any(process.poll() is None for process in workers):
            samples.append({"hub": hub.memory_mb()["rss_mb"], "broker": broker.memory_mb()["rss_mb"]})
            time.sleep(5)
        window = time.monotonic() - cpu_from["at"]
        cpu = {who: round(100 * (figures.cpu_s() - cpu_from[who]) / window, 1)
               for who, figures in (("hub", hub), ("broker", broker))}
        memory = {"hub": hub.memory_mb(), "broker": broker.memory_mb()}
        results = [json.loads((folder / f"worker-{first}.json").read_text()) for first in range(0, args.boards, share)]
        acknowledgements.close()
        club.close()
    started = min(at for result in results for _, _, at in result["plays"])
    counted = [(board, seq, at) for result in results for board, seq, at in result["plays"] if at - started >= args.warmup]
    latencies = [acknowledgements.first[board, seq] - at for board, seq, at in counted
                 if (board, seq) in acknowledgements.first]
    record = {
        "what": "play accepted on a board -> in the hub's records (its acknowledgement), boards at game rate",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": command, "machine": machine(),
        "boards": args.boards, "board_processes": len(workers), "seconds_played": args.seconds,
        "warmup_s": args.warmup, "turn_every_s": list(TURN_S),
        "plays_counted": len(counted), "plays_without_acknowledgement": len(counted) - len(latencies),
        "plays_per_s": round(len(counted) / (args.seconds - args.warmup), 1),
        "latency_ms": {"p50": round(1000 * statistics.median(latencies)), "p95": round(1000 * percentile(latencies, 0.95)),
                       "p99": round(1000 * percentile(latencies, 0.99)), "max": round(1000 * max(latencies))},
        "plays_by_latency_ms": {f"{low}-{high}": sum(low <= 1000 * latency < high for latency in latencies)
                                for low, high in ((0, 50), (50, 100), (100, 250), (250, 500), (500, 1000), (1000, 10**9))},
        "cpu_percent_of_one_core_while_playing": cpu,
        "memory_at_end": memory,
        "rss_mb_every_5_s": {"hub": [sample["hub"] for sample in samples], "broker": [sample["broker"] for sample in samples]},
        "board_processes_cpu_s": [round(result["cpu_s"], 1) for result in results],
        "board_processes_peak_rss_mb": [result["peak_rss_mb"] for result in results],
    }
    write_record(record, args.json)


if __name__ == "__main__":
    main()
