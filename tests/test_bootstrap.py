"""bootstrap.py runs a command in the caller's folder, and the tests from the project's; it installs
again when what the install is built from changes."""
import ast
import json
import runpy
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


def test_a_change_to_any_compiled_source_installs_again():
    """Every C source setup.py compiles is one of the inputs whose change rebuilds the environment (the
    bot's inputs in C were once left out: an edited _encode.c ran its old build)."""
    setup = ast.parse((BOOTSTRAP.parent / "setup.py").read_text())
    compiled = {node.value for node in ast.walk(setup) if isinstance(node, ast.Constant)
                and isinstance(node.value, str) and node.value.endswith(".c")}
    assert len(compiled) >= 2
    assert compiled <= set(runpy.run_path(str(BOOTSTRAP))["BUILD_INPUTS"])
