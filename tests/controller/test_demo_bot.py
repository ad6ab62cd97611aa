"""`demo --bot`: the bot plays a seat; the scripted players move its checkers as the lights show, one
move after the other, over the simulated board and MCU and the real sensor link."""
import io

from firmware_host.bot import TrainedChooser
from firmware_host.cli import main
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.demo import Demo, Settings, play_scripted_match
from firmware_host.journal import Kind
from firmware_host.rules import Color, Move, Position, Turn
from firmware_host.rules.match import MatchRules

SPEED = 16


def test_the_players_move_the_bots_checkers_as_the_lights_show(tmp_path):
    settings = Settings(MatchRules(sequence="plakoto", target=1), seed=4, speed=SPEED, out=io.StringIO(),
                        bots=frozenset({Color.BLACK}))
    with Demo(settings, tmp_path, laid_out(Position.start("plakoto"), Orientation.AS_WIRED)) as demo:
        final = play_scripted_match(demo)
        events = demo.journal.tail(1_000_000)
    assert final.state == "match_over"
    assert [dict(event.data).get("bots") for event in events if event.kind is Kind.MATCH_STARTED] == [["black"]]
    # Every black play is the trained bot's choice from the position and dice it was played from.
    chooser, checked = TrainedChooser(), 0
    rules = demo.config.rules_for("plakoto")
    before = None
    for event in events:
        data = dict(event.data)
        if "position" in data and event.kind in (Kind.GAME_STARTED, Kind.PLAY):
            if event.kind is Kind.PLAY and data["side"] == "black":
                bot_play = chooser(Turn(before.with_turn(Color.BLACK), tuple(data["dice"]), rules))
                assert [Move(m["from"], m["to"], m["die"], m["hit"], m["pin"]) for m in data["moves"]] == \
                    list(bot_play.moves)
                checked += 1
            before = Position.from_json(data["position"])
    assert checked >= 5
    assert "the bot plays black" in settings.out.getvalue()


def test_the_demo_command_takes_the_bots_side(monkeypatch):
    import firmware_host.demo
    given = []

    def run_demo(settings, interactive):
        given.append(settings.bots)
        return 0
    monkeypatch.setattr(firmware_host.demo, "run_demo", run_demo)
    assert main(["demo", "--match", "portes", "--bot", "white", "--bot", "black"]) == 0
    assert main(["demo", "--match", "portes"]) == 0
    assert given == [{Color.WHITE, Color.BLACK}, frozenset()]



def test_the_demos_config_file_keeps_its_bot_seat_for_the_companion(tmp_path):
    """Settings saved in the companion are read back from this file: the `--bot` seat must be in it,
    or the first save would hand the bot's side to a person."""
    from firmware_host.config import load_config
    from firmware_host.demo.rig import write_companion_config
    settings = Settings(MatchRules(sequence="portes", target=3), out=io.StringIO(), web_port=8123,
                        bots=frozenset({Color.WHITE}))
    config = load_config(write_companion_config(tmp_path, settings))
    assert config.bots == {Color.WHITE} and config.match_rules.target == 3
