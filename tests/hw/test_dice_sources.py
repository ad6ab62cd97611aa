from collections import Counter

import pytest

from firmware_host.hw import DiceExhausted, ScriptedDice, SecretsDice


def test_scripted_dice_roll_in_script_order_then_say_they_ran_out():
    dice = ScriptedDice([6, 5, 3, 3, 1])
    assert dice.roll() == (6, 5)
    assert dice.roll() == (3, 3)
    assert dice.roll_die() == 1
    with pytest.raises(DiceExhausted, match="ran out: all 5 scripted dice"):
        dice.roll_die()


@pytest.mark.parametrize("bad", [0, 7, "6", True, 2.0])
def test_a_script_with_an_impossible_die_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match=rf"die #3 is {bad!r}; allowed: integers 1..6"):
        ScriptedDice([1, 2, bad])


def test_secret_dice_give_every_face_and_nothing_else():
    dice = SecretsDice()
    counts = Counter(value for _ in range(3000) for value in dice.roll())
    # 6000 dice: each face expected 1000 times; below 800 is about 7 standard deviations off.
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert min(counts.values()) > 800
