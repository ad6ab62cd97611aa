"""bootstrap.py as a person meets it: the first install says what it does while pip builds, and Ctrl-C
(at the install or in the command it runs) is one line and exit 130, never a traceback (issues 29, 30).
bootstrap is driven in a child process with its pip or its command replaced, so nothing is installed."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE_PIP = """#!{python}
import sys, time
# As pip writes to a pipe (its spinner's lines, indented under the package they are for).
for line, pause in [("Obtaining file:///project", 0.1), ("Collecting starlette>=0.37 (from tavli-board==0.1)", 0.1),
                    ("  Downloading starlette-1.0-py3-none-any.whl (70 kB)", 0.1),
                    ("Building wheels for collected packages: tavli-board", 0.1),
                    ("  Building editable for tavli-board (pyproject.toml): started", {build_s}),
                    ("  Building editable for tavli-board (pyproject.toml): finished with status 'done'", 0.1),
                    ("Installing collected packages: starlette, tavli-board", 0.1),
                    ("Successfully installed starlette-1.0 tavli-board-0.1", 0)]:
    print(line, flush=True)
    time.sleep(pause)
"""


def driver(tmp_path, python: str, call: str, heartbeat_s: float = 0.3) -> list[str]:
    """A child that runs `call` (of bootstrap's functions) with its environment in `tmp_path` and
    `python` as its Python."""
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(ROOT)!r})
        import bootstrap
        bootstrap.VENV = Path({str(tmp_path)!r})
        bootstrap.PYTHON, bootstrap.STAMP = Path({python!r}), Path({str(tmp_path / 'stamp')!r})
        bootstrap.HEARTBEAT_S = {heartbeat_s}
        sys.exit({call})
    """)
    return [sys.executable, "-c", code]


def fake_pip(tmp_path, build_s: float) -> str:
    path = tmp_path / "python"
    path.write_text(FAKE_PIP.format(python=sys.executable, build_s=build_s))
    path.chmod(0o755)
    return str(path)


def test_the_first_install_says_what_it_does_and_that_it_takes_a_minute(tmp_path):
    done = subprocess.run(driver(tmp_path, fake_pip(tmp_path, build_s=1.5), "bootstrap.ensure_environment()"),
                          capture_output=True, text=True, timeout=60)
    lines = done.stderr.splitlines()
    assert "about a minute the first time" in lines[0]
    assert "bootstrap:   fetching starlette>=0.37" in lines and not any("Downloading" in line for line in lines)
    assert "bootstrap:   building tavli-board (pyproject.toml)" in lines
    assert any(line.startswith("bootstrap:   still building tavli-board (pyproject.toml) (") for line in lines)
    assert "bootstrap:   installing 2 packages" in lines and "bootstrap:   installed 2 packages" in lines


def interrupted(command: list[str], after_s: float, cwd=None) -> subprocess.CompletedProcess:
    """`command` in a session of its own, sent SIGINT as a terminal's Ctrl-C is (to the whole group)."""
    # Ctrl-C as at a terminal, even where these tests run with it ignored (a background job's lot).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, cwd=cwd,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(after_s)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
        return subprocess.CompletedProcess(command, process.returncode, out, err)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_ctrl_c_during_the_install_is_one_line_and_exit_130(tmp_path):
    done = interrupted(driver(tmp_path, fake_pip(tmp_path, build_s=30), "bootstrap.main(['demo'])"), after_s=2)
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "bootstrap: stopped (Ctrl-C)"


def test_ctrl_c_in_the_demo_is_the_demos_one_line_and_exit_130(tmp_path):
    # bootstrap's environment taken as ready, its Python this one.
    command = driver(tmp_path, sys.executable, "setattr(bootstrap, 'ensure_environment', lambda: None) or "
                                               "bootstrap.main(['demo', '--web-port', '0', '--speed', '4'])")
    done = interrupted(command, after_s=8, cwd=tmp_path)
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "tavli-board demo: stopped (Ctrl-C)"
