"""The paired t-test against closed forms of Student's t distribution.

ν = 1 is the Cauchy distribution: two-sided p = 1 − (2/π)·atan|t|. d = (1, 3): mean 2,
s² = 2, t = 2 / sqrt(2/2) = 2, so p = 1 − (2/π)·atan 2.
ν = 2: P(|T| ≥ t) = 1 − t / sqrt(2 + t²). d = (1, 2, 3): mean 2, s² = 1, t = 2·sqrt 3, t² = 12,
so p = 1 − sqrt(12/14) = 1 − sqrt(6/7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal

import mpmath
import pytest

from ndcgspec.inference.ttest import paired_t


def decimals(*values: int | str) -> list[Decimal]:
    return [Decimal(v) for v in values]


def close(value: mpmath.mpf, expected: Callable[[], mpmath.mpf]) -> bool:
    """Whether `value` is within 1e-25 of `expected`, both evaluated at 40 digits."""
    with mpmath.workdps(40):
        return abs(value - expected()) < mpmath.mpf(10) ** -25


def test_one_degree_of_freedom_is_cauchy() -> None:
    result = paired_t(decimals(1, 3))
    assert result.df == 1
    assert result.t == 2
    assert close(result.p, lambda: 1 - 2 / mpmath.pi * mpmath.atan(2))


def test_two_degrees_of_freedom_by_the_closed_form() -> None:
    result = paired_t(decimals(1, 2, 3))
    assert close(result.t, lambda: 2 * mpmath.sqrt(3))
    assert close(result.p, lambda: 1 - mpmath.sqrt(mpmath.mpf(6) / 7))


def test_one_sided_p_values_are_halves_by_the_sign_of_t() -> None:
    two = paired_t(decimals(1, 2, 3)).p
    assert close(paired_t(decimals(1, 2, 3), "greater").p, lambda: two / 2)
    assert close(paired_t(decimals(1, 2, 3), "less").p, lambda: 1 - two / 2)
    assert close(paired_t(decimals(-1, -2, -3), "less").p, lambda: two / 2)


def test_equal_differences_have_no_variance() -> None:
    assert paired_t(decimals(0, 0, 0)).p == 1
    assert paired_t(decimals("0.1", "0.1")).t is None
    assert paired_t(decimals("0.1", "0.1")).p == 0
    assert paired_t(decimals("0.1", "0.1"), "less").p == 1


def test_the_global_mpmath_precision_is_left_alone() -> None:
    before = mpmath.mp.dps
    paired_t(decimals(1, 2, 4, 8))
    assert mpmath.mp.dps == before


def test_a_single_difference_is_refused() -> None:
    with pytest.raises(ValueError, match="two or more"):
        paired_t(decimals(1))


def test_exact_variance_of_values_that_float64_rounds() -> None:
    # d = (0.5, 0.5 + 1e-30): the exact variance is 5e-61, t = (x + 5e-31)/sqrt(5e-61/2);
    # in float64 both values are the same number and the variance is 0.
    x, y = Decimal("0.5"), Decimal("0.500000000000000000000000000001")
    result = paired_t([x, y])
    assert float(x) == float(y)
    with mpmath.workdps(50):
        expected_t = (mpmath.mpf("0.5") + mpmath.mpf("5e-31")) / mpmath.sqrt(
            mpmath.mpf("5e-61") / 2
        )
        assert abs(result.t / expected_t - 1) < mpmath.mpf(10) ** -20
    assert math.isfinite(float(result.p))
