"""The suite never sees the developer's own state (issue 18, item 6)."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.rules.match import MatchRules


def test_home_and_every_xdg_folder_are_the_tests_own_temporary_folders(_private_home, tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    assert Path.home() == _private_home and base in _private_home.parents
    for variable in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        assert Path(os.environ[variable]).is_relative_to(_private_home)


def test_temporary_files_of_the_test_and_of_its_children_lie_in_its_home(_private_home):
    """The simulated board's folder (tavli-board-sim-*) of a service a test kills with -9 is never
    removed by the service: it must go with the test's own folder, not pile up in /tmp."""
    assert Path(tempfile.mkdtemp(prefix="tavli-board-sim-")).is_relative_to(_private_home)
    child = subprocess.run([sys.executable, "-c", "import tempfile; print(tempfile.mkdtemp())"],
                           capture_output=True, text=True, check=True)
    assert Path(child.stdout.strip()).is_relative_to(_private_home)


def test_the_default_journal_lies_in_the_tests_home(_private_home):
    assert load_config().journal_path.is_relative_to(_private_home)


def test_history_reads_the_journal_of_the_tests_home(capsys):
    """Leaves a match in the default journal, which the next test must not find."""
    journal = Journal.open(load_config().journal_path)
    journal.start_match(MatchRules(sequence=("tapa",)))
    journal.close()
    assert main(["history"]) == 0 and "tapa" in capsys.readouterr().out


def test_a_fresh_home_has_no_journal_even_after_another_test_wrote_one(capsys):
    assert main(["history"]) != 0
    assert "no journal" in capsys.readouterr().err
