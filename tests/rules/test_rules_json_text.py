"""The JSON texts the engine renders directly (`Position.to_json_text`, `Move.to_json_text`,
`Play.to_json_text`) are exactly what `json.dumps(to_json(), sort_keys=True)` writes, for every
kind of play: pins, hits, bear-offs, game ends and dice owed to the opponent."""
import json
import random

import pytest

from firmware_host.rules import Owed, Position, Rules, Turn, blocked_for_good
from rules_kit import ALL_VARIANTS


def canonical(value) -> str:
    return json.dumps(value.to_json(), sort_keys=True)


def random_game_plays(variant: str, seed: int, options=None):
    """Every play of every turn of one seeded random game (all of each roll's plays)."""
    rng = random.Random(seed)
    rules = Rules.for_variant(variant, options)
    position = Position.start(variant)
    for _ in range(400):
        turn = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)
        plays = turn.plays(limit=2_000) if len(turn.stages) == 1 else [turn.pick_play(rng.choice)]
        yield from plays
        play = rng.choice(plays)
        if play.result is not None or not play.moves and blocked_for_good(play.position, rules):
            return
        position = play.position


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_rendered_texts_equal_sorted_json_dumps(variant):
    seen = {"pin": False, "hit": False, "result": False}
    for seed in range(3):
        for play in random_game_plays(variant, seed):
            assert play.to_json_text() == canonical(play)
            assert play.position.to_json_text() == canonical(play.position)
            for move in play.moves:
                assert move.to_json_text() == canonical(move)
                seen["pin"] |= move.pin
                seen["hit"] |= move.hit
            seen["result"] |= play.result is not None
    assert seen["result"], "the games reach an end"
    if variant in ("plakoto", "tapa", "neverfinishing"):
        assert seen["pin"]
    if variant in ("portes", "tavla", "neverfinishing"):
        assert seen["hit"]


def test_rendered_text_of_a_play_that_leaves_owed_dice():
    rules = Rules.for_variant("gulbara", {"gulbara_remainder": "opponent_plays"})
    owed_plays = [play for play in random_game_plays("gulbara", 7, rules.changed()) if play.remainder]
    position = Position.from_json({"variant": "gulbara", "turn": "white",
                                   "white": {"points": {"1": 14, "2": 1}},
                                   "black": {"points": {"13": 15}}, "rolls": {"white": 5, "black": 5}})
    owed_plays += [play for play in Turn(position, (1, 1), rules).plays() if play.remainder]
    owed_plays += Turn(position, Owed((2, 2)), rules).plays()
    assert any(play.remainder for play in owed_plays)
    for play in owed_plays:
        assert play.to_json_text() == canonical(play)
