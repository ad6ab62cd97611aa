"""Plays matches through a Journal with seeded random legal plays, as the controller would record them;
checks that a journal's plays chain; runs a child process that writes a journal, and kills it."""
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from firmware_host.journal import Journal, JournalReader, Kind
from firmware_host.journal.proof import MARK_SUFFIX
from firmware_host.rules import Position, Rules, Turn
from firmware_host.rules.match import opening_roll


def start_next_game(journal: Journal, rng: random.Random) -> None:
    """Start the match's next game; decide its starter by opening rolls when the match does not."""
    state = journal.resume()
    variant, starter = state.match.next_variant, state.match.next_starter
    journal.start_game(variant, Rules.for_variant(variant), starter=starter)
    while starter is None:
        white, black = rng.randint(1, 6), rng.randint(1, 6)
        outcome = opening_roll(white, black, state.match.rules.opening_roll)
        journal.record_opening_roll(white, black, outcome)
        starter = outcome.starter


def play_turn(journal: Journal, rng: random.Random) -> int:
    """Roll (unless a roll is pending) and commit a random legal play; returns the play's seq."""
    game = journal.resume().game
    dice = game.pending_roll
    if dice is None:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        journal.record_roll(game.side_to_move, dice)
    play = Turn(game.position, dice, game.rules).pick_play(rng.choice)
    return journal.record_play(game.side_to_move, dice, play)


def step(journal: Journal, rng: random.Random) -> int | None:
    """One step of a match: start a game, or play a turn; the play's seq when a play was committed."""
    if journal.resume().game is None:
        start_next_game(journal, rng)
        return None
    return play_turn(journal, rng)


def play_match(journal: Journal, rng: random.Random, max_steps: int = 100_000) -> None:
    for _ in range(max_steps):
        if journal.resume() is None:
            return
        step(journal, rng)
    raise AssertionError("the match did not end")


def assert_plays_chain(path: Path) -> int:
    """Every play in the journal at `path` is legal from the position before it (the game's start,
    the previous play, or what a referee set), with its dice; returns how many plays there are."""
    position = rules = None
    plays = 0
    with JournalReader.open(path) as journal:
        for event in journal.tail(10 ** 6):
            if event.kind is Kind.GAME_STARTED:
                position = Position.from_json(event.data["position"])
                rules = Rules.for_variant(event.data["variant"], event.data["rules"])
            elif event.kind is Kind.OPENING_ROLL and event.data["starter"]:
                position = position.with_turn(event.data["starter"])
            elif event.kind is Kind.REFEREE and event.data.get("position") is not None:
                position = Position.from_json(event.data["position"])
            elif event.kind is Kind.PLAY:
                after = Position.from_json(event.data["position"])
                legal = {play.position for play in Turn(position, event.data["dice"], rules).plays()}
                assert after in legal, f"play {event.seq} is not legal from the position before it"
                position = after
                plays += 1
    return plays


def run_child(script: Path, args: list[str], *, kill_after_s: float | None, timeout_s: float = 300.0,
              stderr: Path | None = None) -> tuple[list[str], int]:
    """Run `script` (this folder on its PYTHONPATH) with `args`; SIGKILL it after `kill_after_s`
    unless it has ended (None: wait up to `timeout_s` for its end). Returns its stdout lines and exit code."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    with open(stderr or os.devnull, "a") as errors:
        child = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, stderr=errors,
                                 text=True, env=env)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
        reader.start()
        try:
            child.wait(timeout_s if kill_after_s is None else kill_after_s)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
        code = child.wait()
        reader.join()
    return [line.strip() for line in lines], code


def committed_seqs(lines: list[str]) -> list[int]:
    """The seqs a child printed as `committed SEQ`."""
    return [int(line.split()[1]) for line in lines if line.startswith("committed ")]


def power_cut_copy(path: Path, folder: Path) -> Path:
    """The journal at `path`'s files as they are on disk now: taken while it is open, nothing closed or
    checkpointed, as a power cut leaves them."""
    folder.mkdir()
    for suffix in ("", "-wal", "-shm", MARK_SUFFIX):
        source = Path(f"{path}{suffix}")
        if source.exists():
            shutil.copyfile(source, folder / f"{path.name}{suffix}")
    return folder / path.name
