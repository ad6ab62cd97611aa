"""Referee mode (a long press) in every in-game state where there is something to show: while
awaiting a roll, in a turn, while correcting, in a blockade (tests/controller/test_blockade_*) and at
game over; a long press goes back to the state it came from."""
from firmware_host.journal import Kind
from firmware_host.leds.scene import Mark
from firmware_host.rules import WHITE, Position, Turn
from firmware_host.rules.match import opening_roll

from controller_kit import Board, Rig, journal_game_at

PORTES = Position.start("portes")


def pages(rig) -> list[str]:
    return [page.kind for page in rig.controller.referee_pages]


def black_to_play_3_1(tmp_path) -> Rig:
    rig = Rig(tmp_path, (6, 5, 6, 5, 3, 1))
    rig.to_moving()
    rig.show(rig.board.move("24", "18", "white").move("18", "13", "white"))
    rig.press()
    assert (rig.state, rig.scene.turn, rig.controller.dice) == ("moving", "black", (3, 1))
    return rig


def test_while_correcting_a_long_press_replays_the_last_play_and_comes_back_to_the_correction(tmp_path):
    rig = black_to_play_3_1(tmp_path)
    rig.show(rig.board.move("1", "6", "black"), settle=True)   # no 5 in 3-1
    assert rig.state == "correcting"
    rig.hold()
    assert rig.state == "referee"
    assert pages(rig)[:2] == ["replay_move", "replay_move"] and pages(rig)[-1] == "restore"
    assert "legal_play" in pages(rig)                            # Black's 3-1 is still the roll
    assert rig.marked(Mark.LAST_PLAY_ORIGIN) == {"24"}
    assert rig.records(Kind.REFEREE)[0]["state"] == "correcting"
    rig.hold()
    assert rig.state == "correcting"
    assert rig.marked(Mark.TAKE_FROM) == {"6"}
    rig.show(rig.board.move("6", "1", "black"))
    assert (rig.state, rig.scene.turn) == ("moving", "black")


def test_while_awaiting_a_roll_a_long_press_replays_the_last_play(tmp_path):
    rig = Rig(tmp_path)
    journal_game_at(rig, PORTES)
    rig.journal.record_opening_roll(6, 5, opening_roll(6, 5, "reroll"))
    rig.journal.record_roll(WHITE, (6, 5))
    play = next(p for p in Turn(PORTES, (6, 5)).plays() if [m.destination for m in p.moves] == ["18", "13"])
    rig.journal.record_play(WHITE, (6, 5), play)       # the service stopped before Black's roll
    rig.restart(dice=(2, 1))
    rig.show(Board.of(play.position))
    assert rig.state == "awaiting_roll"
    rig.hold()
    assert rig.state == "referee" and pages(rig) == ["replay_move", "replay_move", "restore"]
    assert (rig.scene.turn, rig.scene.dice) == ("white", (6, 5))
    rig.hold()
    assert rig.state == "awaiting_roll"
    rig.press()
    assert (rig.state, rig.scene.turn, rig.scene.dice) == ("moving", "black", (2, 1))


def test_before_anything_was_played_a_long_press_while_awaiting_the_roll_does_nothing(tmp_path):
    rig = Rig(tmp_path, (6, 5))
    rig.start_game()
    rig.press()
    assert rig.state == "awaiting_roll"
    rig.hold()
    assert rig.state == "awaiting_roll" and rig.records(Kind.REFEREE) == []


def test_at_game_over_a_long_press_replays_the_winning_play_and_the_score_wait_starts_again(tmp_path):
    rig = Rig(tmp_path)
    last_checker = Position.from_json({"variant": "portes", "turn": "white",
                                       "white": {"points": {"1": 1}, "bar": 0, "off": 14},
                                       "black": {"points": {"19": 15}, "bar": 0, "off": 0}})
    journal_game_at(rig, last_checker, (1, 2))
    rig.restart()
    rig.show()
    rig.show(rig.board.move("1", "off", "white"))
    rig.press()
    assert rig.state == "game_over" and rig.scene.score.white == 2
    rig.wait(rig.timings.game_over_s / 2)
    rig.hold()
    assert rig.state == "referee" and pages(rig) == ["replay_move"]   # a finished game is not undone
    assert rig.marked(Mark.LAST_PLAY_ORIGIN) == {"1"} and rig.marked(Mark.LAST_PLAY_DESTINATION) == {"off:white"}
    rig.hold()
    assert rig.state == "game_over"
    rig.wait(rig.timings.game_over_s / 2)
    assert rig.state == "game_over"                                   # the wait began again
    rig.wait(rig.timings.game_over_s / 2)
    assert rig.state == "setup"
