"""Are the dice fair? Roll counts and Pearson's chi-square test, computed here (no scipy).

Two tests over the journal's two-dice rolls:
- the 21 unordered rolls (1-1 .. 6-6): doubles expected 1/36 of the time, the others 2/36; 20 degrees
  of freedom;
- the faces of each die on its own (1 .. 6, 1/6 each); 5 degrees of freedom, and sharper against
  one biased die.

The p-value is the chance of a statistic at least this large from fair dice: the upper regularized
incomplete gamma function Q(df/2, chi2/2), evaluated by its series or its continued fraction
(Numerical Recipes, "gammq").
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

ROLLS = tuple((high, low) for high in range(1, 7) for low in range(1, high + 1))
FACES = tuple(range(1, 7))
# Pearson's approximation wants every expected count at 5 or more: the rarest roll (a double) is 1/36.
MIN_ROLLS_FOR_TEST = 5 * 36
_EPSILON = 1e-15
_MAX_ITERATIONS = 10_000


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x >= 0."""
    if a <= 0 or x < 0:
        raise ValueError(f"Q(a, x) needs a > 0 and x >= 0, got a={a}, x={x}")
    if x == 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        # P(a, x) by its series: sum of x^n / (a (a+1) ... (a+n)).
        term = total = 1.0 / a
        denominator = a
        for _ in range(_MAX_ITERATIONS):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * _EPSILON:
                return 1.0 - total * math.exp(log_prefix)
    else:
        # Q(a, x) by its continued fraction, in Lentz's method.
        tiny = 1e-300
        b = x + 1 - a
        c = 1 / tiny
        d = 1 / b
        fraction = d
        for n in range(1, _MAX_ITERATIONS):
            an = -n * (n - a)
            b += 2
            d = an * d + b
            d = tiny if abs(d) < tiny else d
            c = b + an / c
            c = tiny if abs(c) < tiny else c
            d = 1 / d
            step = d * c
            fraction *= step
            if abs(step - 1) < _EPSILON:
                return math.exp(log_prefix) * fraction
    raise ArithmeticError(f"Q({a}, {x}) did not converge")


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(X >= statistic) for X chi-square distributed with these degrees of freedom."""
    return regularized_gamma_q(degrees_of_freedom / 2, statistic / 2)


@dataclass(frozen=True)
class ChiSquare:
    counts: tuple[tuple[str, int, float], ...]   # (outcome, observed, expected)
    statistic: float
    degrees_of_freedom: int

    @property
    def p_value(self) -> float:
        return chi_square_p_value(self.statistic, self.degrees_of_freedom)


def chi_square(observed: dict[str, int], probabilities: dict[str, float]) -> ChiSquare:
    total = sum(observed.values())
    rows = tuple((outcome, observed.get(outcome, 0), total * probability) for outcome, probability in probabilities.items())
    statistic = sum((seen - expected) ** 2 / expected for _, seen, expected in rows) if total else 0.0
    return ChiSquare(rows, statistic, len(rows) - 1)


def roll_test(rolls: Iterable[tuple[int, int]]) -> ChiSquare:
    """The 21 unordered rolls of two dice against fair dice."""
    counts = Counter(f"{max(roll)}-{min(roll)}" for roll in rolls)
    return chi_square(counts, {f"{high}-{low}": (1 if high == low else 2) / 36 for high, low in ROLLS})


def face_test(values: Iterable[int]) -> ChiSquare:
    """One die's faces against a fair die."""
    return chi_square(Counter(str(value) for value in values), {str(face): 1 / 6 for face in FACES})


def report(rolls: list[tuple[int, int]]) -> str:
    """The counts and tests as text for `tavli-board dice-stats`."""
    lines = [f"{len(rolls)} rolls of two dice"]
    if len(rolls) < MIN_ROLLS_FOR_TEST:
        lines.append(f"(the chi-square test is only a rough guide below {MIN_ROLLS_FOR_TEST} rolls, when a "
                     "double is expected fewer than 5 times)")
    tests = [("rolls (unordered)", roll_test(rolls))]
    tests += [(f"die {number}", face_test(roll[number - 1] for roll in rolls)) for number in (1, 2)]
    for title, test in tests:
        lines += ["", f"{title}: observed / expected"]
        lines += [f"  {outcome:>4}  {seen:6d}  {expected:9.1f}" for outcome, seen, expected in test.counts]
        if rolls:
            verdict = "consistent with fair dice" if test.p_value >= 0.01 else "UNLIKELY from fair dice (p < 0.01)"
            lines.append(f"  chi-square {test.statistic:.3f}, {test.degrees_of_freedom} degrees of freedom, "
                         f"p = {test.p_value:.4f}: {verdict}")
    return "\n".join(lines)
