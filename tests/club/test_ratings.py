"""The ladder's ratings, from the FIBS formula's text (FIBS `help formula`, quoted in
firmware_host/club/ratings.py) and the "batting average" table of the backgammon FAQ: the share of
matches a favourite must win to hold its rating is 1 - P_upset."""
import math

import pytest
from hypothesis import given, strategies as st

from firmware_host.club.ratings import (GameFamily, GameResult, Ladder, Rating, family_of, rated,
                                        underdog_wins)
from firmware_host.rules.variants import VARIANTS

EXPERIENCED = 1000


def test_two_newcomers_of_equal_rating_move_ten_points_in_a_one_point_match():
    winner, loser = rated(Rating(), Rating())
    # P_upset = 1/2 at D = 0; K = 5 with no experience: 4 * 5 * sqrt(1) * 1/2 = 10.
    assert (winner.rating, loser.rating) == (1510, 1490)
    assert winner.experience == loser.experience == 1


@pytest.mark.parametrize("difference, length, favourite_share", [
    (0, 1, .500), (100, 1, .529), (200, 1, .557), (300, 3, .645), (200, 5, .626), (400, 7, .772),
    (500, 9, .849), (700, 11, .935)])
def test_the_favourite_holds_its_rating_by_winning_the_faqs_batting_average(difference, length, favourite_share):
    share = 1 - underdog_wins(difference, length)
    assert share == pytest.approx(favourite_share, abs=0.0006)
    favourite, underdog = Rating(1500 + difference, EXPERIENCED), Rating(1500, EXPERIENCED)
    gain = rated(favourite, underdog, length)[0].rating - favourite.rating
    loss = favourite.rating - rated(underdog, favourite, length)[1].rating
    # Over many matches at that share, what the favourite wins and loses balance out.
    assert share * gain == pytest.approx((1 - share) * loss)


def test_an_upset_pays_more_than_a_win_of_the_favourite():
    # The FAQ's example: 1850 against 1750 (D = 100), experienced players (K = 1), a 1-point match.
    upset = 1 / (10 ** (100 / 2000) + 1)
    favourite, underdog = Rating(1850, EXPERIENCED), Rating(1750, EXPERIENCED)
    assert rated(favourite, underdog)[0].rating - 1850 == pytest.approx(4 * upset)
    assert rated(underdog, favourite)[0].rating - 1750 == pytest.approx(4 * (1 - upset))
    assert rated(underdog, favourite)[1].rating - 1850 == pytest.approx(-4 * (1 - upset))


@pytest.mark.parametrize("experience, k", [(0, 5), (100, 4), (250, 2.5), (399, 1.01), (400, 1), (5000, 1)])
def test_each_players_own_experience_sets_how_fast_it_moves(experience, k):
    assert Rating(1500, experience).k == pytest.approx(k)
    winner, loser = rated(Rating(1500, experience), Rating(1500, EXPERIENCED), length=4)
    assert winner.rating - 1500 == pytest.approx(4 * k * math.sqrt(4) * 0.5)
    assert loser.rating - 1500 == pytest.approx(-4 * 1 * math.sqrt(4) * 0.5)   # the loser's own K
    assert (winner.experience, loser.experience) == (experience + 4, EXPERIENCED + 4)


def test_every_game_has_a_family_by_how_a_lone_checker_is_taken():
    families = {variant: family_of(variant) for variant in VARIANTS}
    assert families == {"portes": GameFamily.HITTING, "tavla": GameFamily.HITTING,
                        "plakoto": GameFamily.PINNING, "tapa": GameFamily.PINNING,
                        "neverfinishing": GameFamily.PINNING, "fevga": GameFamily.RUNNING,
                        "moultezim": GameFamily.RUNNING, "gulbara": GameFamily.RUNNING, "narde": GameFamily.RUNNING}
    with pytest.raises(ValueError, match="'chess' is not a game"):
        family_of("chess")


def test_a_game_moves_only_its_own_familys_ratings():
    ladder = Ladder.of([GameResult("anna", "babis", "plakoto")])
    assert ladder.rating("anna", GameFamily.PINNING).rating == 1510
    assert ladder.rating("anna", GameFamily.HITTING) == Rating() == ladder.rating("anna", GameFamily.RUNNING)
    with pytest.raises(ValueError):
        ladder.record(GameResult("anna", "anna", "portes"))


players = st.sampled_from(["anna", "babis", "chryssa", "dimitris"])
results = st.lists(st.builds(GameResult, players, players, st.sampled_from(list(VARIANTS))).filter(
    lambda result: result.winner != result.loser), max_size=40)


@given(results)
def test_the_ladder_is_a_fold_of_its_results_and_the_standings_are_ordered(games):
    ladder = Ladder.of(games)
    again = Ladder()
    for game in games:
        again.record(game)
    assert ladder == again and Ladder.of(games).to_json() == ladder.to_json()
    for family in GameFamily:
        standing = [rating.rating for _, rating in ladder.standings(family)]
        assert standing == sorted(standing, reverse=True)
        played = sum(1 for game in games if family_of(game.variant) is family)
        assert sum(rating.experience for _, rating in ladder.standings(family)) == 2 * played
