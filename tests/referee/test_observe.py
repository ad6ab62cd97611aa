"""Sensors that see a location's count and its bottom checker's colour: no two boards of a turn look alike.

Over the play trees of random games of every variant, every board a turn can pass through (the start,
each checker moved, every end of the first stage's dice) is mapped to what such sensors report, and
back: the board comes back, so the referee judging the observation judges the board.
"""
import random

import pytest

from firmware_host.referee.judge import Reading
from firmware_host.referee.observe import observe, resolve, unstacked
from firmware_host.referee.steps import Step
from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn, VARIANTS, blocked_for_good

GAMES_PER_VARIANT = 3
TURN_LIMIT = 300


def boards_of_turn(turn: Turn) -> list[Position]:
    """Every board reachable by moving checkers one die at a time with the first stage's dice."""
    frame, dice = turn.frame, tuple(sorted(turn.stages[0]))
    seen = {(turn.start, dice)}
    frontier = [(turn.start, dice)]
    while frontier:
        node, left = frontier.pop()
        for die in set(left):
            rest = list(left)
            rest.remove(die)
            for following, _move in frame.steps(node, die):
                key = (following, tuple(rest))
                if key not in seen:
                    seen.add(key)
                    frontier.append(key)
    return [frame.to_position(node, played_turn=False) for node in {node for node, _ in seen}]


def turns_of_random_games(variant: str, seed: int):
    rng = random.Random(seed)
    rules = Rules.for_variant(variant)
    for _ in range(GAMES_PER_VARIANT):
        position = Position.start(variant, rng.choice((WHITE, BLACK)))
        for _turn in range(TURN_LIMIT):
            turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
            yield turn
            play = turn.pick_play(rng.choice)
            position = play.position
            if play.result is not None or (not play.moves and blocked_for_good(position, rules)):
                break


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_board_of_every_turn_is_told_apart_by_count_and_bottom_colour(variant):
    boards = mixed = 0
    for turn in turns_of_random_games(variant, seed=sum(map(ord, variant))):
        for board in boards_of_turn(turn):
            boards += 1
            mixed += any(w and b for w, b in zip(board.white, board.black))
            assert resolve(observe(board), turn.position) == Reading.of(board), (
                f"{variant}: from\n{turn.position.diagram()}\nwith {turn.dice} the board\n{board.diagram()}\n"
                "looks like another board of the same turn")
    assert boards > 1000
    if variant in ("plakoto", "tapa"):
        assert mixed > 50                         # the interesting boards (pins) were there


def test_a_pinned_point_is_seen_as_its_count_in_the_pinned_checkers_colour():
    # Plakoto: white moves 24/20 onto black's blot and pins it.
    start = Position.from_json({"variant": "plakoto", "turn": "white",
                                "white": {"points": {"24": 15}}, "black": {"points": {"1": 14, "20": 1}}})
    pinning = Position.from_json({"variant": "plakoto", "turn": "white",
                                  "white": {"points": {"24": 14, "20": 1}}, "black": {"points": {"1": 14, "20": 1}},
                                  "pinned": {"20": "black"}})
    seen = observe(pinning)
    assert (seen.white[19], seen.black[19]) == (0, 2)
    assert (seen.white[23], seen.black[23]) == (14, 0)
    assert resolve(seen, start) == Reading.of(pinning)


def test_readings_that_count_both_colours_are_judged_as_they_are():
    start = Position.start("portes")
    mixed = Reading.from_json({"variant": "portes", "white": {"points": {"1": 1, "24": 1, "13": 5, "8": 3, "6": 5}},
                               "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
    assert resolve(mixed, start) == mixed


def test_setup_steps_put_no_checker_on_the_other_colour_where_that_can_be_helped():
    board = Reading.from_json({"variant": "portes", "white": {"points": {"5": 1, "7": 1}},
                               "black": {"points": {"6": 1}}})
    steps = (Step(WHITE, "5", "6"), Step(BLACK, "6", "8"), Step(WHITE, "7", "9"))
    assert unstacked(steps, board) == (Step(BLACK, "6", "8"), Step(WHITE, "5", "6"), Step(WHITE, "7", "9"))
    swap = (Step(WHITE, "5", "6"), Step(BLACK, "6", "5"))      # each waits for the other: kept as given
    assert unstacked(swap, Reading.from_json({"variant": "portes", "white": {"points": {"5": 1}},
                                              "black": {"points": {"6": 1}}})) == swap
