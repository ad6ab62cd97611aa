"""The service's imports leave out what gpiozero loads for a feature the package never uses."""
from __future__ import annotations

import importlib.metadata
import subprocess
import sys


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_gpiozero_is_imported_without_importlib_metadata():
    """Looking pin factories up by name (importlib.metadata, with email, zipfile and csv) is left until
    something asks for it: the service's hardware, the drivers and the HIL rigs import gpiozero."""
    out = run_python("import sys, firmware_host.service.hardware, firmware_host.hw, firmware_host.hil.rig;"
                     "import gpiozero; print(sorted(m for m in ('importlib.metadata', 'email', 'zipfile')"
                     " if m in sys.modules))")
    assert out.strip() == "[]"


def test_what_gpiozero_asks_of_importlib_metadata_still_answers():
    """Its pin factories by name (gpiozero's own entry points) and any other name of the module."""
    out = run_python("import firmware_host, gpiozero; from importlib_metadata import entry_points, version;"
                     "print(sorted(e.name for e in entry_points(group='gpiozero_pin_factories')));"
                     "print(version('gpiozero'))")
    factories, gpiozero_version = out.splitlines()
    assert "mock" in factories and "lgpio" in factories
    assert gpiozero_version == importlib.metadata.version("gpiozero")
