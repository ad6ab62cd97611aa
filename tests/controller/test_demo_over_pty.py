"""Whole matches played by the demo's scripted players through the simulated board and MCU and the real
sensor link over a pseudo-terminal: the controller, the journal and the LEDs as in the service."""
import io

from firmware_host.cli import main
from firmware_host.demo import Demo, Settings, play_scripted_match, run_interactive
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.journal import Kind
from firmware_host.leds import Renderer
from firmware_host.rules import Position
from firmware_host.rules.match import PRESETS, MatchRules

SPEED = 16   # the sensors' quiet and grace times, the hold and the signals 16 times shorter


def play_over_pty(tmp_path, preset, seed):
    settings = Settings(MatchRules(sequence=preset, target=3), seed=seed, speed=SPEED, out=io.StringIO())
    first = laid_out(Position.start(PRESETS[preset][0]), Orientation.MIRRORED)
    with Demo(settings, tmp_path, first) as demo:
        final = play_scripted_match(demo)
        records = [(event.kind, dict(event.data)) for event in demo.journal.tail(1_000_000)]
        strip = demo.hardware.strip
        last_frame = demo.loop.frame
    return final, records, settings.out.getvalue(), strip, last_frame, demo


def check_match(preset, final, records, output):
    assert final.state == "match_over"
    (ended,) = [data for kind, data in records if kind is Kind.MATCH_ENDED]
    assert (ended["score"]["white"], ended["score"]["black"]) == final.score
    assert max(final.score) >= 3
    variants = [data["variant"] for kind, data in records if kind is Kind.GAME_STARTED]
    assert variants == [PRESETS[preset][i % 3] for i in range(len(variants))] and len(variants) >= 3
    refusals = [data["reason"] for kind, data in records if kind is Kind.REFUSAL]
    assert "rolling_too_early" in refusals and "illegal_board" in refusals
    actions = [data["action"] for kind, data in records if kind is Kind.REFEREE]
    assert actions[0] == "enter" and "replay_move" in actions and actions[-1] == "leave"
    assert not [data for kind, data in records if kind is Kind.FAULT], "the link should have held"
    assert output.rstrip().splitlines()[-1].startswith("match over:")


def test_a_whole_tavli_match_over_the_pty(tmp_path):
    final, records, output, strip, last_frame, demo = play_over_pty(tmp_path, "tavli", 1)
    check_match("tavli", final, records, output)
    assert last_frame in strip.frames
    shown = Renderer.from_config(demo.config.leds).decode(last_frame, 0.0)
    white, black = final.score
    assert shown["score:white"].startswith(f"score:{min(white, 7)}/")


def test_a_whole_tabla_match_over_the_pty(tmp_path):
    final, records, output, *_ = play_over_pty(tmp_path, "tabla", 2)
    check_match("tabla", final, records, output)


def test_interactive_actions_are_carried_out_and_bad_ones_explained(tmp_path):
    settings = Settings(MatchRules(sequence="portes", target=1), speed=SPEED, out=io.StringIO())
    with Demo(settings, tmp_path, laid_out(Position.start("portes"), Orientation.AS_WIRED)) as demo:
        run_interactive(demo, ["press", "lift 13 white", "fly 3", "quit", "press"])
        state = demo.table.seen
    output = settings.out.getvalue()
    intro, help_text = output.index("The board is drawn as White sees it"), output.index("Type what your hands do")
    assert intro < help_text < output.index(" 13 14 15 16 17 18")    # the board and the actions explained first
    assert "  WA waiting" in output                  # under the board, what the lit lights mean
    assert "\x1b[" not in output                    # not a terminal: no colour codes
    assert "? unknown command 'fly'" in output
    assert output.count(" 13 14 15 16 17 18") == 3   # the first board and one per good action before quit
    assert state.sensed.white.points[12] == 4 and state.state == "awaiting_roll"


def test_the_demo_command_refuses_a_bad_match_or_speed(capsys):
    assert main(["demo", "--match", "backgammon"]) == 2
    assert "unknown game 'backgammon'" in capsys.readouterr().err
    assert main(["demo", "--speed", "100"]) == 2
    assert "--speed 100" in capsys.readouterr().err


def test_each_interactive_action_ends_with_what_the_referee_decided_in_words(tmp_path):
    """Issue 30: an illegal slide redrew the board as still moving, with no marks and no words (the
    demo looked before the referee's grace time was over)."""
    settings = Settings(MatchRules(sequence="portes", target=1), speed=SPEED, out=io.StringIO())
    with Demo(settings, tmp_path, laid_out(Position.start("portes"), Orientation.AS_WIRED)) as demo:
        run_interactive(demo, ["press", "press", "slide 13 12 white", "quit"])   # onto black's five: never legal
        state = demo.table.seen
    output = settings.out.getvalue()
    assert state.state == "correcting"
    after_slide = output[output.index("== slide 13 12 white"):]
    assert "referee: Illegal board: put it back as the lights show" in after_slide
    assert "  1. take one white checker from 12 to 13" in after_slide
    assert output.count("referee: ") == 3                 # every action answered, in words
