"""The verdict in words (service/verdict_words.py), as the companion shows it, for each state of a turn
of portes driven through the real controller in virtual time."""
from controller_kit import Rig, fixed_play

from firmware_host.controller import Orientation
from firmware_host.rules import WHITE
from firmware_host.rules.match import MatchRules
from firmware_host.service.verdict_words import verdict_words


def words(rig) -> dict:
    return verdict_words(rig.controller.view())


def test_a_turn_in_words_from_the_roll_to_the_complete_play(tmp_path):
    rig = Rig(tmp_path, dice=[6, 5, 6, 5])      # white's 6 beats black's 5; white rolls 6-5
    assert words(rig)["kind"] == "setup" and words(rig)["headline"] == "Set up the board for portes"
    rig.start_game()
    assert words(rig)["headline"].startswith("Opening roll: press the button")
    rig.press()
    assert words(rig)["headline"] == "white to roll: press the button"
    rig.press()
    assert rig.state == "moving"
    assert words(rig) == {"kind": "unchanged", "headline": "white to play 6-5", "why": [], "steps": []}
    rig.board.lift("24", "white")
    rig.changing()
    in_hand = words(rig)
    assert in_hand["kind"] == "in_hand" and in_hand["headline"].startswith("A checker is in hand from point 24: it may go to ")
    rig.board.place("18", "white")
    rig.show()
    assert words(rig)["headline"] == "white has played part of 6-5: 5 still to play"
    rig.board.move("18", "13", "white")
    rig.show()
    assert words(rig)["headline"] == "white has played 6-5: a complete play, press the button to commit it"


def test_an_illegal_board_says_why_and_what_to_do(tmp_path):
    rig = Rig(tmp_path, dice=[6, 5, 6, 5])
    rig.to_moving()
    rig.board.move("13", "12", "white")            # onto black's five checkers
    rig.show(settle=True)
    assert rig.state == "correcting"
    said = words(rig)
    assert said["kind"] == "illegal" and said["headline"] == "Illegal board: put it back as the lights show"
    assert said["why"] == ["Point 12 is held by black (5 checkers): white may not land there."]
    assert said["steps"] == ["take one white checker from 12 to 13"]


def test_the_bots_turn_in_words_names_its_play_and_the_moves_still_to_make(tmp_path):
    """White is the bot's: the companion says what it plays and which checker moves are left, the
    first the one the lights show, in the board's own (physical) numbering."""
    rig = Rig(tmp_path, [6, 5, 6, 5], match=MatchRules(sequence=("portes",), target=1), bots=[WHITE], choose_play=fixed_play(("24/18", "13/8")),
              orientation=Orientation.ROTATED)
    rig.to_moving()
    rotated = {point: str(Orientation.ROTATED.point(point)) for point in (24, 18, 13, 8)}
    assert words(rig) == {"kind": "unchanged", "headline": "The bot plays white's 6-5: 24/18 13/8; move its checkers "
                          "as the lights show", "why": [],
                          "steps": [f"take one white checker from {rotated[24]} to {rotated[18]}",
                                    f"take one white checker from {rotated[13]} to {rotated[8]}"]}
    rig.show(rig.board.move("24", "18", "white"))
    assert words(rig)["steps"] == [f"take one white checker from {rotated[13]} to {rotated[8]}"]
    rig.show(rig.board.move("13", "8", "white"))
    assert words(rig)["headline"] == "white has played 6-5: a complete play, press the button to commit it"
