"""The examples in the package documentation run as written."""
import doctest

import pytest

import firmware_host.referee
import firmware_host.rules


@pytest.mark.parametrize("module", [firmware_host.rules, firmware_host.referee])
def test_examples_in_docstrings(module):
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
