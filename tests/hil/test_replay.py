"""Traces: recorded as the service records them, replayed through the whole application."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from firmware_host.cli import main
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.hil.replay import Shown, replay
from firmware_host.hil.scenario import load_scenario, parse_scenario
from firmware_host.hil.soak import FAULTS, Figures, SoakMatch, SoakPlayers, match_rules_for, soak_config
from firmware_host.service.trace import BUTTON_EVENTS, TraceError, TraceRecorder, load_trace, parse_trace, settings_of
from firmware_host.hil.trace_scenario import Hands
from firmware_host.hw.dice import ScriptedDice
from firmware_host.rules import Position
from firmware_host.sensing.reading import BoardReading, SideReading
from firmware_host.sim.board import BoardError, SimBoard


def record_match(tmp_path, *, seed: int, games: int = 1, variants=("portes",), fault_rate: float = 0.0,
                 fault_kinds=FAULTS):
    """Play `games` with the soak's players (and faults) while recording a trace; returns the trace
    file and what the controller showed after every event, as the replay observes it."""
    shown = []
    figures = Figures()
    match = SoakMatch(soak_config(), match_rules_for(0, variants), seed, fault_rate, figures, tmp_path, trace=True,
                      observers=[lambda view, event: shown.append((type(event).__name__, Shown.of(view)))],
                      fault_kinds=fault_kinds)
    try:
        SoakPlayers(match, seed).play_games(games)
        figures.games = match.games_ended
    finally:
        match.close()
    assert (figures.false_verdicts, figures.crashes, figures.plays_lost) == (0, 0, 0), figures.problems
    return match.trace.save(tmp_path / "trace.jsonl"), shown, figures


@pytest.fixture(scope="module")
def faulty_game(tmp_path_factory):
    """A whole plakoto game with link faults, stunts and the referee, recorded."""
    return record_match(tmp_path_factory.mktemp("faulty"), seed=21, variants=("plakoto",), fault_rate=0.1)


def test_a_replay_shows_what_the_recorded_run_showed_after_every_event(faulty_game):
    path, shown, figures = faulty_game
    assert figures.faults_injected > 0 and figures.games == 1
    result = replay(load_trace(path))
    replayed = [(type(moment.event).__name__, moment.shown) for moment in result.moments]
    assert result.errors == []
    assert replayed[:len(shown)] == shown
    assert shown[-1][1].view.state == "game_over"


def test_the_same_trace_replays_to_the_same_output(faulty_game, capsys):
    path = faulty_game[0]
    assert main(["hil", "replay", str(path)]) == 0
    first = capsys.readouterr().out
    assert main(["hil", "replay", str(path)]) == 0
    assert capsys.readouterr().out == first
    assert "game_over" in first and "> DicePressed" in first and "verdict=complete" in first


def test_a_trace_holds_the_link_both_ways_the_button_and_the_dice(faulty_game):
    trace = load_trace(faulty_game[0])
    kinds = {record.kind for record in trace.records}
    assert kinds >= {"open", "rx", "tx", "button", "die"}
    assert trace.header["complete"] is True
    assert [record.t for record in trace.records] == sorted(record.t for record in trace.records)
    assert all(1 <= die <= 6 for die in trace.dice)


def test_the_ring_keeps_the_last_window_and_says_when_it_lost_the_start():
    now = [0.0]
    recorder = TraceRecorder({"any": 1}, window_s=10.0, clock=lambda: now[0])
    for second in range(30):
        now[0] = float(second)
        recorder.record("die", 1 + second % 6)
    lines = list(recorder.lines())
    header = json.loads(lines[0])
    times = [json.loads(line)["t"] for line in lines[1:]]
    assert header["complete"] is False and recorder.dropped == 19
    assert times == [float(second) for second in range(19, 30)]


def test_an_incomplete_trace_is_not_replayed(tmp_path):
    recorder = TraceRecorder(settings_of(soak_config()), window_s=0.0)
    recorder.record("die", 3)
    recorder.record("die", 4)
    with pytest.raises(TraceError, match="incomplete"):
        replay(load_trace(recorder.save(tmp_path / "cut.jsonl")))


def test_the_recorded_dice_are_the_dice_rolled():
    recorder = TraceRecorder({})
    dice = recorder.dice(ScriptedDice([6, 5, 2]))
    assert dice.roll() == (6, 5) and dice.roll_die() == 2
    assert [json.loads(line)["die"] for line in list(recorder.lines())[1:]] == [6, 5, 2]


HEADER = json.dumps({"trace": "tavli-board", "version": 1, "complete": True,
                     "settings": {key: {} for key in ("match", "house_rules", "channels", "sensors", "serial",
                                                      "button")}})


@pytest.mark.parametrize("lines, message", [
    ([], "empty: a trace starts with its header line"),
    (['{"trace": "other"}'], "line 1: not a tavli-board trace"),
    ([HEADER.replace('"version": 1', '"version": 7')], "line 1: trace version 7"),
    (['{"trace": "tavli-board", "version": 1, "settings": {}}'], "line 1: the header's settings lack match"),
    ([HEADER, "{oops"], "line 2: is not valid JSON"),
    ([HEADER, '{"t": "soon", "die": 3}'], "line 2: 't' must be a number"),
    ([HEADER, '{"t": 1, "die": 3, "rx": "00"}'], "line 2: a record has exactly one of"),
    ([HEADER, '{"t": 1, "rx": "0g"}'], "line 2: 'rx' must be bytes in hex"),
    ([HEADER, '{"t": 1, "die": 7}'], "line 2: 'die' must be 1..6"),
    ([HEADER, '{"t": 1, "button": "DiceTapped", "at": 1}'], "line 2: unknown button event 'DiceTapped'"),
    ([HEADER, '{"t": 1, "button": "DicePressed"}'], "line 2: a button record needs 'at'"),
    ([HEADER, '{"t": 2, "die": 1}', '{"t": 1, "die": 1}'], "line 3: t 1.0 is before the previous record's 2.0"),
])
def test_a_bad_trace_is_refused_with_its_line(lines, message):
    with pytest.raises(TraceError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        parse_trace(lines, "t.jsonl")


def test_the_command_names_the_bad_trace(tmp_path, capsys):
    (tmp_path / "bad.jsonl").write_text("{oops\n")
    assert main(["hil", "replay", str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl, line 1: is not valid JSON" in capsys.readouterr().err


# -- to-scenario ------------------------------------------------------------------------------------

LINK_FAULTS = ("drop_bytes", "corrupt_crc", "garbage", "reset", "unplug", "hang")


def test_a_recorded_game_becomes_a_scenario_that_passes(tmp_path, capsys):
    """The round trip: record a trace (a whole fevga game with link faults, stunts and the referee),
    convert it, run the scenario on the scenario rig: it passes."""
    path, _, figures = record_match(tmp_path, seed=14, variants=("fevga",), fault_rate=0.1, fault_kinds=LINK_FAULTS)
    assert figures.faults_injected > 0
    scenario = tmp_path / "from-trace.toml"
    assert main(["hil", "to-scenario", str(path), "-o", str(scenario), "--title", "a fevga game"]) == 0
    loaded = load_scenario(scenario)
    actions = {action.name for step in loaded.steps for action in step.actions}
    assert actions >= {"press", "slide", "lift", "place", "wait", "unplug", "replug"}
    assert loaded.dice == tuple(load_trace(path).dice)
    assert sum(bool(step.expect) for step in loaded.steps) > len(loaded.steps) / 3
    assert main(["hil", "run", str(scenario)]) == 0, capsys.readouterr().out


def test_to_scenario_writes_toml_to_standard_output(faulty_game, capsys):
    assert main(["hil", "to-scenario", str(faulty_game[0])]) == 0
    assert parse_scenario(capsys.readouterr().out, "out.toml").title == "from the trace trace.jsonl"


def reading(white: dict, black: dict, bar=(0, 0)) -> BoardReading:
    def side(points, on_bar):
        counts = [0] * 24
        for point, count in points.items():
            counts[point - 1] = count
        return SideReading(tuple(counts), on_bar, 0)
    return BoardReading(side(white, bar[0]), side(black, bar[1]))


def test_the_hands_behind_each_reading():
    hands = Hands(reading({1: 2, 12: 5}, {24: 2, 13: 5}))
    # A checker moved in one reading slid; one gone lifted; one come from the hand placed.
    assert hands.actions(reading({1: 1, 3: 1, 12: 5}, {24: 2, 13: 5})) == ["slide 1 3 white"]
    assert hands.actions(reading({3: 1, 12: 5}, {24: 2, 13: 5})) == ["lift 1 white"]
    assert hands.actions(reading({3: 1, 5: 1, 12: 5}, {24: 2, 13: 5})) == ["place 5 white"]
    # A hit: the opposing checker slides to its bar, the hitter comes down.
    assert hands.actions(reading({3: 1, 5: 1, 12: 5}, {24: 1, 13: 5}, bar=(0, 1))) == ["slide 24 bar black"]


def test_a_checker_from_nowhere_is_a_stuck_sensor_until_it_reads_true():
    start = reading({1: 2}, {24: 2})
    hands = Hands(start)
    assert hands.actions(reading({1: 2, 7: 1}, {24: 2})) == ["stick 7 1 0"]
    assert hands.actions(reading({1: 2, 7: 2}, {24: 2})) == ["stick 7 2 0"]
    assert hands.actions(start) == ["unstick 7"]


# -- the service's trace --------------------------------------------------------------------------


def test_the_service_saves_its_trace_on_sigusr1_and_it_replays(tmp_path):
    """`tavli-board run` on the simulated board (the MCU on a pty, real threads): SIGUSR1 writes the
    ring into raw_frames_dir; the trace replays to the board being read and the game being set up."""
    config = tmp_path / "config.toml"
    config.write_text(f'hardware = "simulated"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                      f'[logging]\nfile = "{tmp_path / "tavli-board.log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n')
    child = subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
                             env={key: value for key, value in os.environ.items() if key != "NOTIFY_SOCKET"})
    log = tmp_path / "tavli-board.log"
    try:
        deadline = time.monotonic() + 30
        # Ready (logged once the link is up) comes after the signal handlers are set.
        while not (log.exists() and "ready" in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
        traces = []
        while not traces and time.monotonic() < deadline:
            time.sleep(0.5)
            child.send_signal(signal.SIGUSR1)
            time.sleep(0.3)
            traces = sorted((tmp_path / "raw").glob("trace-*.jsonl"))
    finally:
        child.terminate()
        assert child.wait(10) == 0
    assert traces, "no trace was saved"
    trace = load_trace(traces[-1])
    assert trace.header["complete"] and not trace.header["resumed"]
    assert {"open", "rx", "tx"} <= {record.kind for record in trace.records}
    lines = replay(trace).lines
    assert any("> LinkUp" in line for line in lines)
    assert any(" opening_roll " in line for line in lines), lines   # the simulated board starts set up


# -- invariants ---------------------------------------------------------------------------------------

HANDLING = st.lists(st.tuples(st.sampled_from(["lift", "place", "slide"]), st.sampled_from(["white", "black"]),
                              st.integers(1, 24), st.integers(1, 24)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(HANDLING, st.sets(st.integers(0, 29), max_size=10))
def test_the_hands_found_for_each_reading_make_the_board_read_so(handling, read_after):
    """Whatever hands do between two readings, the actions found for the second reading, done on a
    board that read as the first, make it read as the second (no sensor is stuck here)."""
    start = laid_out(Position.start("portes"), Orientation.AS_WIRED)
    hands, truth, replayed = Hands(start), SimBoard(start), SimBoard(start)
    for index, (kind, colour, origin, destination) in enumerate(handling):
        try:
            if kind == "lift":
                truth.lift(origin, colour)
            elif kind == "place":
                truth.place(destination, colour)
            else:
                truth.slide(origin, destination, colour)
        except BoardError:
            continue   # nothing there, or nothing in the hand: hands cannot do that
        if index in read_after or index == len(handling) - 1:
            for action in hands.actions(truth.reading()):
                name, *args = action.split()
                if name == "slide":
                    replayed.slide(int(args[0]) if args[0].isdigit() else args[0],
                                   int(args[1]) if args[1].isdigit() else args[1], args[2])
                else:
                    getattr(replayed, name)(int(args[0]) if args[0].isdigit() else args[0], args[1])
            assert replayed.reading() == truth.reading()
            assert hands.stuck == {}


RECORDS = st.lists(st.one_of(
    st.tuples(st.just("rx"), st.binary(min_size=1, max_size=40)),
    st.tuples(st.just("tx"), st.binary(min_size=1, max_size=40)),
    st.tuples(st.just("die"), st.integers(1, 6)),
    st.tuples(st.just("lost"), st.text(max_size=30)),
    st.tuples(st.just("open"), st.text(min_size=1, max_size=30)),
    st.tuples(st.just("button"), st.sampled_from(["DicePressed", "DiceHeld"]))), max_size=40)


@settings(max_examples=60, deadline=None)
@given(RECORDS, st.lists(st.floats(0, 5), min_size=40, max_size=40))
def test_a_trace_reads_back_as_recorded(records, gaps):
    now = [0.0]
    recorder = TraceRecorder(settings_of(soak_config()), clock=lambda: now[0])
    for (kind, value), gap in zip(records, gaps):
        now[0] += gap
        if kind == "button":
            recorder.posting(lambda event: None)(BUTTON_EVENTS[value](now[0]))
        else:
            recorder.record(kind, value)
    trace = parse_trace(list(recorder.lines()))
    assert [(record.kind, record.value) for record in trace.records] == records
    assert trace.dice == [value for kind, value in records if kind == "die"]
