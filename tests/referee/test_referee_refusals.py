"""Why the referee refuses a board is recorded by the referee as it decides (`Verdict.refusals`): the
rule, the points, the dice. Each case is a board broken by hand against one rule of shared/spec/rules.md
in one game; the property holds in random turns of every game without cascades: the words never
contradict the verdict."""
from hypothesis import event, given, settings
from hypothesis import strategies as st
from referee_kit import NO_CASCADES, changed, count, moved, random_turns, reading_of

from firmware_host.referee import Referee, VerdictKind
from firmware_host.referee.explain import explain
from firmware_host.referee.held import HeldReferee
from firmware_host.referee.refusal import Rule
from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn


def refused(position: Position, dice, reading, **options):
    verdict = Referee(position, dice, Rules.for_variant(position.variant, options)).judge(reading)
    assert verdict.kind is VerdictKind.ILLEGAL, verdict.kind
    return verdict.refusals


def test_portes_two_checkers_hold_a_point():
    # "which must be open": black holds 12 with five at portes' start; white's 13/12 lands there.
    position = Position.start("portes")
    [refusal] = refused(position, (6, 5), moved(reading_of(position), WHITE, "13", "12"))
    assert (refusal.rule, refusal.points, refusal.count, refusal.mover, refusal.dice) == \
        (Rule.POINT_HELD, ("12",), 5, WHITE, (6, 5))


def test_tavla_a_checker_on_the_bar_enters_first():
    # "checkers on the bar enter first": white has one on the bar and moves 13/7 instead.
    position = Position.from_json({"variant": "tavla", "turn": "white",
                                   "white": {"points": {"24": 2, "13": 5, "8": 3, "6": 4}, "bar": 1},
                                   "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
    refusals = refused(position, (6, 5), moved(reading_of(position), WHITE, "13", "7"))
    assert refusals[0].rule is Rule.BAR_FIRST and refusals[0].points == ("bar",)


def test_plakoto_a_pinning_checker_cannot_itself_be_pinned():
    # "a pinning checker cannot itself be pinned": black's checker on 20 pins white's, and white lands there.
    position = Position.from_json({"variant": "plakoto", "turn": "white",
                                   "white": {"points": {"24": 14, "20": 1}}, "black": {"points": {"1": 14, "20": 1}},
                                   "pinned": {"20": "white"}, "rolls": {"white": 3, "black": 3}})
    refusals = refused(position, (4, 3), moved(reading_of(position), WHITE, "24", "20"))
    assert [(refusal.rule, refusal.points, refusal.count) for refusal in refusals] == [(Rule.PINNER_HOLDS, ("20",), 1)]
    assert "cannot itself be pinned" in explain(refusals)[0]


def test_plakoto_a_pinned_checker_cannot_move():
    # "a pinned checker cannot move": black's checker on 20 pins white's.
    position = Position.from_json({"variant": "plakoto", "turn": "white",
                                   "white": {"points": {"24": 14, "20": 1}}, "black": {"points": {"1": 14, "20": 1}},
                                   "pinned": {"20": "white"}, "rolls": {"white": 3, "black": 3}})
    refusals = refused(position, (6, 5), moved(reading_of(position), WHITE, "20", "14"))
    assert (refusals[0].rule, refusals[0].points) == (Rule.PINNED, ("20",))


def test_fevga_a_single_checker_holds_a_point():
    # Parallel games: nothing is hit, so one opposing checker closes a point (black lands on white's 6).
    position = Position.from_json({"variant": "fevga", "turn": "black", "rolls": {"white": 1, "black": 1},
                                   "white": {"points": {"24": 14, "6": 1}}, "black": {"points": {"12": 15}}})
    [refusal] = refused(position, (6, 5), moved(reading_of(position), BLACK, "12", "6"))
    assert (refusal.rule, refusal.points, refusal.count, refusal.limit, refusal.mover) == \
        (Rule.POINT_HELD, ("6",), 1, 1, BLACK)


def test_narde_one_checker_leaves_the_head_a_turn():
    # "one checker off the start point per turn": two leave white's head, 24, with 6-5.
    position = Position.start("narde")
    two = moved(moved(reading_of(position), WHITE, "24", "18"), WHITE, "24", "19")
    [refusal] = refused(position, (6, 5), two)
    assert (refusal.rule, refusal.points, refusal.count, refusal.limit) == (Rule.HEAD_RULE, ("24",), 2, 1)


def test_a_move_longer_than_the_dice_names_the_pips_and_the_dice():
    position = Position.start("portes")
    [refusal] = refused(position, (2, 1), moved(reading_of(position), WHITE, "13", "5"))
    assert (refusal.rule, refusal.count, refusal.limit, refusal.dice) == (Rule.TOO_FAR, 8, 3, (2, 1))


def test_a_board_no_single_rule_explains_names_the_starts_of_the_referees_own_plays():
    # 6 -> 3 is three pips, neither die of 6-5: the legal plays (every one the rules list) start elsewhere.
    position = Position.start("portes")
    [refusal] = refused(position, (6, 5), moved(reading_of(position), WHITE, "6", "3"))
    assert refusal.rule is Rule.NO_PLAY_FROM and refusal.points == ("6",)
    origins = {move.origin for play in Turn(position, (6, 5)).plays() for move in play.moves}
    assert set(refusal.table) == origins & {"8", "13", "24", "6"}


def test_a_bots_play_refuses_a_board_legal_under_the_dice_but_off_its_way():
    position = Position.start("portes")
    referee = HeldReferee(position, (6, 5), None,
                          lambda turn: next(p for p in turn.plays() if [str(m) for m in p.moves] == ["24/18", "18/13"]))
    other_legal = moved(moved(reading_of(position), WHITE, "13", "7"), WHITE, "13", "8")
    verdict = referee.judge(other_legal)
    assert verdict.kind is VerdictKind.ILLEGAL
    assert [refusal.rule for refusal in verdict.refusals] == [Rule.OFF_THE_CHOSEN_PLAY]
    # A board no play of the roll leads to says the rule it breaks, as for any turn.
    held = referee.judge(moved(reading_of(position), WHITE, "13", "12"))
    assert [refusal.rule for refusal in held.refusals] == [Rule.POINT_HELD]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), variant=st.sampled_from(sorted(NO_CASCADES)))
def test_the_words_never_contradict_the_verdict(data, variant):
    """Any board one or two checker moves (or a lift) from a random turn's start: reasons are given
    exactly when the verdict is illegal, one line for each refusal; each point the words name as held
    or as no play's start is so on the board and in the rules' own list of plays."""
    options = NO_CASCADES[variant]
    turns = list(random_turns(data, variant, options, max_turns=data.draw(st.integers(1, 25))))
    position, dice = turns[-1]
    reading = reading_of(position)
    locations = ["bar"] + [str(p) for p in range(1, 25)] + ["off"]
    for _ in range(data.draw(st.integers(1, 2))):
        color = data.draw(st.sampled_from([position.turn] * 3 + [position.turn.opponent]))
        held = [place for place in locations if count(reading, color, place)]
        origin = data.draw(st.sampled_from(held))
        reading = moved(reading, color, origin, data.draw(st.sampled_from(locations)))
    if data.draw(st.integers(0, 4)) == 0:   # now and then one in hand as well
        reading = changed(reading, position.turn, data.draw(st.sampled_from(
            [place for place in locations if count(reading, position.turn, place)])), -1)
    verdict = Referee(position, dice, Rules.for_variant(variant, options)).judge(reading)
    words = explain(verdict.refusals)
    event(f"verdict {verdict.kind.value}")
    for refusal in verdict.refusals:
        event(f"refused by {refusal.rule.value}")
    assert bool(words) == (verdict.kind is VerdictKind.ILLEGAL), (verdict.kind, words)
    assert len(words) == len(verdict.refusals)
    plays = None
    for refusal in verdict.refusals:
        assert refusal.mover is position.turn and refusal.dice == tuple(dice) and refusal.variant == variant
        if refusal.rule is Rule.POINT_HELD:
            [point] = refusal.points
            assert position.count(position.turn.opponent, int(point)) >= refusal.count >= refusal.limit >= 1
        if refusal.rule is Rule.PINNER_HOLDS:
            [point] = refusal.points
            assert position.pinned[int(point) - 1] is position.turn and refusal.count >= 1
        if refusal.rule is Rule.NO_PLAY_FROM:
            plays = plays or Turn(position, dice, Rules.for_variant(variant, options)).plays()
            origins = {move.origin for play in plays for move in play.moves}
            assert not set(refusal.points) & origins and set(refusal.table) <= origins

