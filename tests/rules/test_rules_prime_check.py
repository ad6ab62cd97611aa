"""Narde's prime limit and when it is judged: the house rule `prime_check`.

rules.md: "A play may not end holding six consecutive points (along the opponent's path) unless an
opposing checker on the board is ahead of them. It is judged on the board at the end of the play,
like the starting-table limits: a prime made and broken again within one turn is allowed (house
rule `prime_check`: `end_of_turn`, the default, or `every_move`, where no single checker move may
complete such a prime, as some Long Nardy programs judge it)."

The situation: White (moving 24 -> 1) holds 5, 4, 3, 2 and 1 and has a checker on 7; Black's fifteen
all wait on his start point 12, behind White's home board on his path (12 -> 1, then 24 -> 13). With
1-1, White plays 24/23/22 with his first two 1s, 7/6 with the third (six points 6-1 held: a prime
with no black checker ahead) and 6/5 with the fourth (broken again).
"""
import pytest

from firmware_host.config import ConfigError, parse_config
from firmware_host.journal import Journal
from firmware_host.referee import Reading, Referee
from firmware_host.rules import Position, legal_plays
from rules_kit import after, pos

START = pos("narde", {24: 9, 7: 1, 5: 1, 4: 1, 3: 1, 2: 1, 1: 1}, {12: 15}, rolls=(5, 5))
DICE = (1, 1)
PRIME_MADE = after(START, "24/22 7/6")             # the third 1 completes the prime 6-1
PRIME_BROKEN = after(PRIME_MADE, "6/5")            # the fourth breaks it: the play's final board
EVERY_MOVE = {"prime_check": "every_move"}


def finals(rules=None) -> set:
    return {play.position.board_key() for play in legal_plays(START, DICE, rules)}


def test_by_default_a_prime_made_and_broken_within_the_turn_is_allowed():
    assert PRIME_BROKEN.board_key() in finals()
    assert PRIME_BROKEN.board_key() in finals({"prime_check": "end_of_turn"})


def test_every_move_forbids_the_move_that_completes_the_prime():
    assert PRIME_BROKEN.board_key() not in finals(EVERY_MOVE)
    # The roll is still played in full some other way: the limit prunes moves, not the turn.
    assert all(len(play.moves) == 4 for play in legal_plays(START, DICE, EVERY_MOVE))


def test_every_move_applies_only_with_the_prime_rule_that_has_it():
    no_limit = {"prime_rule": "none", "prime_check": "every_move"}
    assert PRIME_BROKEN.board_key() in finals(no_limit)


@pytest.mark.parametrize("rules, final, on_the_way", [
    (None, "complete", "partial"),
    (EVERY_MOVE, "illegal", "illegal"),
])
def test_the_referee_judges_the_prime_as_the_house_rule_says(rules, final, on_the_way):
    referee = Referee(START, DICE, rules)
    assert referee.judge(Reading.of(PRIME_BROKEN)).kind == final
    assert referee.judge(Reading.of(PRIME_MADE)).kind == on_the_way


def test_the_config_sets_it_and_refuses_other_values():
    config = parse_config({"house_rules": {"narde": {"prime_check": "every_move"}}}, "test")
    assert config.rules_for("narde").prime_check == "every_move"
    assert parse_config({}, "test").rules_for("narde").prime_check == "end_of_turn"
    with pytest.raises(ConfigError, match="prime_check"):
        parse_config({"house_rules": {"prime_check": "sometimes"}}, "test")


def test_the_journal_records_it_with_the_games_house_rules(tmp_path):
    config = parse_config({"house_rules": {"narde": {"prime_check": "every_move"}}}, "test")
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.start_match(config.match_rules)
    journal.start_game("narde", config.rules_for("narde"), starter=None, position=Position.start("narde"))
    started = [event for event in journal.tail(10) if event.kind.value == "game_started"]
    assert started[-1].data["rules"]["prime_check"] == "every_move"
    journal.close()
