"""A seat played by the bot ([match] white / black = "bot"): the press rolls for it, the lights show
its play one checker move at a time, a person moves its checkers, and the referee holds the board to
that play; any other board is guided back. Driven in virtual time with the controller kit."""
from __future__ import annotations

import json
import random

import pytest

from controller_kit import Board, Rig, fixed_play
from firmware_host.bot import TrainedChooser
from firmware_host.controller import Orientation
from firmware_host.hw.dice import SeededDice
from firmware_host.journal import Kind
from firmware_host.leds.scene import Mark
from firmware_host.referee.held import HeldReferee
from firmware_host.rules import WHITE, Color, Move, Play, Position, Turn
from firmware_host.rules.match import MatchRules
from firmware_host.rules.plays import Owed

PORTES = MatchRules(sequence=("portes",), target=1)


def unified(orientation: Orientation, led: str) -> str:
    """A physical LED location as a place on the kit's board (unified numbering)."""
    return str(orientation.point(int(led))) if led.isdigit() else led.partition(":")[0]


def shown_move(rig: Rig) -> tuple[str, str]:
    """The one checker move the lights ask for: (take from, put on), in the unified numbering."""
    take, put = rig.marked(Mark.TAKE_FROM), rig.marked(Mark.PUT_ON)
    assert len(take) == 1 and len(put) == 1, rig.scene.marks
    return unified(rig.orientation, take.pop()), unified(rig.orientation, put.pop())


def make_move_as_shown(rig: Rig, move: Move, colour: Color) -> None:
    """A person makes the move the lights show: lifts the checker, puts it down, and (a hit) lifts
    the lone opposing checker to the bar."""
    origin, destination = shown_move(rig)
    assert (origin, destination) == (move.origin, move.destination)
    rig.board.lift(origin, colour.value)
    rig.changing()
    rig.board.place(destination, colour.value)
    if move.hit:
        rig.board.move(destination, "bar", colour.opponent.value)
    rig.show()


def bot_plays_its_turn(rig: Rig) -> Play:
    """Follow the lights through the bot's play, checking each board on the way is taken as such."""
    controller = rig.controller
    play, colour = controller.referee.play, controller.position.turn
    for index, move in enumerate(play.moves):
        assert controller.verdict.kind == ("unchanged" if index == 0 else "partial")
        make_move_as_shown(rig, move, colour)
        assert rig.state == "moving"
    assert controller.verdict.kind == "complete" and controller.verdict.play == play
    assert not rig.marked(Mark.TAKE_FROM) and not rig.marked(Mark.PUT_ON)
    return play


@pytest.mark.parametrize("seat", [Color.WHITE, Color.BLACK])
def test_a_whole_game_against_the_bot(tmp_path, seat):
    """The bot's turns are moved by following the lights; the person's turns are any legal play.
    Every bot play is the one the trained bot chooses, and is journaled as it was played."""
    rig = Rig(tmp_path, match=PORTES, dice_source=SeededDice(7), bots=[seat], orientation=Orientation.ROTATED)
    choose, chooser = random.Random(3).choice, TrainedChooser()
    controller = rig.controller
    bot_plays = []
    for _ in range(2000):
        if rig.state == "match_over":
            break
        if rig.state == "setup":
            rig.start_game()
        elif rig.state in ("opening_roll", "awaiting_roll"):
            rig.press()
        elif rig.state == "moving" and controller.position.turn is seat:
            expected = chooser(Turn(controller.position, controller.dice, controller.rules))
            assert bot_plays_its_turn(rig) == expected
            bot_plays.append(expected)
            rig.press()
        elif rig.state == "moving":
            assert not rig.marked(Mark.TAKE_FROM), "the person's own turn shows no bot move"
            play = Turn(controller.position, controller.dice, controller.rules).pick_play(choose)
            rig.show(Board.of(play.position, controller.orientation))
            rig.press()
        else:
            assert rig.state == "game_over", rig.state
            rig.press()
    assert rig.state == "match_over"
    assert len(bot_plays) > 5
    started = rig.records(Kind.MATCH_STARTED)
    assert started[0]["bots"] == [seat.value]
    journaled = [record for record in rig.records(Kind.PLAY) if record["side"] == seat.value]
    assert [[move["from"] + "/" + move["to"] for move in record["moves"]] for record in journaled] == \
        [[f"{move.origin}/{move.destination}" for move in play.moves] for play in bot_plays]


def white_bot_to_move(tmp_path, dice, moves=("24/18", "18/13")) -> Rig:
    """White, the bot, starts a game of Portes with `dice` and will play `moves`."""
    rig = Rig(tmp_path, dice, match=PORTES, bots=[WHITE], choose_play=fixed_play(moves))
    rig.to_moving()
    assert rig.controller.position.turn is WHITE
    return rig


def test_another_legal_play_of_the_bots_checkers_is_guided_back(tmp_path):
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1])
    assert shown_move(rig) == ("24", "18")
    # The person plays 13/7 13/8 instead: legal with 6-5, but not the bot's play.
    rig.show(rig.board.move("13", "7", "white").move("13", "8", "white"), settle=True)
    assert rig.state == "correcting"
    rig.press()
    assert rig.state == "correcting" and rig.controller.position == Position.start("portes").with_turn(WHITE)
    # Guided back one checker at a time, to the start of the bot's play.
    for _ in range(2):
        origin, destination = shown_move(rig)
        rig.show(rig.board.move(origin, destination, "white"))
    assert rig.state == "moving" and shown_move(rig) == ("24", "18")
    play = bot_plays_its_turn(rig)
    rig.press()
    assert rig.controller.position == play.position
    assert [move["from"] for move in rig.records(Kind.PLAY)[-1]["moves"]] == ["24", "18"]


def test_a_move_out_of_order_is_guided_on_to_the_nearest_board_on_the_way(tmp_path):
    """The second move made first: the board is off the way the lights show; of the boards on the
    way, the start and the play's end are each one checker move from it, and the guidance leads
    forward (the move the person skipped), after which the bot's play stands complete."""
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1], moves=("24/18", "13/8"))
    rig.show(rig.board.move("13", "8", "white"), settle=True)
    assert rig.state == "correcting"
    assert rig.controller.correction_goal == rig.controller.referee.way[-1]
    origin, destination = shown_move(rig)
    assert (origin, destination) == ("24", "18")
    rig.show(rig.board.move(origin, destination, "white"))
    assert rig.state == "moving" and rig.controller.verdict.kind == "complete"


def test_a_wrong_move_far_from_the_play_is_guided_back_to_its_start(tmp_path):
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1], moves=("24/18", "13/8"))
    rig.show(rig.board.move("6", "1", "white"), settle=True)
    assert rig.state == "correcting"
    assert rig.controller.correction_goal == rig.controller.referee.way[0]
    assert shown_move(rig) == ("1", "6")
    rig.show(rig.board.move("1", "6", "white"))
    assert rig.state == "moving" and shown_move(rig) == ("24", "18")


def test_the_press_is_refused_until_the_bots_whole_play_is_on_the_board(tmp_path):
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1])
    rig.show(rig.board.move("24", "18", "white"))
    assert rig.controller.verdict.kind == "partial" and shown_move(rig) == ("18", "13")
    rig.press()
    assert rig.state == "moving" and rig.records(Kind.REFUSAL)[-1]["reason"] == "rolling_too_early"
    rig.show(rig.board.move("18", "13", "white"))
    rig.press()
    assert rig.controller.position.turn is Color.BLACK and rig.controller.dice is not None


def test_a_lifted_checker_keeps_the_move_lit(tmp_path):
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1])
    rig.board.lift("24", "white")
    rig.changing()
    assert shown_move(rig) == ("24", "18")


def test_the_bots_seat_survives_a_restart(tmp_path):
    """A power cut on the bot's turn: the resumed game holds the board to the same play."""
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1])
    rig.show(rig.board.move("24", "18", "white"))
    rig.restart()
    rig.show()
    assert rig.state == "moving" and shown_move(rig) == ("18", "13")


# -- hints: referee mode shows the bot's play for a person ------------------------------------------

def test_with_hints_referee_mode_shows_the_best_play_move_by_move_like_a_replay(tmp_path):
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES, hints=True, choose_play=fixed_play(("24/18", "18/13")))
    rig.to_moving()
    rig.hold()
    assert rig.state == "referee"
    shown = []
    for _ in range(2):
        origin, destination = rig.marked(Mark.LAST_PLAY_ORIGIN), rig.marked(Mark.LAST_PLAY_DESTINATION)
        shown.append((unified(rig.orientation, origin.pop()), unified(rig.orientation, destination.pop())))
        assert rig.scene.dice == (6, 5) and rig.scene.turn == "white"
        rig.press()
    assert shown == [("24", "18"), ("18", "13")]
    assert rig.controller.referee_pages[rig.controller.referee_page].kind == "legal_play"
    pages = [record for record in rig.records(Kind.REFEREE) if record["action"] == "best_play"]
    assert [(page["move"]["from"], page["move"]["to"], page["index"], page["of"]) for page in pages] == \
        [("24", "18", 0, 2), ("18", "13", 1, 2)]
    rig.hold()
    assert rig.state == "moving"


def test_without_hints_referee_mode_offers_no_best_play(tmp_path):
    def never(turn):
        raise AssertionError("no hint was asked for")
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES, choose_play=never)
    rig.to_moving()
    rig.hold()
    assert rig.state == "referee"
    assert {page.kind for page in rig.controller.referee_pages} == {"legal_play"}


def test_the_trained_bot_gives_the_hints_when_none_is_passed(tmp_path):
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES, hints=True)
    rig.to_moving()
    rig.hold()
    best = TrainedChooser()(rig.controller.referee.turn)
    assert rig.controller.best_play == best
    assert [page.kind for page in rig.controller.referee_pages[:len(best.moves)]] == ["best_play"] * len(best.moves)


# -- referee mode and hints on the bot's turn: its one play, never another -----------------------------

@pytest.mark.parametrize("hints", [False, True])
def test_referee_mode_on_the_bots_turn_shows_its_one_play_not_every_legal_play(tmp_path, hints):
    """The referee holds the board to the bot's play: referee mode shows that play, move by move,
    and lists no other play of the roll (with hints or without)."""
    rig = white_bot_to_move(tmp_path, [6, 5, 6, 5, 3, 1], moves=("24/18", "13/8"))
    rig.controller.hints = hints
    rig.hold()
    assert rig.state == "referee"
    controller = rig.controller
    assert [page.kind for page in controller.referee_pages] == ["best_play", "best_play"]
    assert controller.best_play == controller.referee.play and controller.legal_plays == []
    shown = []
    for _ in range(2):
        origin, destination = rig.marked(Mark.LAST_PLAY_ORIGIN), rig.marked(Mark.LAST_PLAY_DESTINATION)
        shown.append((unified(rig.orientation, origin.pop()), unified(rig.orientation, destination.pop())))
        assert not rig.marked(Mark.LEGAL_DESTINATION) and rig.scene.dice == (6, 5)
        rig.press()
    assert shown == [("24", "18"), ("13", "8")]
    entered = [record for record in rig.records(Kind.REFEREE) if record["action"] == "enter"][-1]
    assert entered["plays_listed"] == 0 and entered["pages"] == 2
    rig.hold()
    assert rig.state == "moving" and shown_move(rig) == ("24", "18")


def test_referee_mode_after_the_persons_play_replays_it_then_shows_the_bots_play(tmp_path):
    """Black, a person, has played; White, the bot, has rolled: the replay of Black's play, then the
    bot's play, then the restore of Black's play."""
    rig = Rig(tmp_path, [1, 2, 3, 1, 6, 5], match=PORTES, bots=[WHITE], choose_play=fixed_play(("24/18", "18/13")))
    rig.to_moving()
    assert rig.controller.position.turn is Color.BLACK
    rig.show(rig.board.move("1", "4", "black").move("4", "5", "black"))
    rig.press()
    assert rig.controller.position.turn is WHITE and rig.controller.dice == (6, 5)
    rig.hold()
    assert [page.kind for page in rig.controller.referee_pages] == \
        ["replay_move", "replay_move", "best_play", "best_play", "restore"]


@pytest.mark.parametrize("variant, seed", [("portes", 5), ("plakoto", 6), ("gulbara", 7)])
def test_hint_on_the_bots_turn_offers_the_play_the_bot_makes(tmp_path, capsys, variant, seed):
    """`tavli-board hint` asked about the bot's roll ranks first the very play the referee holds the
    board to (Gul Bara's cascades included), so no hint contradicts the bot."""
    from firmware_host.cli import main
    rig = Rig(tmp_path, match=MatchRules(sequence=(variant,), target=1), dice_source=SeededDice(seed),
              bots=[WHITE, Color.BLACK])
    controller = rig.controller
    compared = 0
    while compared < 12 and rig.state != "match_over":
        if rig.state == "setup":
            rig.start_game()
        elif rig.state == "moving":
            if not isinstance(controller.dice, Owed):   # hint asks about a roll (the game's default rules)
                path = tmp_path / "position.json"
                path.write_text(controller.position.to_json_text())
                assert main(["hint", "--position", str(path), "--dice", *map(str, controller.dice)]) == 0
                best = json.loads(capsys.readouterr().out)["plays"][0]
                assert best["moves"] == [move.to_json() for move in controller.referee.play.moves]
                compared += 1
            bot_plays_its_turn(rig)
            rig.press()
        else:
            rig.press()
    assert compared == 12


# -- seats changed while the service runs (the companion's settings) -------------------------------

def test_a_seat_given_to_the_bot_plays_from_that_sides_next_roll_and_is_journaled(tmp_path):
    """White, a person, is moving when Black's seat goes to the bot: White's turn is played out as
    a person's; Black's next roll is the bot's, held to its play; the journal says so with that turn."""
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1, 2, 1], match=PORTES, choose_play=fixed_play(("1/4", "1/2")))
    rig.to_moving()
    assert rig.controller.position.turn is WHITE
    rig.controller.seat_bots({Color.BLACK})
    assert not isinstance(rig.controller.referee, HeldReferee) and not rig.marked(Mark.TAKE_FROM)
    rig.show(rig.board.move("13", "7", "white").move("13", "8", "white"))   # not what any bot would hold
    assert rig.controller.verdict.kind == "complete"
    rig.press()
    assert rig.controller.position.turn is Color.BLACK and isinstance(rig.controller.referee, HeldReferee)
    assert shown_move(rig) == ("1", "4")
    seats = [record for record in rig.records(Kind.REFEREE) if record["action"] == "seats"]
    assert seats == [{"action": "seats", "bots": ["black"]}]
    bot_plays_its_turn(rig)
    rig.controller.seat_bots(())                                             # back to a person
    rig.press()
    assert rig.controller.position.turn is WHITE and not isinstance(rig.controller.referee, HeldReferee)
    assert [record["bots"] for record in rig.records(Kind.REFEREE) if record["action"] == "seats"] == [["black"], []]


def test_a_seat_changed_while_the_service_was_down_is_journaled_with_its_first_turn(tmp_path):
    """The config gave Black's seat to the bot while the service was stopped, Black's roll thrown:
    the resumed turn is the bot's, and the journal records the change with it, as a change while
    running would be; a later restart with the same seats records nothing more."""
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES, choose_play=fixed_play(("1/4", "1/2")))
    rig.to_moving()
    rig.show(rig.board.move("13", "7", "white").move("13", "8", "white"))
    rig.press()
    assert rig.controller.position.turn is Color.BLACK
    rig.restart(bots={Color.BLACK})
    rig.show()
    assert isinstance(rig.controller.referee, HeldReferee) and shown_move(rig) == ("1", "4")
    assert [record["bots"] for record in rig.records(Kind.REFEREE) if record["action"] == "seats"] == [["black"]]
    rig.restart()
    rig.show()
    assert isinstance(rig.controller.referee, HeldReferee)
    assert [record["bots"] for record in rig.records(Kind.REFEREE) if record["action"] == "seats"] == [["black"]]


def test_a_seat_given_to_the_bot_loads_the_trained_bot_when_none_was_needed(tmp_path):
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES)
    assert rig.controller.choose_play is None
    rig.controller.seat_bots({WHITE})
    rig.to_moving()
    assert rig.controller.referee.play == TrainedChooser()(rig.controller.referee.turn)


def test_seats_set_before_the_first_game_are_the_match_started_records(tmp_path):
    rig = Rig(tmp_path, [6, 5, 6, 5, 3, 1], match=PORTES, choose_play=fixed_play(("24/18", "18/13")))
    rig.controller.seat_bots({WHITE})
    rig.to_moving()
    assert rig.records(Kind.MATCH_STARTED)[0]["bots"] == ["white"]
    assert not [record for record in rig.records(Kind.REFEREE) if record["action"] == "seats"]
    assert isinstance(rig.controller.referee, HeldReferee)
