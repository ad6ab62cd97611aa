"""Knock-out and Swiss pairings, from what a club director expects of them (the module's text): the
bracket's seeding and byes, no Swiss rematch, one bye each at most, corrections only of the last round."""

import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.club.tournament import BYE, Knockout, Pairing, Swiss, TournamentError, seeding_order

PLAYERS = [f"p{seed}" for seed in range(1, 17)]


def test_the_bracket_keeps_the_top_seeds_apart_until_the_final():
    assert seeding_order(2) == [1, 2]
    assert seeding_order(4) == [1, 4, 2, 3]
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    cup = Knockout(PLAYERS[:8])
    assert [(p.first, p.second) for p in cup.rounds[0].pairings] == [
        ("p1", "p8"), ("p4", "p5"), ("p2", "p7"), ("p3", "p6")]


def test_byes_go_to_the_top_seeds_and_the_favourites_meet_in_the_final():
    cup = Knockout(PLAYERS[:5])
    first = cup.rounds[0]
    assert [(p.first, p.second) for p in first.pairings] == [
        ("p1", BYE), ("p4", "p5"), ("p2", BYE), ("p3", BYE)]
    assert not first.finished
    with pytest.raises(TournamentError, match="not finished"):
        cup.next_round()
    cup.record("p4", "p5")
    second = cup.next_round()
    assert [(p.first, p.second) for p in second.pairings] == [("p1", "p4"), ("p2", "p3")]
    cup.record("p1", "p4")
    cup.record("p2", "p3")
    final = cup.next_round()
    assert [(p.first, p.second) for p in final.pairings] == [("p1", "p2")] and cup.champion is None
    cup.record("p2", "p1")
    assert cup.champion == "p2"
    with pytest.raises(TournamentError, match="p2 won it"):
        cup.next_round()


def test_a_result_between_players_who_do_not_meet_is_refused():
    cup = Knockout(PLAYERS[:4])
    with pytest.raises(TournamentError, match="not paired"):
        cup.record("p1", "p2")
    with pytest.raises(TournamentError, match="p9 plays no match"):
        cup.record("p9", "p1")


def test_the_director_corrects_only_the_last_round_before_the_next_is_paired():
    swiss = Swiss(PLAYERS[:4], rounds=2)
    swiss.next_round()
    swiss.record("p1", "p2")
    swiss.record("p3", "p4")
    swiss.correct(1, "p2", "p1")                 # the board's result was wrong: p2 won
    assert swiss.score("p2") == 1 and swiss.score("p1") == 0
    second = swiss.next_round()
    assert Pairing("p2", "p3") in second.pairings     # the winners meet
    with pytest.raises(TournamentError, match="round 1 cannot be corrected"):
        swiss.correct(1, "p1", "p2")


def test_four_players_and_two_rounds_of_swiss_never_meet_twice():
    swiss = Swiss(PLAYERS[:4], rounds=2)
    for _ in range(2):
        for pairing in swiss.next_round().pairings:
            swiss.record(pairing.first, pairing.second)
    for player in swiss.seeds:
        assert len(set(swiss.opponents(player))) == 2
    assert swiss.standings()[0] == "p1" and swiss.score("p1") == 2
    with pytest.raises(TournamentError, match="all 2 rounds"):
        swiss.next_round()
    with pytest.raises(TournamentError, match="without a rematch: 1 to 2 for 4 players"):
        Swiss(PLAYERS[:4], rounds=3)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 12), st.randoms(use_true_random=False), st.data())
def test_swiss_never_pairs_a_rematch_and_gives_each_player_one_bye_at_most(size, chance, data):
    players = PLAYERS[:size]
    rounds = data.draw(st.integers(1, (size + 1) // 2))
    swiss = Swiss(players, rounds)
    for _ in range(rounds):
        round_ = swiss.next_round()
        seated = [player for pairing in round_.pairings for player in (pairing.first, pairing.second) if player]
        assert sorted(seated) == sorted(players)                        # everyone plays, once
        for pairing in round_.pairings:
            if pairing.second is not BYE:
                winner, loser = chance.sample([pairing.first, pairing.second], 2)
                swiss.record(winner, loser)
    byes = [p.first for r in swiss.rounds for p in r.pairings if p.second is BYE]
    assert len(byes) == len(set(byes)) == (rounds if size % 2 else 0)
    for player in players:
        assert len(swiss.opponents(player)) == len(set(swiss.opponents(player)))
    assert sum(swiss.score(player) for player in players) == rounds * ((size + 1) // 2)


def test_a_tournament_needs_two_players_named_once():
    for field in ([], ["p1"], ["p1", "p1"]):
        with pytest.raises(TournamentError):
            Knockout(field)
