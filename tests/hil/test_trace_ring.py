"""The trace ring after its window: it keeps a checkpoint to start from, and such a trace replays."""
from __future__ import annotations

import json

import pytest

from firmware_host.cli import main
from firmware_host.controller import machine as m
from firmware_host.hil.replay import Shown, replay
from firmware_host.hil.soak import Figures, SoakMatch, SoakPlayers, match_rules_for, soak_config
from firmware_host.service.trace import TraceRecorder, load_trace
from firmware_host.journal import JournalReader

WINDOW_S = 20.0      # of virtual time: a game takes minutes, so the ring drops its start


@pytest.fixture(scope="module")
def cut_game(tmp_path_factory):
    """A whole portes game recorded by a ring of `WINDOW_S`: the saved trace, what the live run showed
    after every event (with its time) and the match's folder."""
    folder = tmp_path_factory.mktemp("ring")
    shown = []
    match = SoakMatch(soak_config(), match_rules_for(0, ("portes",)), 21, 0.0, Figures(), folder, trace=True,
                      observers=[lambda view, event: shown.append(
                          (match.clock.monotonic(), type(event).__name__, Shown.of(view)))])
    match.trace.window_s = WINDOW_S
    try:
        SoakPlayers(match, 21).play_games(1)
    finally:
        match.close()
    return match.trace.save(folder / "trace.jsonl"), shown, folder


def test_the_ring_drops_the_start_but_keeps_a_checkpoint_with_the_match_and_the_link(cut_game):
    trace = load_trace(cut_game[0])
    checkpoint = trace.checkpoint
    assert trace.header["complete"] is False
    assert checkpoint is not None and trace.records[-1].t - trace.records[0].t <= 2 * WINDOW_S
    assert checkpoint.journal[0].kind == "match_started" and checkpoint.journal[-1].kind == "roll"
    assert checkpoint.port is not None and checkpoint.hello is not None


def test_every_checkpoint_holds_exactly_the_journals_records_of_the_match_up_to_it(cut_game):
    """The recorder gathers the match's records as they are written: they must be the journal's own."""
    path, _, folder = cut_game
    reader = JournalReader.open(folder / "journal.sqlite3")
    checkpoints = [record.value for record in load_trace(path).records if record.kind == "checkpoint"]
    assert len(checkpoints) > 3
    for checkpoint in checkpoints:
        last = checkpoint.journal[-1]
        on_disk = [event for event in reader.match_events(last.match_id) if event.seq <= last.seq]
        assert [(event.seq, event.kind.value, dict(event.data)) for event in on_disk] == \
               [(event.seq, event.kind, dict(event.data)) for event in checkpoint.journal]


def test_a_cut_trace_replays_to_what_the_live_run_showed_once_the_match_is_resumed(cut_game):
    path, shown, _ = cut_game
    result = replay(load_trace(path))
    assert result.errors == []
    assert result.moments[0].shown.view.state == m.RESUMING
    # The resumed controller reads the board first; from then on it is the live run, event for event.
    resumed_at = next(moment.t for moment in result.moments if moment.shown.view.state != m.RESUMING)
    live = [(name, view) for t, name, view in shown if t > resumed_at]
    replayed = [(type(moment.event).__name__, moment.shown) for moment in result.moments if moment.t > resumed_at]
    assert len(live) > 20 and replayed[:len(live)] == live
    assert live[-1][1].view.state == "game_over"


def test_a_trace_of_a_service_that_resumed_a_match_replays_to_what_it_showed(cut_game):
    """The recorder checkpoints the journal at the start: the match the service took up is in the trace."""
    folder = cut_game[2]                     # its journal: the first game is over, the match goes on
    shown = []
    match = SoakMatch(soak_config(), match_rules_for(0, ("portes",)), 22, 0.0, Figures(), folder, trace=True,
                      resume=True, observers=[lambda view, event: shown.append(
                          (type(event).__name__, Shown.of(view)))])
    try:
        SoakPlayers(match, 22).play_games(1)
    finally:
        match.close()
    trace = load_trace(match.trace.save(folder / "resumed.jsonl"))
    assert trace.header["complete"] is True and trace.checkpoint.journal[0].kind == "match_started"
    result = replay(trace)
    replayed = [(type(moment.event).__name__, moment.shown) for moment in result.moments]
    assert result.errors == []
    assert shown[0][1].scene.score.black == 2 and replayed[:len(shown)] == shown   # the match went on
    assert shown[-1][1].view.state == "game_over"


def test_to_scenario_refuses_a_trace_that_starts_in_a_match_under_way(cut_game, capsys):
    assert main(["hil", "to-scenario", str(cut_game[0])]) == 2
    assert "starts in a match under way" in capsys.readouterr().err


def test_the_ring_trims_back_to_the_newest_checkpoint_before_the_window():
    now = [0.0]
    recorder = TraceRecorder({}, window_s=10.0, clock=lambda: now[0])
    for second in range(40):
        now[0] = float(second)
        if second % 15 == 0:
            recorder.checkpoint([])
        recorder.record("die", 1 + second % 6)
    records = [json.loads(line) for line in list(recorder.lines())[1:]]
    assert "checkpoint" in records[0] and records[0]["t"] == 15.0     # 30 is inside the window: 15 stays
    assert [record["t"] for record in records if "checkpoint" in record] == [15.0, 30.0]
