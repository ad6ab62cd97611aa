"""The remote seat's turn in the controller, in virtual time: it waits for the opponent board's play
(a press is refused meanwhile), takes it only if it is a whole legal play of the turn's roll from the
turn's position (else a fault is journaled and shown, and nothing applied), then lights it move by
move and holds the board to it as for the bot's seat."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "controller"))

from controller_kit import Rig   # noqa: E402
from firmware_host.controller import Controller   # noqa: E402
from firmware_host.controller.remote import RemotePlay   # noqa: E402
from firmware_host.hw import ScriptedDice   # noqa: E402
from firmware_host.journal import Journal, Kind   # noqa: E402
from firmware_host.leds.scene import Mark   # noqa: E402
from firmware_host.rules import BLACK, Rules, Turn   # noqa: E402
from firmware_host.rules.match import MatchRules   # noqa: E402

PORTES = MatchRules(sequence=("portes",), target=3)


def remote_black(tmp_path) -> Rig:
    """table-1's controller: white is its player's, black the opponent board's; black starts."""
    rig = Rig(tmp_path, match=PORTES)
    rig.controller = Controller(rig.journal, ScriptedDice([3, 5, 6, 5, 2, 1]), PORTES, remote_seats={BLACK})
    rig.to_moving()
    assert rig.controller.position.turn is BLACK
    return rig


def remote(play, dice, moves=None, side="black") -> RemotePlay:
    moves = play.moves if moves is None else moves
    return RemotePlay("table-2", side, tuple(dice), tuple(move.to_json() for move in moves), play.position.to_json())


def the_play(rig: Rig):
    controller = rig.controller
    return Turn(controller.position, controller.dice, Rules.for_variant("portes")).plays()[0]


def test_the_remote_turn_waits_for_the_play_and_refuses_a_press_meanwhile(tmp_path):
    rig = remote_black(tmp_path)
    view = rig.controller.view()
    assert view.awaiting_remote_play and view.bot_play is None and view.to_json()["seats"]["black"] == "remote"
    rig.press()
    assert rig.records(Kind.REFUSAL)[-1]["reason"] == "waiting_for_remote_play"
    assert not rig.records(Kind.PLAY)


def test_a_play_that_is_not_a_whole_legal_play_of_the_turn_is_refused_and_nothing_applied(tmp_path):
    rig = remote_black(tmp_path)
    play, dice = the_play(rig), rig.controller.dice
    for wrong, why in ((remote(play, dice, moves=play.moves[:1]), "not a whole legal play"),
                       (remote(play, (1, 1)), "the dice"),
                       (remote(play, dice, side="white"), "for white"),
                       (remote(play, dice, moves=play.moves[::-1][:1] * 2), "not")):
        rig.send(wrong)
        view = rig.controller.view()
        assert why in view.remote_fault and view.awaiting_remote_play and view.bot_play is None
        assert rig.records(Kind.FAULT)[-1]["fault"] == "remote_refused"
    assert not rig.records(Kind.PLAY)


def test_the_play_is_lit_move_by_move_and_held_like_the_bots(tmp_path):
    rig = remote_black(tmp_path)
    play, dice = the_play(rig), rig.controller.dice
    rig.send(remote(play, dice))
    view = rig.controller.view()
    assert view.bot_play == play and view.remote_fault is None
    for move in play.moves:
        assert rig.marked(Mark.TAKE_FROM) and rig.marked(Mark.PUT_ON)
        rig.board.move(move.origin, move.destination, "black")
        if move.hit:
            rig.board.move(move.destination, "bar", "white")
        rig.show()
    assert rig.controller.verdict.kind == "complete"
    rig.press()
    assert rig.records(Kind.PLAY)[-1]["side"] == "black"
    assert rig.controller.position.turn.value == "white" and rig.state == "moving"


def test_restarted_in_the_remote_turn_before_its_play_came_the_board_waits_for_it_and_then_holds_it(tmp_path):
    """A power cut while the opponent board's player was playing: the journal holds black's roll, not
    its play. The board, as it was, goes on waiting for that play (not guided back), then holds it."""
    rig = remote_black(tmp_path)
    play, dice = the_play(rig), rig.controller.dice
    rig.journal.close()
    rig.journal = Journal.open(rig.journal_path)
    rig.controller = Controller(rig.journal, ScriptedDice([]), PORTES, remote_seats={BLACK},
                                resume=rig.journal.resume())
    rig.show()
    view = rig.controller.view()
    assert rig.state == "moving" and view.awaiting_remote_play and view.dice == dice
    rig.send(remote(play, dice))
    assert rig.controller.view().bot_play == play and rig.marked(Mark.TAKE_FROM)
