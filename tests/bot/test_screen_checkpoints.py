"""bench/screen_checkpoints.py, which picks the network to ship: it reports each network's series
against each opponent asked for and names each file that is no network, without stopping."""
import json
import subprocess
import sys
from pathlib import Path

from firmware_host.commands.bot import SHIPPED_WEIGHTS

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "screen_checkpoints.py"


def test_screen_reports_each_opponent_and_names_a_file_that_is_no_network_once(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    report = tmp_path / "screen.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "fevga", str(SHIPPED_WEIGHTS / "fevga.npz"), str(junk),
                           "--games", "4", "--jobs", "1", "--opponent", "random", "--opponent", "heuristic",
                           "--json", str(report)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(str(junk)) and "not a network" in lines[0]
    assert lines[1].startswith(str(SHIPPED_WEIGHTS / "fevga.npz")) and "random" in lines[1] and "heuristic" in lines[1]
    assert len(lines) == 2
    results = json.loads(report.read_text())["results"]
    played = [r for r in results if "error" not in r]
    assert sorted(r["opponent"] for r in played) == ["heuristic", "random"]
    assert all(r["games"] == 4 and 0 <= r["win_rate"] <= 1 for r in played)


def test_screen_refuses_gnubg_for_a_game_other_than_portes():
    done = subprocess.run([sys.executable, str(SCRIPT), "fevga", "x.npz", "--opponent", "gnubg"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "gnubg plays Portes only" in done.stderr
