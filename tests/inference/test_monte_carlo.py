"""The Monte-Carlo interval of a drawn p-value, and the draws a family needs to reach α.

By hand: with no success the Wilson interval's centre p̂ + z²/2n and half-width
z·√(z²/4n²) = z²/2n are equal, so it is [0, z²/(n + z²)]; at the level 0.99,
z = Φ⁻¹(0.995) = 2.5758293035489004 and z² = 6.634896601021214, so 10,000 draws give
6.634896601021214 / 10006.634896601021 = 6.630497334598e-4."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from install_hints import needing

from ndcgspec.inference.monte_carlo import Estimate, draws_for_family, wilson_interval

LEVEL = Fraction(99, 100)


def test_no_success_by_hand() -> None:
    low, high = wilson_interval(0, 10_000, LEVEL)
    assert low == 0
    assert float(high) == pytest.approx(6.630497334598e-4, rel=1e-12)


def test_a_drawn_p_value_lies_in_its_interval_and_an_exact_one_is_a_point() -> None:
    drawn = Estimate.drawn(0, 10_000)
    assert drawn.p == Fraction(1, 10_001) and drawn.draws == 10_000
    assert drawn.low == 0 and drawn.low <= drawn.p <= drawn.high
    exact = Estimate.exact(Fraction(1, 64))
    assert (exact.low, exact.high, exact.draws) == (Fraction(1, 64), Fraction(1, 64), None)


@needing("statsmodels", "oracles")
# No deadline: the first example imports statsmodels (seconds).
@settings(deadline=None, max_examples=examples(50))
@given(st.integers(1, 10**6).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_agrees_with_statsmodels(drawn: tuple[int, int]) -> None:
    from statsmodels.stats.proportion import proportion_confint

    successes, trials = drawn
    expected = proportion_confint(successes, trials, alpha=0.01, method="wilson")
    # statsmodels works in float64: a few roundings of numbers of order 1 and √n, and the
    # low end a difference of two terms that cancel near 0, so an absolute error of some
    # 1e-15 on values at most 1.
    for ours, theirs in zip(wilson_interval(successes, trials, LEVEL), expected, strict=True):
        assert float(ours) == pytest.approx(max(0.0, min(1.0, theirs)), rel=1e-12, abs=1e-14)


def test_the_draws_a_family_needs_by_hand() -> None:
    # 588 tests at α = 0.05: (N + 1) ≥ 588 / 0.05 = 11760, N = 11759, and the smallest
    # adjusted p-value 588 / 11760 is exactly α.
    assert draws_for_family(588, Fraction(1, 20), True, 10_000) == 11_759
    assert draws_for_family(21, Fraction(1, 20), True, 10_000) == 10_000
    # Uncorrected, one test needs 1 / (N + 1) ≤ α only.
    assert draws_for_family(588, Fraction(1, 20), False, 10_000) == 10_000
    assert draws_for_family(6, Fraction(1, 10_000), True, 10_000) == 59_999


def test_bad_counts_and_levels_are_refused() -> None:
    for successes, trials, level in ((3, 2, LEVEL), (0, 0, LEVEL), (1, 2, Fraction(1))):
        with pytest.raises(ValueError):
            wilson_interval(successes, trials, level)
