"""scipy.stats as an oracle on the float views of the values: ``permutation_test`` (exact
enumeration, and the same seeded draws), ``ttest_rel`` and ``bootstrap`` must agree with the
exact statistics to the digits scipy gives."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from importlib.util import find_spec

import numpy as np
import pytest

from ndcgspec.inference.bootstrap import bca_interval, percentile_interval
from ndcgspec.inference.randomization import sign_flip
from ndcgspec.inference.ttest import paired_t

pytestmark = pytest.mark.skipif(
    find_spec("scipy") is None,
    reason="scipy is not installed (the test oracle; it comes with ndcgspec's extra peers)",
)


def sample(n: int, seed: int) -> tuple[list[Decimal], list[Decimal]]:
    """Two runs' per-query values: decimals of six places, so the float views are close."""
    rng = np.random.default_rng(seed)
    a = [Decimal(f"{x:.6f}") for x in rng.uniform(0, 1, n)]
    b = [Decimal(f"{x:.6f}") for x in rng.uniform(0, 1, n)]
    return a, b


def floats(values: list[Decimal]) -> np.ndarray:
    return np.array([float(v) for v in values])


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [4, 11, 16])
def test_exact_enumeration_agrees_with_scipy(n: int, alternative: str) -> None:
    from scipy import stats

    a, b = sample(n, n)
    d = [x - y for x, y in zip(a, b, strict=True)]
    ours = sign_flip(d, alternative)
    theirs = stats.permutation_test(
        (floats(a) - floats(b),),
        np.mean,
        permutation_type="samples",
        n_resamples=np.inf,
        alternative=alternative,
    )
    assert ours.exact
    assert float(ours.p) == pytest.approx(theirs.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_monte_carlo_draws_are_scipys(alternative: str) -> None:
    from scipy import stats

    a, b = sample(43, 7)
    d = [x - y for x, y in zip(a, b, strict=True)]
    f = floats(a) - floats(b)
    ours = sign_flip(d, alternative, seed=11)
    # Two-sided is |T| ≥ |t|: scipy's "greater" on |mean| with the same draws.
    statistic, side = (
        (lambda x, axis: np.abs(np.mean(x, axis=axis)), "greater")
        if alternative == "two-sided"
        else (np.mean, alternative)
    )
    theirs = stats.permutation_test(
        (f,),
        statistic,
        permutation_type="samples",
        n_resamples=10_000,
        alternative=side,
        rng=np.random.default_rng(11),
    )
    assert float(ours.p) == pytest.approx(theirs.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_test_agrees_with_ttest_rel(alternative: str) -> None:
    from scipy import stats

    a, b = sample(43, 3)
    ours = paired_t([x - y for x, y in zip(a, b, strict=True)], alternative)
    theirs = stats.ttest_rel(floats(a), floats(b), alternative=alternative)
    assert float(ours.t) == pytest.approx(theirs.statistic, rel=1e-12)
    assert float(ours.p) == pytest.approx(theirs.pvalue, rel=1e-12)


def test_bootstrap_agrees_with_scipy() -> None:
    from scipy import stats

    a, _ = sample(43, 5)
    ours = percentile_interval(a, Fraction(95, 100), 2000, 0)
    theirs = stats.bootstrap(
        (floats(a),),
        np.mean,
        confidence_level=0.95,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(0),
    ).confidence_interval
    assert float(ours.low) == pytest.approx(theirs.low, rel=1e-12)
    assert float(ours.high) == pytest.approx(theirs.high, rel=1e-12)


@pytest.mark.parametrize(("n", "seed", "level"), [(43, 5, "0.95"), (12, 3, "0.9"), (80, 8, "0.99")])
def test_bca_agrees_with_scipy(n: int, seed: int, level: str) -> None:
    from scipy import stats

    # Skewed values, so that the acceleration and the bias correction both move the ends.
    rng = np.random.default_rng(seed)
    values = [Decimal(f"{x:.6f}") for x in rng.beta(0.5, 3, n)]
    ours = bca_interval(values, Fraction(level), 2000, seed)
    theirs = stats.bootstrap(
        (floats(values),),
        np.mean,
        confidence_level=float(level),
        n_resamples=2000,
        method="BCa",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    # The error model: scipy's resampled means carry about n·2^-53 of relative error and its
    # probabilities alpha_1,2 (ndtr, ndtri) about 1e-15; (N − 1)·1e-15 ≈ 2e-12 of the place
    # between two order statistics, whose gap is below the values' range (under 1): so the
    # ends agree to far better than 1e-9 of their size.
    assert ours.method == "bca"
    assert float(ours.low) == pytest.approx(theirs.low, rel=1e-9)
    assert float(ours.high) == pytest.approx(theirs.high, rel=1e-9)
