"""The chi-square test of the dice, against published table values."""
import math
import random

import pytest

from firmware_host.journal.dicestats import (MIN_ROLLS_FOR_TEST, chi_square_p_value, face_test,
                                             regularized_gamma_q, report, roll_test)


@pytest.mark.parametrize("statistic, df, p", [
    # Upper critical values of the chi-square distribution (NIST/SEMATECH e-Handbook, table 1.3.6.7.4).
    (31.410, 20, 0.05), (37.566, 20, 0.01), (45.315, 20, 0.001), (12.443, 20, 0.90), (10.851, 20, 0.95),
    (11.070, 5, 0.05), (15.086, 5, 0.01), (1.145, 5, 0.95),
    (49.802, 35, 0.05), (57.342, 35, 0.01), (3.841, 1, 0.05),
])
def test_p_values_match_the_tables(statistic, df, p):
    assert chi_square_p_value(statistic, df) == pytest.approx(p, abs=2e-4)


@pytest.mark.parametrize("a, x", [(10, 0.5), (10, 9.9), (10, 11.0), (10, 40.0), (3, 1.0), (1, 7.0)])
def test_the_gamma_function_agrees_with_its_closed_form_for_whole_a(a, x):
    # Q(n, x) = e^-x * sum_{k<n} x^k / k!
    closed = math.exp(-x) * sum(x ** k / math.factorial(k) for k in range(a))
    assert regularized_gamma_q(a, x) == pytest.approx(closed, rel=1e-10)


def test_exactly_expected_counts_give_no_evidence_against_fair_dice():
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)] * 10
    test = roll_test(rolls)
    assert test.statistic == pytest.approx(0) and test.p_value == pytest.approx(1)
    assert dict((outcome, seen) for outcome, seen, _ in test.counts)["6-6"] == 10
    assert dict((outcome, seen) for outcome, seen, _ in test.counts)["2-1"] == 20


def test_loaded_dice_are_caught_and_fair_ones_pass():
    rng = random.Random(1)
    fair = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(3600)]
    loaded = [(6 if rng.random() < 0.25 else rng.randint(1, 6), rng.randint(1, 6)) for _ in range(3600)]
    assert roll_test(fair).p_value > 0.01 and face_test(roll[0] for roll in fair).p_value > 0.01
    assert face_test(roll[0] for roll in loaded).p_value < 1e-6
    text = report(loaded)
    assert "die 1" in text and "UNLIKELY from fair dice" in text


def test_a_small_sample_is_flagged():
    assert f"below {MIN_ROLLS_FOR_TEST} rolls" in report([(1, 2)] * 10)
    assert report([]).startswith("0 rolls")
