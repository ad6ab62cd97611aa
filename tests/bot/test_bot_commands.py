"""The commands `tavli-board hint` (ranked plays, one request or JSON lines) and `tavli-board
train` (self-play with checkpoints, a training record, and --resume)."""
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from firmware_host.cli import main
from firmware_host.bot.network import Network
from firmware_host.bot.training import Settings, Trainer
from firmware_host.commands import bot as bot_commands
from firmware_host.commands.bot import SHIPPED_WEIGHTS
from firmware_host.rules import Position, Rules, Turn

START = Position.start("portes")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stdin(monkeypatch):
    def feed(text):
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    return feed


def test_hint_ranks_every_legal_play_best_first(capsys, tmp_path):
    path = tmp_path / "start.json"
    path.write_text(START.to_json_text())
    code, out, err = run(capsys, "hint", "--position", str(path), "--dice", "6", "5")
    assert code == 0 and err == ""
    plays = json.loads(out)["plays"]
    legal = {play.position.to_json_text() for play in Turn(START, (6, 5)).plays()}
    assert {json.dumps(p["position"], sort_keys=True) for p in plays} == legal
    assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)
    assert all(0 <= p["chances"]["win"] <= 1 and p["moves"] for p in plays)


def test_hint_takes_house_rules_and_reads_stdin(capsys, stdin):
    stdin(json.dumps(Position.start("plakoto").to_json()))
    code, out, _ = run(capsys, "hint", "--dice", "3", "3", "--rule", "mother_loss_points=3")
    assert code == 0 and json.loads(out)["plays"]


@pytest.mark.parametrize("argv, message", [
    (["hint", "--dice", "7", "1"], "a die shows 1 to 6"),
    (["hint"], "--dice A B is required"),
    (["hint", "--dice", "6", "5", "--rule", "koks=true"], "does not apply to portes"),
])
def test_hint_refuses_bad_input_in_one_line(capsys, stdin, argv, message):
    stdin(START.to_json_text())
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_hint_jsonl_answers_every_line(capsys, stdin):
    good = json.dumps({"position": START.to_json(), "dice": [3, 1]})
    stdin("\n".join([good, "{not json", json.dumps({"position": START.to_json()}),
                     json.dumps({"position": START.to_json(), "dice": [3, 1], "rules": {"nope": 1}}), good]) + "\n")
    code, out, _ = run(capsys, "hint", "--jsonl")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 5
    assert answers[0] == answers[4] and answers[0]["plays"][0]["moves"]
    assert "line 2: is not valid JSON" in answers[1]["error"]
    assert "needs dice" in answers[2]["error"]
    assert "unknown rule" in answers[3]["error"]


def test_train_writes_weights_and_a_record_and_resumes(capsys, tmp_path):
    out = tmp_path / "fevga"
    small = ["--eval-games", "2", "--eval-every", "2", "--checkpoint-every", "2", "--out", str(out)]
    code, text, progress = run(capsys, "train", "fevga", "--games", "2", "--seed", "9", "--hidden", "4", *small)
    assert code == 0 and "2/2 games" in progress
    record = json.loads((out / "fevga.json").read_text())
    assert record["games"] == 2 and record["seed"] == 9 and record["cpu_seconds"] > 0
    assert [e["games"] for e in record["evaluations"]] == [2]
    assert set(record["evaluations"][0]) == {"games", "random", "heuristic"}
    assert (out / "fevga.npz").stat().st_size < 20_000
    code, _, _ = run(capsys, "train", "fevga", "--games", "4", "--resume", *small)
    record = json.loads((out / "fevga.json").read_text())
    assert code == 0 and record["games"] == 4 and [e["games"] for e in record["evaluations"]] == [2, 4]
    assert "--resume --games 4" in record["command"]
    (out / "fevga.npz").unlink()
    code, _, _ = run(capsys, "train", "fevga", "--games", "4", "--resume", *small)  # nothing left to play
    again = json.loads((out / "fevga.json").read_text())
    assert code == 0 and again["games"] == 4 and again["command"] == record["command"]
    assert (out / "fevga.npz").exists()


def test_train_resume_needs_a_checkpoint_of_the_same_game(capsys, tmp_path):
    code, _, err = run(capsys, "train", "tapa", "--resume", "--out", str(tmp_path))
    assert code == 2 and "no checkpoint to resume" in err


def test_train_resume_refuses_fewer_games_than_the_checkpoint_has_had(capsys, tmp_path):
    small = ["--eval-games", "2", "--checkpoint-every", "2", "--out", str(tmp_path)]
    run(capsys, "train", "gulbara", "--games", "4", "--hidden", "4", *small)
    before = (tmp_path / "gulbara.json").read_text()
    code, out, err = run(capsys, "train", "gulbara", "--games", "2", "--resume", *small)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "has had 4 games; give --games 4 to write its network, or more to train on" in err
    assert (tmp_path / "gulbara.json").read_text() == before


@pytest.mark.parametrize("option, message", [
    (["--heuristic-share", "1.5"], "--heuristic-share is 1.5; allowed: from 0 to 1"),
    (["--heuristic-share", "-0.1"], "--heuristic-share is -0.1; allowed: from 0 to 1"),
    (["--alpha", "0"], "--alpha is 0.0; allowed: more than 0 and at most 1"),
    (["--games", "0"], "--games is 0; allowed: at least 1"),
    (["--eval-games", "1"], "--eval-games is 1; allowed: at least 2"),
    (["--workers", "0"], "--workers is 0; allowed: at least 1"),
    (["--workers", "2", "--sync-every", "0"], "--sync-every is 0; allowed: at least 1")])
def test_train_refuses_a_setting_out_of_range_by_name_in_one_line(capsys, tmp_path, option, message):
    code, out, err = run(capsys, "train", "fevga", "--out", str(tmp_path), *option)
    assert code == 2 and out == "" and message in err
    assert len(err.strip().splitlines()) == 1 and not any(tmp_path.iterdir())


def test_train_from_a_network_goes_on_with_new_settings_and_carries_its_record(capsys, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    small = ["--eval-games", "2", "--eval-every", "2", "--checkpoint-every", "2"]
    run(capsys, "train", "fevga", "--games", "2", "--seed", "9", "--hidden", "4", "--out", str(first), *small)
    code, _, err = run(capsys, "train", "fevga", "--from", str(first / "fevga.npz"), "--games", "4",
                       "--alpha", "0.02", "--heuristic-share", "0.5", "--seed", "3", "--out", str(second), *small)
    record = json.loads((second / "fevga.json").read_text())
    assert code == 0 and record["games"] == 4 and [e["games"] for e in record["evaluations"]] == [2, 4]
    assert record["settings"] == {"hidden": 4, "alpha": 0.02, "heuristic_share": 0.5, "lam": 0.7}
    assert record["command"].endswith("--seed 9 --hidden 4; then --from fevga.npz --games 4 --seed 3 --alpha 0.02 "
                                      "--heuristic-share 0.5")
    assert (second / "fevga.npz").read_bytes() != (first / "fevga.npz").read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["--from", "{missing}"], "not a network with its training record beside it"),
    (["--from", "{shipped}/fevga.npz", "--games", "9000"], "a network of 210 inputs; tapa takes 262"),
    (["--from", "{shipped}/tapa.npz", "--games", "10"], "has had 30000 games already; give --games more than 30000"),
    (["--from", "{shipped}/tapa.npz", "--resume"], "--resume and --from exclude each other"),
    (["--from", "{shipped}/tapa.npz", "--hidden", "20", "--games", "40000"], "--hidden 20 is fewer than its 40 hidden units"),
    (["--resume", "--hidden", "80"], "--resume keeps the checkpoint's hidden units"),
])
def test_train_from_refuses_what_it_cannot_go_on_from_in_one_line(capsys, tmp_path, argv, message):
    shipped = SHIPPED_WEIGHTS
    argv = [a.format(missing=tmp_path / "none.npz", shipped=shipped) for a in argv]
    code, out, err = run(capsys, "train", "tapa", "--out", str(tmp_path / "out"), *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_train_keeps_every_checkpoint_when_asked_and_goes_on_from_one(capsys, tmp_path):
    out, on = tmp_path / "kept", tmp_path / "on"
    small = ["--eval-games", "2", "--checkpoint-every", "2", "--hidden", "4"]
    code, _, _ = run(capsys, "train", "gulbara", "--games", "4", "--keep-checkpoints", "--out", str(out), *small)
    assert code == 0
    assert {p.name for p in out.iterdir()} >= {"checkpoint-2.npz", "checkpoint-2.json", "checkpoint-4.npz",
                                               "checkpoint-4.json", "checkpoint.npz", "gulbara.npz"}
    kept = json.loads((out / "checkpoint-2.json").read_text())
    assert kept["games"] == 2 and kept["command"] == "tavli-board train gulbara --games 2 --seed 1 --hidden 4"
    assert (out / "checkpoint-4.npz").read_bytes() == (out / "checkpoint.npz").read_bytes()
    code, _, _ = run(capsys, "train", "gulbara", "--from", str(out / "checkpoint-2.npz"), "--games", "3",
                     "--eval-games", "2", "--out", str(on))
    assert code == 0 and json.loads((on / "gulbara.json").read_text())["games"] == 3


def test_train_on_workers_makes_each_round_the_mean_of_the_workers_networks(capsys, tmp_path):
    out = tmp_path / "workers"
    code, _, progress = run(capsys, "train", "fevga", "--games", "7", "--seed", "4", "--hidden", "4",
                            "--workers", "2", "--sync-every", "2", "--eval-games", "2", "--out", str(out))
    record = json.loads((out / "fevga.json").read_text())
    assert code == 0 and "7/7 games" in progress and record["games"] == 7
    assert record["command"] == "tavli-board train fevga --games 7 --seed 4 --workers 2 --sync-every 2 --hidden 4"
    # Round one: games 1-2 and 3-4 side by side; round two, the last three games split 1 and 2.
    rules = Rules.for_variant("fevga")
    network = Trainer.fresh(rules, np.random.default_rng(4), Settings(hidden=4)).network
    dice = random.Random(4)   # each worker's dice seeded from the run's, worker by worker
    for shares in ([(0, 2), (2, 4)], [(4, 5), (5, 7)]):
        ends = []
        for first, last in shares:
            worker = Trainer(rules, Network.from_bytes(network.to_bytes()), Settings(hidden=4))
            worker.train(last, random.Random(dice.getrandbits(64)), first)
            ends.append(worker.network)
        network = Network.mean(ends)
    written = Network.from_bytes((out / "checkpoint.npz").read_bytes())
    assert all(np.array_equal(a, b) for a, b in zip(written.parameters, network.parameters))


def test_train_on_workers_resumed_at_a_checkpoint_ends_where_it_would_have_without_a_stop(capsys, tmp_path):
    options = ["--seed", "6", "--hidden", "4", "--workers", "2", "--sync-every", "1", "--eval-games", "2",
               "--checkpoint-every", "2"]
    run(capsys, "train", "gulbara", "--games", "6", "--out", str(tmp_path / "whole"), *options)
    run(capsys, "train", "gulbara", "--games", "4", "--out", str(tmp_path / "stopped"), *options)
    code, _, _ = run(capsys, "train", "gulbara", "--games", "6", "--resume", "--out", str(tmp_path / "stopped"),
                     *options[4:])
    resumed = json.loads((tmp_path / "stopped" / "gulbara.json").read_text())
    assert code == 0 and resumed["command"].endswith("; then --resume --games 6 --workers 2 --sync-every 1")
    assert (tmp_path / "stopped" / "checkpoint.npz").read_bytes() == (tmp_path / "whole" / "checkpoint.npz").read_bytes()


def test_ctrl_c_stops_training_in_one_line_that_says_where_resume_goes_on(capsys, tmp_path, monkeypatch):
    real_self_play = Trainer.self_play
    games = []

    def interrupted_on_the_fifth(self, *args, **kwargs):
        games.append(1)
        if len(games) == 5:
            raise KeyboardInterrupt
        return real_self_play(self, *args, **kwargs)

    monkeypatch.setattr(Trainer, "self_play", interrupted_on_the_fifth)
    small = ["--eval-games", "2", "--checkpoint-every", "2", "--out", str(tmp_path)]
    code, out, err = run(capsys, "train", "fevga", "--games", "9", "--hidden", "4", *small)
    assert code == 130 and out == "" and err.strip().splitlines()[-1] == (
        f"fevga: stopped; its last checkpoint (4 games) is in {tmp_path}: --resume goes on from it")
    assert "Traceback" not in err and not (tmp_path / "fevga.npz").exists()
    games.clear()
    games.extend([1] * 4)   # resumed, and stopped again in its first game
    code, _, err = run(capsys, "train", "fevga", "--games", "9", "--resume", *small)
    assert code == 130 and err.strip().splitlines()[-1] == (
        f"fevga: stopped; its last checkpoint (4 games) is in {tmp_path}: --resume goes on from it")
    monkeypatch.setattr(Trainer, "self_play", real_self_play)
    code, _, _ = run(capsys, "train", "fevga", "--games", "9", "--resume", *small)
    record = json.loads((tmp_path / "fevga.json").read_text())
    assert code == 0 and record["games"] == 9
    assert record["command"] == "tavli-board train fevga --games 4 --seed 1 --hidden 4; then --resume --games 9"


def test_ctrl_c_while_a_checkpoint_is_written_waits_until_its_network_and_record_are_both_written(
        capsys, tmp_path, monkeypatch):
    real_write = bot_commands._write

    def interrupted_after_the_second_network(path, data):
        real_write(path, data)
        if path.name == "checkpoint.npz" and json.loads((tmp_path / "checkpoint.json").read_text())["games"] == 2:
            os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C between the network and its record

    run(capsys, "train", "fevga", "--games", "2", "--hidden", "4", "--eval-games", "2", "--checkpoint-every", "2",
        "--out", str(tmp_path))
    monkeypatch.setattr(bot_commands, "_write", interrupted_after_the_second_network)
    code, _, err = run(capsys, "train", "fevga", "--games", "9", "--resume", "--eval-games", "2",
                       "--checkpoint-every", "2", "--out", str(tmp_path))
    assert code == 130 and err.strip().endswith(f"its last checkpoint (4 games) is in {tmp_path}: --resume goes on from it")
    assert json.loads((tmp_path / "checkpoint.json").read_text())["games"] == 4


def test_ctrl_c_before_the_first_checkpoint_says_nothing_was_written(capsys, tmp_path, monkeypatch):
    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Trainer, "self_play", interrupted)
    code, _, err = run(capsys, "train", "fevga", "--games", "9", "--hidden", "4", "--out", str(tmp_path / "out"))
    assert code == 130 and err.strip() == "fevga: stopped before its first checkpoint; nothing was written"
    assert not any((tmp_path / "out").iterdir())


def _interrupted_training(tmp_path, ready) -> tuple[int, str]:
    """A 2-worker `train` run in a process group of its own, sent SIGINT (as a terminal sends Ctrl-C
    to the whole group) once `ready(pid)`: its exit status and stderr."""
    command = [sys.executable, "-m", "firmware_host", "train", "gulbara", "--games", "100000", "--hidden", "4",
               "--workers", "2", "--sync-every", "1", "--checkpoint-every", "2", "--out", str(tmp_path)]
    # Ctrl-C as at a terminal, even where these tests run with it ignored (a background job's lot).
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not ready(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:   # a run that did not stop leaves nothing behind
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    assert out == "" and "Traceback" not in err, err
    return child.returncode, err.strip().splitlines()[-1]


def test_ctrl_c_at_a_terminal_stops_the_workers_without_a_traceback(tmp_path):
    code, last = _interrupted_training(tmp_path, lambda pid: (tmp_path / "checkpoint.json").exists())
    assert code == 130 and last.startswith("gulbara: stopped; its last checkpoint (")
    assert last.endswith(f"is in {tmp_path}: --resume goes on from it")


def test_ctrl_c_while_the_workers_start_stops_them_without_a_traceback(tmp_path):
    """Sent while the workers still import (they take about a second to start): they ignore it
    from their start, not only once the pool's code runs in them."""
    seen = []

    def workers_importing(pid):
        children = Path(f"/proc/{pid}/task/{pid}/children")
        if not seen and children.exists() and len(children.read_text().split()) >= 2:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() > seen[0] + 0.2

    code, last = _interrupted_training(tmp_path, workers_importing)
    assert code == 130 and last.startswith("gulbara: stopped")


def trained(capsys, out, *options):
    """A tiny fevga network trained for two games into `out`: its .npz path."""
    code, _, _ = run(capsys, "train", "fevga", "--games", "2", "--hidden", "4", "--eval-games", "2",
                     "--out", str(out), *options)
    assert code == 0
    return out / "fevga.npz"


def test_average_writes_the_mean_of_the_networks_with_every_record_and_can_be_trained_on(capsys, tmp_path):
    first, second = trained(capsys, tmp_path / "a", "--seed", "1"), trained(capsys, tmp_path / "b", "--seed", "2")
    code, out, err = run(capsys, "average", "fevga", str(first), str(second), "--eval-games", "2",
                         "--out", str(tmp_path / "mean"))
    assert code == 0 and "the mean of 2 networks" in out
    weights = [Network.from_bytes(path.read_bytes()) for path in (first, second, tmp_path / "mean" / "fevga.npz")]
    for a, b, mean in zip(*(network.parameters for network in weights)):
        assert np.allclose(mean, (a + b) / 2, atol=1e-3) and not np.allclose(a, b)  # float16 on disk
    record = json.loads((tmp_path / "mean" / "fevga.json").read_text())
    assert [source["command"] for source in record["averaged"]] == [
        "tavli-board train fevga --games 2 --seed 1 --hidden 4", "tavli-board train fevga --games 2 --seed 2 --hidden 4"]
    assert record["games"] == 2 and record["settings"] == {"hidden": 4}
    assert record["cpu_seconds"] == max(source["cpu_seconds"] for source in record["averaged"]) > 0
    assert set(record["evaluations"][0]) == {"games", "random", "heuristic"}
    code, _, _ = run(capsys, "train", "fevga", "--from", str(tmp_path / "mean" / "fevga.npz"), "--games", "3",
                     "--eval-games", "2", "--out", str(tmp_path / "on"))
    on = json.loads((tmp_path / "on" / "fevga.json").read_text())
    assert code == 0 and on["games"] == 3 and on["command"].startswith("tavli-board average fevga of: (")


@pytest.mark.parametrize("others, message", [
    ([], "average takes two networks or more"),
    (["{wider}"], "different hidden units (4, 5)"),
    (["{shipped}/tapa.npz"], "a network of 262 inputs; fevga takes 210"),
    (["{missing}"], "none.npz: not a network with its training record beside it"),
    (["{network}", "--eval-games", "1"], "--eval-games is 1; allowed: at least 2"),
])
def test_average_refuses_networks_that_do_not_average_in_one_line(capsys, tmp_path, others, message):
    network = trained(capsys, tmp_path / "a")
    wider = tmp_path / "wide" / "fevga.npz"
    if "{wider}" in others:
        trained(capsys, tmp_path / "wide", "--hidden", "5")
    others = [o.format(wider=wider, shipped=SHIPPED_WEIGHTS, missing=tmp_path / "none.npz", network=network)
              for o in others]
    code, out, err = run(capsys, "average", "fevga", str(network), *others, "--out", str(tmp_path / "mean"))
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "mean").exists()


def test_train_and_average_stop_in_one_line_where_they_cannot_make_their_folder(capsys, tmp_path):
    network = trained(capsys, tmp_path / "a")
    (tmp_path / "a-file").write_text("")
    for argv in (["train", "fevga", "--games", "2"], ["average", "fevga", str(network), str(network)]):
        code, out, err = run(capsys, *argv, "--eval-games", "2", "--out", str(tmp_path / "a-file" / "out"))
        assert code == 2 and out == "" and "cannot make the folder" in err and "Not a directory" in err
        assert len(err.strip().splitlines()) == 1


def test_a_failing_write_stops_training_in_one_line_and_leaves_the_last_checkpoint_whole(capsys, tmp_path):
    trained(capsys, tmp_path / "a")
    blocked = tmp_path / "a" / "checkpoint-3.npz"
    blocked.mkdir()   # a write there fails, as on a full or failing card
    code, _, err = run(capsys, "train", "fevga", "--resume", "--games", "4", "--checkpoint-every", "1",
                       "--keep-checkpoints", "--eval-games", "2", "--out", str(tmp_path / "a"))
    assert code == 2 and f"cannot write {blocked}" in err and len(err.strip().splitlines()) == 1
    assert json.loads((tmp_path / "a" / "checkpoint.json").read_text())["games"] == 3
    assert not list((tmp_path / "a").glob("*.part"))
    blocked.rmdir()
    code, _, _ = run(capsys, "train", "fevga", "--resume", "--games", "4", "--eval-games", "2",
                     "--out", str(tmp_path / "a"))
    assert code == 0 and json.loads((tmp_path / "a" / "fevga.json").read_text())["games"] == 4


@pytest.mark.parametrize("damage, says", [
    (lambda folder: (folder / "checkpoint.npz").write_bytes(b"PK\x03\x04 cut short"), "a damaged .npz file"),
    (lambda folder: _edit_record(folder / "checkpoint.json", lambda record: record.pop("command")),
     "no 'command' in it"),
    (lambda folder: _edit_record(folder / "checkpoint.json", lambda record: record.update(cpu_seconds="a while")),
     "could not convert string to float"),
    (lambda folder: _edit_record(folder / "checkpoint.json", lambda record: record.update(evaluations={})),
     "its evaluations are not a list"),
    (lambda folder: (folder / "checkpoint.json").write_text("[]"), "not a JSON object"),
], ids=["weights cut short", "no command", "cpu seconds not a number", "evaluations not a list", "not an object"])
def test_train_resume_says_a_damaged_checkpoint_is_damaged(capsys, tmp_path, damage, says):
    trained(capsys, tmp_path / "a")
    damage(tmp_path / "a")
    code, out, err = run(capsys, "train", "fevga", "--resume", "--games", "4", "--out", str(tmp_path / "a"))
    assert code == 2 and out == "" and f"the checkpoint in {tmp_path / 'a'} is damaged" in err and says in err
    assert len(err.strip().splitlines()) == 1


def _edit_record(path, change):
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def test_train_from_with_more_hidden_units_trains_the_network_widened_and_records_it(capsys, tmp_path):
    narrow = trained(capsys, tmp_path / "narrow", "--seed", "5")
    code, _, _ = run(capsys, "train", "fevga", "--from", str(narrow), "--hidden", "6", "--games", "3", "--seed", "8",
                     "--eval-games", "2", "--out", str(tmp_path / "wide"))
    record = json.loads((tmp_path / "wide" / "fevga.json").read_text())
    wide = Network.from_bytes((tmp_path / "wide" / "fevga.npz").read_bytes())
    assert code == 0 and wide.hidden_weights.shape[0] == 6 and record["settings"]["hidden"] == 6
    assert record["command"].endswith("; then --from fevga.npz --games 3 --seed 8 --hidden 6")


def test_train_from_refuses_a_record_whose_evaluations_are_not_a_list_in_one_line(capsys, tmp_path):
    source = tmp_path / "tapa.npz"
    source.write_bytes((SHIPPED_WEIGHTS / "tapa.npz").read_bytes())
    record = json.loads((SHIPPED_WEIGHTS / "tapa.json").read_text())
    source.with_suffix(".json").write_text(json.dumps({**record, "evaluations": "none"}))
    code, out, err = run(capsys, "train", "tapa", "--from", str(source), "--games", "40000",
                         "--out", str(tmp_path / "out"))
    assert code == 2 and out == "" and "its evaluations are not a list" in err and len(err.strip().splitlines()) == 1


def test_train_from_a_record_without_evaluations_trains_on_and_starts_them(capsys, tmp_path):
    source = trained(capsys, tmp_path / "first", "--seed", "5")
    record = json.loads(source.with_suffix(".json").read_text())
    del record["evaluations"]
    source.with_suffix(".json").write_text(json.dumps(record))
    code, _, err = run(capsys, "train", "fevga", "--from", str(source), "--games", "3", "--eval-games", "2",
                       "--out", str(tmp_path / "second"))
    assert code == 0, err
    evaluations = json.loads((tmp_path / "second" / "fevga.json").read_text())["evaluations"]
    assert [evaluation["games"] for evaluation in evaluations] == [3]
