"""Fixtures for the rules tests; the builders and the independent model live in rules_kit.py."""
import pytest

from rules_kit import model_outcomes, outcomes


@pytest.fixture(params=["engine", "model"])
def generate(request):
    """Runs a dossier case against the engine and against the independent model of rules_kit.

    The model half checks the model itself (it is the oracle of the property tests); a case that
    fails only under [engine] is an engine discrepancy."""
    return outcomes if request.param == "engine" else model_outcomes
