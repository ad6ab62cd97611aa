"""Sensors that see a location's count and its bottom checker's colour: no two boards of a turn look alike.

Over the play trees of random games of every variant, every board a turn can pass through (the start,
each checker moved, every end of the first stage's dice) is mapped to what such sensors report, and
back: the board comes back, so the referee judging the observation judges the board.
"""
import random

import pytest
from hypothesis import example, given, settings, strategies as st

from firmware_host.referee.judge import Reading, restore
from firmware_host.referee.observe import observe, resolve, unpinned, unstacked
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
            seen = observe(board)
            assert max(seen.white + seen.black) <= 15, f"{variant}: {seen} is more than a snapshot carries"
            assert resolve(seen, turn.position) == Reading.of(board), (
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


def test_a_full_stack_is_seen_as_it_lies():
    # Neverfinishing: Black's fifteenth checker joins the fourteen pinning White's last one on 24. The
    # sensors count 16 there, which can only be 15 on one pinned checker: reported as 1 white and 15 black.
    start = Position.from_json({"variant": "neverfinishing", "turn": "black",
                                "white": {"points": {"1": 12, "2": 2, "24": 1}}, "black": {"points": {"15": 1, "24": 14}},
                                "pinned": {"24": "white"}})
    full = Position.from_json({"variant": "neverfinishing", "turn": "black",
                               "white": {"points": {"1": 12, "2": 2, "24": 1}}, "black": {"points": {"24": 15}},
                               "pinned": {"24": "white"}})
    seen = observe(full)
    assert (seen.white[23], seen.black[23]) == (1, 15)
    assert resolve(seen, start) == Reading.of(full)


def test_clearing_a_full_stack_takes_its_checkers_from_the_top():
    # Plakoto: White's fifteen pin Black's mother on 1. Cleared for portes, whose Black start is 1: the
    # sensors show that point's two colours as they lie, and White's leave from on top of Black's one.
    cleared = Position.from_json({"variant": "plakoto", "turn": "white",
                                  "white": {"points": {"1": 15}}, "black": {"points": {"1": 1, "24": 14}},
                                  "pinned": {"1": "black"}})
    start = Position.start("portes")
    physical = PhysicalBoard.of(cleared, "portes")
    board, sensed = physical.board(), physical.sensed()
    assert (sensed.white[0], sensed.black[0]) == (15, 1)
    for step in unstacked(restore(start, board), board, start, sensed):
        physical.move(step)       # every checker taken from the top
    assert physical.board() == Reading.of(start)


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


def test_two_colours_that_need_each_others_points_cleared_are_parked_apart():
    # White's checker on 5 belongs on 6, Black's on 6 belongs on 5: either order stacks one colour on the
    # other, so one checker is first parked on the nearest empty point the other colour does not need.
    board = Reading.from_json({"variant": "portes", "white": {"points": {"5": 1}}, "black": {"points": {"6": 1}}})
    swap = (Step(WHITE, "5", "6"), Step(BLACK, "6", "5"))
    assert unstacked(swap, board) == (Step(WHITE, "5", "4"), Step(BLACK, "6", "5"), Step(WHITE, "4", "6"))


def test_a_checker_is_parked_on_its_bar_when_no_point_is_empty():
    white = {str(p): 1 for p in range(1, 25, 2)}
    black = {str(p): 1 for p in range(2, 25, 2)}
    board = Reading.from_json({"variant": "portes", "white": {"points": white}, "black": {"points": black}})
    swap = (Step(WHITE, "1", "2"), Step(BLACK, "2", "1"))
    assert unstacked(swap, board) == (Step(WHITE, "1", "bar"), Step(BLACK, "2", "1"), Step(WHITE, "bar", "2"))


def test_a_pin_the_target_keeps_is_made_in_place():
    # Correcting a plakoto board back to one where White pins Black's checker on 20: White goes on top.
    target = Position.from_json({"variant": "plakoto", "turn": "black",
                                 "white": {"points": {"24": 14, "20": 1}}, "black": {"points": {"1": 14, "20": 1}},
                                 "pinned": {"20": "black"}})
    board = Reading.from_json({"variant": "plakoto", "white": {"points": {"24": 15}},
                               "black": {"points": {"1": 14, "20": 1}}})
    assert unstacked((Step(WHITE, "24", "20"),), board, target) == (Step(WHITE, "24", "20"),)
    assert unstacked((Step(WHITE, "24", "20"), Step(BLACK, "20", "19")), board) == \
        (Step(BLACK, "20", "19"), Step(WHITE, "24", "20"))


def start_points(position: Position, color) -> list[int]:
    return [p for p in range(1, 25) if position.count(color, p)]


class PhysicalBoard:
    """Checkers as they lie: a bottom-to-top stack per point, a count per colour on the bars and trays."""

    def __init__(self, variant: str, white: list[int], black: list[int]) -> None:
        self.variant = variant
        self.stacks = {str(p): [] for p in range(1, 25)}
        self.held = {(color, place): 0 for color in (WHITE, BLACK) for place in ("bar", "off")}
        for color, places in ((WHITE, white), (BLACK, black)):
            for place in places:
                if place in (0, 25):
                    self.held[(color, "bar" if place == 0 else "off")] += 1
                else:
                    self.stacks[str(place)].append(color)

    @classmethod
    def of(cls, position: Position, variant: str) -> "PhysicalBoard":
        """`position` laid out for the game of `variant`, each pinned checker under its pinner."""
        physical = cls(variant, [], [])
        for point, stack in physical.stacks.items():
            index = int(point) - 1
            colours = (WHITE, BLACK) if position.pinned[index] is not BLACK else (BLACK, WHITE)
            for color in colours:
                stack.extend([color] * position.count(color, index + 1))
        for color in (WHITE, BLACK):
            physical.held[(color, "bar")], physical.held[(color, "off")] = position.bar[color.index], position.off[color.index]
        return physical

    def move(self, step: Step) -> None:
        if step.origin in self.stacks:
            stack = self.stacks[step.origin]
            assert stack and stack[-1] is step.color, f"{step}: the checker lies under the other colour"
            stack.pop()
        else:
            assert self.held[(step.color, step.origin)] > 0, step
            self.held[(step.color, step.origin)] -= 1
        if step.destination in self.stacks:
            self.stacks[step.destination].append(step.color)
        else:
            self.held[(step.color, step.destination)] += 1

    def board(self) -> Reading:
        """What lies there, colour by colour."""
        return self._reading(lambda stack, color: stack.count(color))

    def sensed(self) -> Reading:
        """What magnet sensors report: each point's count in its bottom checker's colour, a full stack of 16
        as it lies (a snapshot carries at most 15 of a colour)."""
        return self._reading(lambda stack, color: stack.count(color) if len(stack) == 16 else
                             len(stack) if stack and stack[0] is color else 0)

    def _reading(self, count) -> Reading:
        points = [tuple(count(self.stacks[str(p)], color) for p in range(1, 25)) for color in (WHITE, BLACK)]
        return Reading(self.variant, *points, tuple(self.held[(c, "bar")] for c in (WHITE, BLACK)),
                       tuple(self.held[(c, "off")] for c in (WHITE, BLACK)))


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), data=st.data())
@example(variant="portes", data=None)
def test_guidance_from_any_board_to_the_start_keeps_every_board_readable_by_magnet_sensors(variant, data):
    """Follow the guidance as the controller gives it (the first step of the steps from each board the sensors
    report): no checker is ever put on the other colour, every board reads as it is, and the start is reached.
    The boards favour the other colour's starting points, where the two colours wait for each other."""
    start = Position.start(variant)
    if data is None:   # every checker on a starting point of the other colour
        white, black = [1] * 15, [24] * 15
    else:
        white, black = ([data.draw(st.one_of(st.sampled_from(start_points(start, color.opponent)), st.integers(0, 25)))
                         for _ in range(15)] for color in (WHITE, BLACK))
        black = [25 if place in white and place not in (0, 25) else place for place in black]
    physical = PhysicalBoard(variant, white, black)
    for _ in range(3 * 2 * 15):
        reading = resolve(physical.sensed(), start, moving=False)
        assert reading == physical.board()
        steps = unstacked(restore(start, reading), reading, start)
        if not steps:
            break
        physical.move(steps[0])
        assert all(len(set(stack)) <= 1 for stack in physical.stacks.values()), steps[0]
    assert physical.board() == Reading.of(start)


def pinned_positions(variant: str) -> list[Position]:
    return [turn.position for turn in turns_of_random_games(variant, seed=7) if any(turn.position.pinned)][::10]


PINNED_POSITIONS = [position for variant in ("plakoto", "tapa") for position in pinned_positions(variant)]


@settings(max_examples=60, deadline=None)
@given(target=st.sampled_from(PINNED_POSITIONS), data=st.data())
def test_guidance_to_a_board_with_pins_stacks_only_the_pins_the_target_has(target, data):
    """Correcting any board to a pinning game's board: a checker goes on the other colour only to pin the
    one checker the target pins there, and the pins come out with the pinned checker at the bottom."""
    white, black = ([data.draw(st.one_of(st.sampled_from(start_points(target, color.opponent)), st.integers(0, 25)))
                     for _ in range(15)] for color in (WHITE, BLACK))
    black = [25 if place in white and place not in (0, 25) else place for place in black]
    physical = PhysicalBoard(target.variant, white, black)
    board = physical.board()
    for step in unstacked(restore(target, board), board, target):
        physical.move(step)
        for point, stack in physical.stacks.items():
            pinned = target.pinned[int(point) - 1]
            assert len(set(stack)) <= 1 or (stack[0] is pinned and set(stack[1:]) == {pinned.opponent}), \
                f"{step}: point {point} holds {stack}"
    assert physical.board() == Reading.of(target)
    assert physical.sensed() == observe(target)


def test_a_checker_pinned_under_one_that_stays_waits_for_it_to_be_parked():
    # A plakoto board cleared for fevga: White's checker pinned on 12 must go to 24, Black's two on top of
    # it belong on 12. Black's top checkers are parked, White's leaves from under them, and they come back.
    cleared = Position.from_json({"variant": "plakoto", "turn": "white",
                                  "white": {"points": {"12": 1, "24": 14}}, "black": {"points": {"12": 2, "1": 13}},
                                  "pinned": {"12": "white"}})
    start = Position.start("fevga")
    physical = PhysicalBoard.of(cleared, "fevga")
    board = physical.board()
    steps = unstacked(restore(start, board), board, start, physical.sensed())
    assert steps.index(Step(WHITE, "12", "24")) > max(i for i, s in enumerate(steps) if s.color is BLACK and s.origin == "12")
    for step in steps:
        physical.move(step)       # every checker taken from the top
    assert physical.board() == Reading.of(start)


def test_a_checker_put_on_its_bar_does_not_cover_the_other_colours_bar():
    # Each colour's bar is its own: White's checker going to the bar does not lie on Black's, which
    # then enters as it is (this looped for ever, or failed parking a checker "near" the bar).
    target = Position.from_json({"variant": "portes", "turn": "white",
                                 "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 4}, "bar": 1},
                                 "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 4, "5": 1}}})
    board = Reading.from_json({"variant": "portes",
                               "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 4, "10": 1}},
                               "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 4}, "bar": 1}})
    steps = (Step(WHITE, "10", "bar"), Step(BLACK, "bar", "5"))
    assert restore(target, board) == steps
    assert unstacked(steps, board, target) == steps


def test_a_checker_laid_on_the_pinner_of_its_own_pinned_checker_is_seen_and_taken_back_from_the_top():
    # Plakoto, black to move: white pins black's checker on 3, black pins white on 10. Black slides a
    # checker from 10 back onto 3 (no legal play does that): three checkers over black's pinned one. The
    # sensors see three in black; white's pinner cannot come or go in black's turn, so the third is
    # black's, lying on top, and the guidance takes it from there: one step, not "white 3->2, black
    # 2->10" nor a white from under the black one.
    start = Position.from_json({"variant": "plakoto", "turn": "black",
                                "white": {"points": {"3": 1, "2": 2, "10": 1, "24": 11}},
                                "black": {"points": {"3": 1, "10": 2, "23": 12}},
                                "pinned": {"3": "black", "10": "white"}})
    physical = PhysicalBoard.of(start, "plakoto")
    physical.move(Step(BLACK, "10", "3"))
    board, sensed = resolve(physical.sensed(), start), physical.sensed()
    assert board == physical.board()
    steps = unstacked(restore(start, board), board, start, sensed)
    assert steps == (Step(BLACK, "3", "10"),)
    for step in steps:
        physical.move(step)       # asserts that each is taken from the top of its point
    assert physical.board() == Reading.of(start)


@settings(max_examples=60, deadline=None)
@given(cleared=st.sampled_from(PINNED_POSITIONS), variant=st.sampled_from(sorted(VARIANTS)))
def test_clearing_a_pinning_games_board_never_takes_a_checker_from_under_the_other_colour(cleared, variant):
    """Setting up any game on a pinning game's last board, following the guidance the controller gives (the
    first step of the steps from each board the sensors report, the cleared board's pins until seen gone): every
    checker is taken from the top of its stack, every board reads as it is, and the start is reached."""
    start = Position.start(variant)
    physical = PhysicalBoard.of(cleared, variant)
    for _ in range(4 * 2 * 15):
        seen = physical.sensed()
        cleared = unpinned(cleared, seen)
        reading = resolve(seen, cleared, moving=False)
        assert reading == physical.board()
        steps = unstacked(restore(start, reading), reading, start, seen)
        if not steps:
            break
        physical.move(steps[0])
    assert physical.board() == Reading.of(start)
