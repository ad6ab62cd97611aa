"""Whole matches of each preset through the controller in virtual time, checked against the journal:
games in the preset's order, the winner starting the next game, every roll and play recorded, turns
with no legal play passed on a press, the final score."""
import pytest

from firmware_host.hw.dice import SeededDice
from firmware_host.journal import Kind
from firmware_host.rules import Position
from firmware_host.rules.match import PRESETS, MatchRules

from controller_kit import Rig, play_whole_match


# Seeds whose matches play all three games of the preset and meet turns with no legal play.
@pytest.mark.parametrize("preset, seed", [("tavli", 1), ("tabla", 6)])
def test_a_whole_match_of_each_preset(tmp_path, preset, seed):
    rig = Rig(tmp_path, match=MatchRules(sequence=preset, target=3), dice_source=SeededDice(seed))
    log = play_whole_match(rig, seed)
    controller = rig.controller
    match = controller.match

    assert rig.state == "match_over" and match.winner is not None
    (ended,) = rig.records(Kind.MATCH_ENDED)
    assert ended["winner"] == match.winner.value
    assert ended["score"] == {color.value: points for color, points in match.score.items()}
    assert (rig.scene.score.white, rig.scene.score.black) == (ended["score"]["white"], ended["score"]["black"])

    games = rig.records(Kind.GAME_STARTED)
    assert [game["variant"] for game in games] == [PRESETS[preset][i % 3] for i in range(len(games))]
    assert len(games) >= 3
    results = [record["result"] for record in rig.records(Kind.GAME_ENDED)]
    assert len(results) == len(games)
    for game, previous in zip(games[1:], results):
        assert game["starter"] == previous["winner"]   # None after a tie (both mothers pinned)
    # Opening rolls decide the first game and each game after a tie; the winner starts the others.
    match_events = rig.journal.match_events(controller.match_id)
    after_a_tie = {number for number, previous in enumerate(results[:-1], 2) if previous["winner"] is None}
    assert {event.game for event in match_events if event.kind is Kind.OPENING_ROLL} == {1} | after_a_tie

    plays = rig.records(Kind.PLAY)
    rolls = rig.records(Kind.ROLL)
    assert len(plays) == len(rolls) == log.turns   # the reroll rule: every turn is rolled
    assert [play["dice"] for play in plays] == [roll["dice"] for roll in rolls]
    assert sum(1 for play in plays if not play["moves"]) == log.no_move_turns > 0

    for scene, result in log.game_over_scenes:   # the winner's light; none for a tie
        assert scene.turn == (result.winner.value if result.winner else None)
    assert any(result.winner is None for _, result in log.game_over_scenes) == bool(after_a_tie)


def test_games_begin_from_their_start_positions_as_journaled(tmp_path):
    rig = Rig(tmp_path, match=MatchRules(sequence="tavli", target=3), dice_source=SeededDice(3))
    play_whole_match(rig, 3)
    for game in rig.records(Kind.GAME_STARTED):
        started = Position.from_json(game["position"])
        assert started.white == Position.start(game["variant"]).white
        assert started.black == Position.start(game["variant"]).black
