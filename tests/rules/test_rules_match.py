"""Matches (rules.md "Matches", dossier §3 and T01, T58-T61): opening roll, rotation, starters,
scores that add up and overshoot, ties, presets, resignation."""
import pytest

from firmware_host.rules import BLACK, WHITE, GameResult, RulesError, legal_plays
from firmware_host.rules.match import (Match, MatchRules, opening_roll, resignation, sequence_of)
from rules_kit import after, describe, pos

SINGLE = {WHITE: GameResult(WHITE, 1, "bear-off"), BLACK: GameResult(BLACK, 1, "bear-off")}
GAMMON = {WHITE: GameResult(WHITE, 2, "gammon"), BLACK: GameResult(BLACK, 2, "gammon")}
TIE = GameResult(None, 0, "tie")


# -- T01: the opening roll ----------------------------------------------------------------------------

@pytest.mark.parametrize("white, black, starter", [(5, 3, WHITE), (3, 5, BLACK), (1, 6, BLACK)])
def test_t01_higher_die_starts_and_rolls_both_dice_again(white, black, starter):
    roll = opening_roll(white, black)
    assert roll.starter is starter
    assert roll.first_dice is None and roll.kept_die is None      # the opening dice are not played


@pytest.mark.parametrize("rule", ["reroll", "use_opening_dice", "keep_own_die"])
def test_t01_equal_opening_dice_roll_again(rule):
    assert opening_roll(4, 4, rule).starter is None


def test_t01_use_opening_dice_plays_them():
    roll = opening_roll(5, 3, "use_opening_dice")
    assert roll.starter is WHITE and sorted(roll.first_dice) == [3, 5]


def test_t01_keep_own_die_keeps_the_starters_die():
    roll = opening_roll(2, 6, "keep_own_die")
    assert roll.starter is BLACK and roll.kept_die == 6


@pytest.mark.parametrize("white, black, rule", [(0, 3, "reroll"), (7, 1, "reroll"),
                                                  (3, 1, "coin_toss")])
def test_opening_roll_rejects_bad_dice_and_rules(white, black, rule):
    with pytest.raises(RulesError):
        opening_roll(white, black, rule)


# -- sequences and presets -----------------------------------------------------------------------------

@pytest.mark.parametrize("name, games", [
    ("tavli", ("portes", "plakoto", "fevga")),
    ("tabla", ("portes", "gulbara", "tapa")),
    ("fevga", ("fevga",)),
    (["portes", "narde", "moultezim"], ("portes", "narde", "moultezim")),
])
def test_sequences_presets_single_games_and_lists(name, games):
    assert sequence_of(name) == games


@pytest.mark.parametrize("name", ["chess", ["portes", "checkers"], []])
def test_unknown_games_in_a_sequence_raise(name):
    with pytest.raises(RulesError):
        sequence_of(name)


def test_default_match_is_tavli_to_five_with_an_opening_roll():
    match = Match.new()
    assert match.rules.sequence == ("portes", "plakoto", "fevga") and match.rules.target == 5
    assert (match.next_variant, match.next_starter, match.score) == ("portes", None,
                                                                     {WHITE: 0, BLACK: 0})


@pytest.mark.parametrize("target", [0, -5, 2.5, True])
def test_bad_targets_raise(target):
    with pytest.raises(RulesError):
        MatchRules(target=target)


# -- T58: rotation and starters -------------------------------------------------------------------------

def test_t58_rotation_and_the_winner_starts_the_next_game():
    match = Match.new(MatchRules(sequence=sequence_of("tavli"), target=5))
    match = match.record(SINGLE[BLACK], starter=WHITE, last_mover=BLACK)       # G1 Portes
    assert (match.score, match.next_variant, match.next_starter) == (
        {WHITE: 0, BLACK: 1}, "plakoto", BLACK)
    match = match.record(GAMMON[WHITE], starter=BLACK, last_mover=WHITE)       # G2 Plakoto
    assert (match.score, match.next_variant, match.next_starter) == (
        {WHITE: 2, BLACK: 1}, "fevga", WHITE)
    match = match.record(SINGLE[BLACK], starter=WHITE, last_mover=BLACK)       # G3 Fevga
    assert (match.score, match.next_variant, match.next_starter) == (
        {WHITE: 2, BLACK: 2}, "portes", BLACK)
    assert not match.is_over and match.winner is None


# -- T59: overshoot -------------------------------------------------------------------------------------

def test_t59_white_on_four_wins_a_gammon_and_ends_on_six():
    match = Match.new(MatchRules(target=5))
    for _ in range(2):
        match = match.record(GAMMON[WHITE], starter=WHITE, last_mover=WHITE)
    assert match.score[WHITE] == 4 and not match.is_over
    match = match.record(GAMMON[WHITE], starter=WHITE, last_mover=WHITE)
    assert match.score == {WHITE: 6, BLACK: 0}
    assert match.is_over and match.winner is WHITE
    with pytest.raises(RulesError):
        match.record(SINGLE[BLACK], starter=WHITE, last_mover=BLACK)


@pytest.mark.parametrize("target, games_to_win", [(3, 3), (5, 5), (7, 7)])
def test_singles_reach_the_target(target, games_to_win):
    match = Match.new(MatchRules(target=target))
    for game in range(games_to_win):
        assert not match.is_over
        match = match.record(SINGLE[BLACK], starter=BLACK, last_mover=BLACK)
    assert match.winner is BLACK


# -- T60: a plakoto tie ---------------------------------------------------------------------------------

def t13_result():
    """The tie of T13, from the engine: White pins Black's mother while his own is pinned."""
    p = pos("plakoto", {24: 1, 6: 14}, {24: 1, 1: 1, 20: 1, 19: 12}, pinned={24: "white"})
    target = describe(after(p, "6/1 6/4"))
    (play,) = [x for x in legal_plays(p, (5, 2)) if describe(x) == target]
    return play.result


@pytest.mark.parametrize("rules, variant, starter", [
    (dict(), "fevga", None),                                             # default: opening roll
    (dict(tie_next_starter="same_as_tied_game"), "fevga", BLACK),
    (dict(tie_next_starter="last_pinner"), "fevga", WHITE),
    (dict(tie_advances_rotation=False), "plakoto", None),
])
def test_t60_plakoto_tie_scores_nothing_and_moves_on(rules, variant, starter):
    result = t13_result()
    assert result == TIE
    match = Match.new(MatchRules(sequence=sequence_of("tavli"), **rules))
    match = match.record(SINGLE[WHITE], starter=BLACK, last_mover=WHITE)       # G1 Portes
    assert match.next_variant == "plakoto" and match.next_starter is WHITE
    # G2 Plakoto, started by Black (a different player from the last pinner, White)
    match = match.record(result, starter=BLACK, last_mover=WHITE)
    assert match.score == {WHITE: 1, BLACK: 0}
    assert (match.next_variant, match.next_starter) == (variant, starter)


# -- T61: the Bulgarian preset --------------------------------------------------------------------------

def test_t61_tabla_preset_winner_of_gul_bara_starts_tapa():
    match = Match.new(MatchRules(sequence=sequence_of("tabla"), target=5))
    assert match.next_variant == "portes"
    match = match.record(SINGLE[WHITE], starter=WHITE, last_mover=WHITE)
    assert match.next_variant == "gulbara"
    match = match.record(GAMMON[BLACK], starter=WHITE, last_mover=BLACK)
    assert (match.next_variant, match.next_starter) == ("tapa", BLACK)
    match = match.record(SINGLE[BLACK], starter=BLACK, last_mover=BLACK)
    assert (match.next_variant, match.score) == ("portes", {WHITE: 1, BLACK: 3})


# -- resignation (dossier A21) -----------------------------------------------------------------------

@pytest.mark.parametrize("loser_off, rule, points", [
    (0, "current_status", 2), (1, "current_status", 1), (7, "current_status", 1),
    (0, "single", 1), (5, "single", 1), (0, "double", 2), (5, "double", 2),
])
def test_resignation_points(loser_off, rule, points):
    assert resignation(loser_off, rule) == points


def test_resignation_default_rule_is_current_status():
    assert (resignation(0), resignation(3)) == (2, 1)
    with pytest.raises(RulesError):
        resignation(0, "triple")


# -- match rules from the flag names of dossier §5 -------------------------------------------------------

def test_match_rules_from_flag_names():
    rules = MatchRules.from_options({"MATCH_SEQUENCE": "tabla", "MATCH_TARGET": 7,
                                     "OPENING_ROLL": "keep_own_die", "TIE_ADVANCES_ROTATION": False,
                                     "TIE_NEXT_STARTER": "last_pinner", "RESIGN_POINTS": "double"})
    assert rules == MatchRules(sequence=("portes", "gulbara", "tapa"), target=7,
                               opening_roll="keep_own_die", tie_advances_rotation=False,
                               tie_next_starter="last_pinner", resign_points="double")


@pytest.mark.parametrize("options", [
    {"match_length": 5}, {"opening_roll": "coin_toss"}, {"tie_next_starter": "youngest"},
    {"resign_points": "triple"}, {"match_sequence": "chess"},
])
def test_match_rules_reject_unknown_names_and_values(options):
    with pytest.raises(RulesError):
        MatchRules.from_options(options)
