"""Why a board is illegal, in words (`referee.explain` of the refusals the referee records in its verdict):
each reason is checked against the rule text of shared/spec/rules.md it names, on boards changed by hand
from the games' starts, and in random turns."""
from hypothesis import given, settings
from hypothesis import strategies as st
from referee_kit import NO_CASCADES, changed, moved, random_turns, reading_of

from firmware_host.referee import Reading, Referee, VerdictKind
from firmware_host.referee.explain import explain
from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn


def start(variant: str, turn=WHITE) -> tuple[Position, Reading]:
    position = Position.start(variant, turn)
    return position, reading_of(position)


def said(position: Position, dice, reading: Reading, **options) -> list[str]:
    """Why the referee refuses `reading`, in words: nothing when its verdict is legal."""
    verdict = Referee(position, tuple(dice), Rules.for_variant(position.variant, options)).judge(reading)
    assert verdict.legal or verdict.refusals, verdict
    return explain(verdict.refusals)


def reasons(position: Position, dice, reading: Reading, **options) -> list[str]:
    """What the referee says of a `reading` it judges illegal, in words."""
    verdict = Referee(position, tuple(dice), Rules.for_variant(position.variant, options)).judge(reading)
    assert verdict.kind is VerdictKind.ILLEGAL, verdict.kind
    return explain(verdict.refusals)


def test_only_the_side_to_move_moves_its_checkers():
    position, reading = start("portes")
    assert reasons(position, (6, 5), moved(reading, BLACK, "12", "7")) == [
        "Only white's checkers move in white's turn: black's checkers changed on 7 and 12."]


def test_a_side_has_fifteen_checkers_so_one_missing_is_in_hand_and_more_is_a_fault_not_a_rule_broken():
    position, reading = start("portes")
    referee = Referee(position, (6, 5))
    in_hand = referee.judge(changed(reading, WHITE, "6", -1))
    assert in_hand.kind is VerdictKind.IN_HAND and in_hand.lifted[WHITE] == 1 and not in_hand.refusals
    fault = referee.judge(changed(reading, WHITE, "6", +2))
    assert fault.kind is VerdictKind.FAULT and fault.fault.reason == "17 white checkers seen; a side has 15"


def test_two_checkers_close_a_point_in_the_contrary_games():
    position, reading = start("portes")     # black holds 12 with 5 and 1 with 2
    assert reasons(position, (6, 5), moved(reading, WHITE, "13", "12")) == [
        "Point 12 is held by black (5 checkers): white may not land there."]


def test_one_checker_closes_a_point_in_the_parallel_games():
    position, reading = start("fevga", BLACK)
    # Black starts on 12 and runs 12 -> 1: a 12-point journey lands on white's start, 24, which one checker holds.
    position = Position.from_json({**position.to_json(), "white": {"points": {"24": 14, "6": 1}, "bar": 0, "off": 0}})
    reading = reading_of(position)
    assert reasons(position, (6, 5), moved(reading, BLACK, "12", "6")) == [
        "Point 6 is held by white (1 checker): black may not land there (in fevga a single checker holds a point)."]


def test_a_checker_on_the_bar_enters_first():
    position, _ = start("portes")
    position = Position.from_json({**position.to_json(), "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 4},
                                                                   "bar": 1, "off": 0}})
    reading = reading_of(position)
    assert "white has a checker on the bar: it must enter the opponent's home table before any other checker moves." \
        in reasons(position, (6, 5), moved(reading, WHITE, "13", "7"))


def test_bearing_off_waits_for_all_fifteen_in_the_home_table():
    position, reading = start("portes")
    assert reasons(position, (6, 5), moved(reading, WHITE, "6", "off"))[0] == (
        "Bearing off starts only once all 15 of white's checkers are in the home table (1-6); at the turn's "
        "start white still had checkers on 8, 13 and 24.")


def test_the_first_checker_must_pass_the_opponents_start_before_a_second_leaves():
    position, reading = start("fevga")
    two_runners = moved(moved(reading, WHITE, "24", "18"), WHITE, "24", "19")
    assert reasons(position, (6, 5), two_runners) == [
        "The first checker has not passed the opponent's start (12) yet: until one has, no second white checker "
        "may leave the start point (24)."]


def test_the_head_rule_lets_one_checker_leave_the_head_a_turn_and_two_on_a_first_roll_of_3_4_or_6_doubles():
    position, reading = start("narde")
    two = moved(moved(reading, WHITE, "24", "18"), WHITE, "24", "19")
    assert reasons(position, (6, 5), two) == ["Head rule: only 1 checker may leave the head (24) in a turn; 2 left it."]
    three = moved(moved(moved(reading, WHITE, "24", "20"), WHITE, "24", "20"), WHITE, "24", "20")
    assert reasons(position, (4, 4), three) == ["Head rule: only 2 checkers may leave the head (24) in a turn; 3 left it."]


def test_a_move_longer_than_the_dice_allow():
    position, reading = start("portes")
    assert reasons(position, (2, 1), moved(reading, WHITE, "13", "5")) == [
        "The checkers moved 8 pips; 2-1 allows at most 3."]


def test_a_board_no_single_rule_explains_names_where_the_legal_plays_start():
    position, reading = start("portes")
    # 6 -> 3 is three pips, a single die of neither 6 nor 5: no legal play of 6-5 moves from 6 at all.
    assert reasons(position, (6, 5), moved(reading, WHITE, "6", "3")) == [
        "No legal play of 6-5 moves a checker from 6: the legal plays start from 8, 13 and 24; the whole roll "
        "must be played where it can be (the larger die when only one can)."]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=st.sampled_from(["portes", "plakoto", "fevga", "narde"]))
def test_in_any_turn_an_opponents_checker_moved_or_one_taken_away_is_named(data, variant):
    """Whatever the position and roll: moving one of the opponent's checkers is always named as the
    opponent's move, and a mover's checker taken off the board is one in hand, not a rule broken."""
    turns = list(random_turns(data, variant, NO_CASCADES[variant], max_turns=data.draw(st.integers(1, 30))))
    position, dice = turns[-1]
    mover, other = position.turn, position.turn.opponent
    reading = reading_of(position)
    held = [str(p) for p in range(1, 25) if position.count(other, p) and position.pinned[p - 1] is None]
    free = [str(p) for p in range(1, 25) if not position.count(WHITE, p) and not position.count(BLACK, p)]
    if held and free:
        origin, destination = data.draw(st.sampled_from(held)), data.draw(st.sampled_from(free))
        said = reasons(position, dice, moved(reading, other, origin, destination), **(NO_CASCADES[variant] or {}))
        assert said[0].startswith(f"Only {mover.value}'s checkers move in {mover.value}'s turn: "
                                  f"{other.value}'s checkers changed on "), said
    mine = [str(p) for p in range(1, 25) if position.count(mover, p)]
    if mine:
        taken = changed(reading, mover, data.draw(st.sampled_from(mine)), -1)
        verdict = Referee(position, dice, Rules.for_variant(variant, NO_CASCADES[variant])).judge(taken)
        assert verdict.kind is VerdictKind.IN_HAND and verdict.lifted[mover] == 1 and not verdict.refusals


def test_a_pinned_checker_cannot_move():
    # rules.md, pins: "a pinned checker cannot move; ... it is freed when all pinning checkers have left".
    position = Position.from_json({"variant": "plakoto", "turn": "white",
                                   "white": {"points": {"24": 14, "20": 1}}, "black": {"points": {"1": 14, "20": 1}},
                                   "pinned": {"20": "white"}, "rolls": {"white": 3, "black": 3}})
    reading = moved(reading_of(position), WHITE, "20", "14")
    assert "The white checker on 20 is pinned by black: a pinned checker cannot move until every pinning " \
           "checker has left the point." in reasons(position, (6, 5), reading)
    free = Position.from_json({**position.to_json(), "pinned": {}, "black": {"points": {"1": 15}},
                               "white": {"points": {"24": 14, "20": 1}}})
    # Freed, the same checker's 11 pips are a legal play: nothing refused, so nothing to say why.
    verdict = Referee(free, (6, 5)).judge(moved(reading_of(free), WHITE, "20", "9"))
    assert verdict.kind is VerdictKind.COMPLETE and explain(verdict.refusals) == []


def test_narde_no_prime_without_an_opponent_ahead():
    # rules.md, narde: "A play may not end holding six consecutive points (along the opponent's path)
    # unless an opposing checker on the board is ahead of them."
    def narde(black: dict) -> Position:
        return Position.from_json({"variant": "narde", "turn": "white", "rolls": {"white": 5, "black": 5},
                                   "white": {"points": {"24": 9, "6": 1, "5": 1, "4": 1, "3": 2, "2": 1}},
                                   "black": {"points": black}})

    def finals(position: Position) -> set[Reading]:
        return {Reading.of(play.position) for play in Turn(position, (2, 1)).plays()}

    closed_in = narde({"12": 15})
    prime = moved(moved(reading_of(closed_in), WHITE, "3", "1"), WHITE, "24", "23")
    assert prime not in finals(closed_in)
    assert reasons(closed_in, (2, 1), prime) == [
        "white may not end a play holding six points in a row (6, 5, 4, 3, 2 and 1) with no black checker "
        "ahead of them on black's path."]
    one_ahead = narde({"12": 14, "20": 1})
    same_prime = moved(moved(reading_of(one_ahead), WHITE, "3", "1"), WHITE, "24", "23")
    assert same_prime in finals(one_ahead)
    assert not any("six points in a row" in reason for reason in said(one_ahead, (2, 1), same_prime))


def finals_of(position: Position, dice, rules: Rules | None = None) -> set[Reading]:
    return {Reading.of(play.position) for play in Turn(position, dice, rules).plays()}


def test_fevga_a_play_may_not_end_holding_all_six_points_of_the_own_starting_table():
    # rules.md, starting table (fevga): "a play may not end with the player holding all six points of his own
    # starting table" (White's: 24 down to 19; a runner has passed, so the first-checker rule is met).
    position = Position.from_json({"variant": "fevga", "turn": "white", "rolls": {"white": 6, "black": 6},
                                   "white": {"points": {"24": 9, "23": 1, "22": 1, "21": 1, "20": 1, "5": 2}},
                                   "black": {"points": {"12": 13, "1": 2}}})
    all_six = moved(moved(reading_of(position), WHITE, "24", "19"), WHITE, "5", "4")
    assert all_six not in finals_of(position, (5, 1))
    assert reasons(position, (5, 1), all_six) == [
        "white may not end a play holding all six points of white's starting table (24, 23, 22, 21, 20 and 19)."]
    five = moved(moved(reading_of(position), WHITE, "24", "18"), WHITE, "24", "23")   # 24 emptied: not all six
    assert not any("starting table" in reason for reason in said(position, (6, 1), five))


def test_fevga_with_both_tables_in_scope_the_opponents_starting_table_counts_too():
    # start_table_scope = both: "A play may not end holding all six points of the own (or either) starting table."
    position = Position.from_json({"variant": "fevga", "turn": "white", "rolls": {"white": 9, "black": 9},
                                   "white": {"points": {"24": 5, "11": 2, "10": 2, "9": 2, "8": 2, "13": 2}},
                                   "black": {"points": {"1": 3, "4": 12}}})
    both = Rules.for_variant("fevga", {"start_table_scope": "both"})
    # Black's starting table is 12 down to 7: White holds 11 to 8, and 13/12, 13/7 would hold all six.
    board = moved(moved(reading_of(position), WHITE, "13", "7"), WHITE, "13", "12")
    assert board in finals_of(position, (6, 1))
    assert board not in finals_of(position, (6, 1), both)
    assert reasons(position, (6, 1), board, start_table_scope="both") == [
        "white may not end a play holding all six points of black's starting table (12, 11, 10, 9, 8 and 7)."]
    assert not any("starting table" in reason for reason in said(position, (6, 1), board))


def test_moultezim_a_play_may_not_end_holding_more_than_four_points_of_the_opponents_starting_table():
    # rules.md, opponent's starting table (moultezim): "a play may not end holding more than four of its six points."
    position = Position.from_json({"variant": "moultezim", "turn": "white", "rolls": {"white": 9, "black": 9},
                                   "white": {"points": {"24": 7, "11": 3, "10": 2, "9": 1, "8": 2}},
                                   "black": {"points": {"12": 13, "1": 2}}})
    five = reading_of(position)
    for origin, destination in (("11", "7"), ("24", "20"), ("24", "20"), ("24", "20")):
        five = moved(five, WHITE, origin, destination)
    assert five not in finals_of(position, (4, 4))
    assert reasons(position, (4, 4), five) == [
        "white may not end a play holding more than four of the six points of black's starting table "
        "(12, 11, 10, 9, 8 and 7); it holds 11, 10, 9, 8 and 7."]


def test_pinning_the_mother_ends_the_game_only_at_the_end_of_the_turn():
    # rules.md, mother (plakoto, tapa): "judged on the position at the end of the mover's turn. If a player's last
    # checker on his start point is pinned and the pinner has no checker on his own start, the game ends".
    position = Position.from_json({"variant": "plakoto", "turn": "white", "rolls": {"white": 20, "black": 20},
                                   "white": {"points": {"6": 1, "13": 14}}, "black": {"points": {"1": 1, "20": 14}}})
    pinned_and_stopped = moved(reading_of(position), WHITE, "6", "1")      # the 5 played, the 6 left
    assert pinned_and_stopped not in finals_of(position, (6, 5))
    assert pinned_and_stopped in finals_of(position, (6, 5), Rules.for_variant("plakoto", {"mother_check": "every_move"}))
    # Judged at the end of the turn, the pin ends nothing yet: the board is on the way, the 6 still to play,
    # and nothing is refused (the old words called it a broken mother rule while the verdict said partial).
    verdict = Referee(position, (6, 5)).judge(pinned_and_stopped)
    assert verdict.kind is VerdictKind.PARTIAL and verdict.remaining == (6,) and not verdict.refusals
    only_the_six = moved(reading_of(position), WHITE, "13", "7")            # stopped early, no pin: not the mother
    assert not any("mother" in reason for reason in said(position, (6, 5), only_the_six))
