"""bootstrap.py runs a command in the caller's folder, and the tests from the project's."""
import json
import subprocess
import sys
from pathlib import Path

from firmware_host.rules import Position

BOOTSTRAP = Path(__file__).resolve().parents[1] / "bootstrap.py"


def test_a_command_reads_a_path_relative_to_the_callers_folder(tmp_path):
    (tmp_path / "position.json").write_text(json.dumps(Position.start("fevga").to_json()))
    done = subprocess.run([sys.executable, str(BOOTSTRAP), "tavli-board", "show", "position.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "fevga" in done.stdout


def test_the_tests_run_from_the_project_folder(tmp_path):
    done = subprocess.run([sys.executable, str(BOOTSTRAP), "test", "--collect-only", "-q", "tests/test_bootstrap.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_the_tests_run_from_the_project_folder" in done.stdout
