"""The referee on the last checkers (rules.md, common rules): "a play that bears off the last checker
with fewer dice is not legal when another order uses more (white's last checker on 2, a black blot
on 1, 4-1: only 2/1* 1/off) ...; the same for a whole Gul Bara cascade under `whole_cascade`"."""
from firmware_host.referee import Referee
from firmware_host.rules import WHITE
from referee_kit import moved, pos, reading_of

THE_ISSUES = pos("portes", {2: 1}, {1: 1, 20: 14})


def test_bearing_off_with_the_4_alone_is_illegal_when_2_1_hit_then_off_uses_both():
    referee = Referee(THE_ISSUES, (4, 1))
    start = reading_of(THE_ISSUES)
    assert referee.judge(moved(start, WHITE, "2", "off")).kind == "illegal"
    hit = moved(start, WHITE, "2", "1", hit=True)
    assert referee.judge(hit).kind == "partial"
    verdict = referee.judge(moved(hit, WHITE, "1", "off"))
    assert verdict.kind == "complete" and str(verdict.play) == "2/1* 1/off"
    assert verdict.play.result.winner is WHITE


# Gul Bara, 2-2 from the fourth turn on: 2s, 3s, 4s, 5s and 6s. White's fifteen carry 41 pips;
# the longest play of the whole cascade uses 17 dice and bears off the last checker.
CASCADE = pos("gulbara", {2: 7, 3: 6, 4: 1, 5: 1}, {1: 3, 12: 5, 13: 1, 14: 3, 19: 2, 7: 1},
              rolls=(16, 17))
WHOLE = {"gulbara_cascade_maximize": "whole_cascade"}


def test_a_cascade_stage_on_the_way_only_to_a_shorter_game_end_is_not_on_the_way():
    """The four 2s borne off from 2 leave no way to 17 dice: the game can still end from there, but
    only with fewer, which is not a legal play."""
    referee = Referee(CASCADE, (2, 2), WHOLE)
    reading = reading_of(CASCADE)
    for _ in range(4):
        reading = moved(reading, WHITE, "2", "off")
    assert referee.judge(reading).kind == "illegal"


def test_the_whole_cascade_borne_off_is_complete_with_the_play_of_most_dice():
    referee = Referee(CASCADE, (2, 2), WHOLE)
    reading = reading_of(CASCADE)
    for point, count in ((2, 7), (3, 6), (4, 1), (5, 1)):
        for _ in range(count):
            reading = moved(reading, WHITE, str(point), "off")
    verdict = referee.judge(reading)
    assert verdict.kind == "complete" and len(verdict.play.moves) == 17
