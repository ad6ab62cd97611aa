"""Plays matches through a Journal with seeded random legal plays, as the controller would record them."""
import random

from firmware_host.journal import Journal
from firmware_host.rules import Rules, Turn
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
