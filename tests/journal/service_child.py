"""Run by test_service_kill: the `tavli-board run` service on the simulated board, played by the
demo's scripted players, on a journal and a board that outlive the process.

    python service_child.py FOLDER SEED [--one-match]

The service is `Service.open` + `Service.run`, as `tavli-board run` opens and runs it, with the
demo's fast timings, seeded dice and the simulated board laid out as FOLDER/board.json says (what
the real board would still show after a power cut, every stack as it lies). The players are the
demo's (`Players` on a `Demo`); `ServiceRig` gives them the service's hardware and loop instead of a
demo's own, and `ResumingPlayers` first takes back a turn the last process left half played (a
scripted turn is planned from the turn's start).

Prints `ready` once the service told systemd so, `committed SEQ` once a play's record is in the
journal (the press was handled), `took back a half-played turn` when the service went on in a turn
the last process left half played, `shown after the journal` as each roll to play is first shown
(see `check_rolls_are_journaled_before_shown`), and `match over` at each match's end. Plays
matches one after another, or (`--one-match`) plays the journal's match to its end and exits 0.
"""
import dataclasses
import json
import os
import sys
import threading
from pathlib import Path

from firmware_host.controller import Timings
from firmware_host.controller import machine as m
from firmware_host.controller.view import GameView
from firmware_host.demo import Demo, Players, Settings, Table, demo_config
from firmware_host.hw.dice import SeededDice
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.hw.events import DicePressed
from firmware_host.journal import JournalReader, Kind
from firmware_host.journal.export import fold
from firmware_host.rules import Position
from firmware_host.rules.match import MatchRules
from firmware_host.service.logs import setup_logging
from firmware_host.service.run import Service
from firmware_host.sim.board import SimBoard

SPEED = 16.0
MATCH = MatchRules(sequence=("portes", "plakoto"), target=3)


class ServiceRig(Demo):
    """What `Players` use of a `Demo` (hands on the board and the button, the table they watch),
    on a running service's hardware. Not `Demo.__init__`: the service opened everything."""

    def __init__(self, service: Service, settings: Settings):
        self.settings, self.config, self.journal = settings, service.config, service.journal
        self.hardware, self.loop = service.hardware, service.loop
        self.board = service.hardware.simulation.board
        self.mcu = service.hardware.simulation.mcu
        self.renderer = service.loop.renderer
        self.table = Table()
        service.loop.observers.append(self.table.observe)


class ResumingPlayers(Players):
    def play_turn(self, seen: GameView) -> GameView:
        start = laid_out(seen.position, seen.orientation)
        if self.demo.board.reading() != start:   # a turn the killed process left half played
            print("took back a half-played turn", flush=True)
            pinned_at_bottom = {f"point:{seen.orientation.point(number)}": color.value
                                for number, color in enumerate(seen.position.pinned, 1) if color is not None}
            self.demo.board.set_reading(start, pinned_at_bottom)
            seen = self.demo.settled_view()
        return super().play_turn(seen)


def keep_board(board: SimBoard, path: Path, stop: threading.Event) -> None:
    """Write the board's stacks to `path` whenever they change (replaced whole: a kill never leaves half
    a file)."""
    last = None
    while not stop.wait(0.01):
        stacks = board.stacks()
        if stacks != last:
            part = path.with_suffix(".part")
            part.write_text(json.dumps(stacks))
            os.replace(part, path)
            last = stacks


def board_as_left(path: Path) -> SimBoard:
    """The board as the last process left it (`keep_board`'s file)."""
    board = SimBoard()
    board.set_stacks(json.loads(path.read_text()))
    return board


def report_commits(service: Service):
    """An observer printing the seq of each play the journal holds once the press is handled."""
    printed: set[int] = set()

    def observe(view, event) -> None:
        if isinstance(event, DicePressed):
            for record in service.journal.tail(6):
                if record.kind is Kind.PLAY and record.seq not in printed:
                    printed.add(record.seq)
                    print(f"committed {record.seq}", flush=True)
    return observe


def check_rolls_are_journaled_before_shown(service: Service) -> None:
    """Before each frame that shows a new roll to play, read the journal through a connection of its
    own (it sees only committed records, and synchronous=FULL has them on disk by then): it must
    hold that roll, and the position it is played from, so the play before it. Prints
    `shown after the journal` or `SHOWN BEFORE THE JOURNAL ...`."""
    reader = JournalReader.open(service.config.journal_path)
    strip, controller = service.hardware.strip, service.loop.controller
    show, checked = strip.show, []

    def checked_show(frame) -> None:
        turn = (controller.position, controller.dice)
        if controller.state == m.MOVING and turn not in checked[-1:]:
            checked.append(turn)
            game = fold(reader.match_events(controller.match_id)).game
            if game is not None and (game.position, game.pending_roll) == turn:
                print("shown after the journal", flush=True)
            else:
                print(f"SHOWN BEFORE THE JOURNAL: {controller.dice} from {controller.position.to_json()}", flush=True)
        show(frame)
    strip.show = checked_show


def main(folder: Path, seed: int, one_match: bool) -> int:
    config = demo_config(SPEED, folder)
    config = dataclasses.replace(config, match_rules=MATCH,
                                 logging=dataclasses.replace(config.logging, file=folder / "tavli-board.log"))
    setup_logging(config.logging)   # as `tavli-board run` does; stderr goes to the test's file
    board_file = folder / "board.json"
    if board_file.exists():
        board = board_as_left(board_file)
    else:   # the first start: the board set up for the first game, some way round
        board = SimBoard(laid_out(Position.start(MATCH.sequence[0]), list(Orientation)[seed % len(Orientation)]))
    service = Service.open(config, dice=SeededDice(seed),
                           timings=Timings(refusal_s=Timings.refusal_s / SPEED, game_over_s=Timings.game_over_s / SPEED),
                           board=board)
    settings = Settings(MATCH, seed=seed, speed=SPEED, out=open(os.devnull, "w"), boards="none")
    rig = ServiceRig(service, settings)
    service.loop.observers.append(report_commits(service))
    check_rolls_are_journaled_before_shown(service)
    stop_keeping = threading.Event()
    keeper = threading.Thread(target=keep_board, args=(rig.board, board_file, stop_keeping), daemon=True)
    keeper.start()
    loop = threading.Thread(target=service.run, name="service")
    loop.start()
    try:
        rig.table.wait(lambda seen: seen.state != m.RESUMING and service.ready, "the service to take up the board")
        print("ready", flush=True)
        players = ResumingPlayers(rig, seed)
        while True:
            players.play_match()
            print("match over", flush=True)
            if one_match:
                return 0
            players.press()   # a new match
    finally:
        service.stop()
        loop.join(20)
        stop_keeping.set()
        keeper.join()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2]), "--one-match" in sys.argv[3:]))
