"""Percentile bootstrap intervals: the documented draw and definition 7 of Hyndman and Fan,
worked in exact fractions by the test itself."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from ndcgspec.inference.bootstrap import (
    UndefinedInterval,
    acceleration,
    bca_interval,
    percentile_interval,
)

DIGITS40 = [
    Decimal("0.1234567890123456789012345678901234567891"),
    Decimal("0.1234567890123456789012345678901234567892"),
    Decimal("0.9"),
    Decimal("0.0000000000000000000000000000000000000001"),
    Decimal("0.5"),
]


def by_hand(values: list[Decimal], level: Fraction, resamples: int, seed: int) -> list[Fraction]:
    """The draw of the module's docstring, the means in fractions, the quantiles of
    definition 7: x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]), h = (N − 1)·p."""
    n = len(values)
    picks = np.random.default_rng(seed).integers(0, n, (resamples, n))
    means = sorted(sum(Fraction(values[i]) for i in row) / n for row in picks.tolist())
    ends = []
    for p in ((1 - level) / 2, (1 + level) / 2):
        h = (resamples - 1) * p
        low = math.floor(h)
        ends.append(means[low] + (h - low) * (means[low + 1] - means[low]))
    return ends


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_interval_equals_the_exact_quantiles_of_the_draw(seed: int) -> None:
    level = Fraction(95, 100)
    interval = percentile_interval(DIGITS40, level, 999, seed)
    assert [interval.low, interval.high] == by_hand(DIGITS40, level, 999, seed)
    assert interval.mean == sum(map(Fraction, DIGITS40)) / 5


def test_equal_values_give_a_point_interval() -> None:
    interval = percentile_interval([Decimal("0.25")] * 4, Fraction(9, 10), 100, 3)
    assert interval.low == interval.high == Fraction(1, 4)


def test_same_seed_same_interval_and_a_wider_level_is_wider() -> None:
    narrow = percentile_interval(DIGITS40, Fraction(1, 2), 500, 9)
    assert percentile_interval(DIGITS40, Fraction(1, 2), 500, 9) == narrow
    wide = percentile_interval(DIGITS40, Fraction(99, 100), 500, 9)
    assert wide.low <= narrow.low <= narrow.high <= wide.high


def test_bad_levels_and_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        percentile_interval(DIGITS40, Fraction(1), 10)
    with pytest.raises(ValueError, match="two or more"):
        percentile_interval(DIGITS40[:1], Fraction(1, 2), 10)


def test_the_acceleration_by_hand() -> None:
    # (0, 0, 1): mean 1/3, U = (-1/3, -1/3, 2/3), sum U^2 = 2/3, sum U^3 = 6/27 = 2/9, so
    # a = (2/9) / (6 (2/3)^(3/2)) and a^2 = (4/81) / (36 * 8/27) = 1/216; (1, 1, 0) mirrors it.
    assert acceleration([Decimal(0), Decimal(0), Decimal(1)]) == Fraction(1, 216)
    assert acceleration([Decimal(1), Decimal(1), Decimal(0)]) == -Fraction(1, 216)
    assert acceleration([Decimal("0.3")] * 4) is None


def test_bca_of_equal_values_is_a_point() -> None:
    interval = bca_interval([Decimal("0.25")] * 4, Fraction(9, 10), 100, 3)
    assert interval.low == interval.high == Fraction(1, 4)
    assert interval.method == "bca"


@pytest.mark.parametrize("seed", range(12))
def test_bca_is_undefined_when_every_resample_lies_on_one_side(seed: int) -> None:
    # One resample of (0, 1), drawn as the module's docstring says: its mean is 0, 1/2 or 1
    # against the mean 1/2. Above or below it, the share z0 is drawn from is 0 or 1 and z0 is
    # infinite: no interval. At the mean, the share is 1/2 and the interval the one point.
    # Seeds 0 to 11 draw all three (seed 11 (0, 0), seed 0 (1, 1), seed 1 (0, 1)).
    [picks] = np.random.default_rng(seed).integers(0, 2, (1, 2)).tolist()
    values = [Decimal(0), Decimal(1)]
    if picks in ([0, 0], [1, 1]):
        side = "below" if picks == [0, 0] else "above"
        with pytest.raises(UndefinedInterval, match=f"lies {side} the mean"):
            bca_interval(values, Fraction(1, 2), 1, seed)
    else:
        interval = bca_interval(values, Fraction(1, 2), 1, seed)
        assert interval.low == interval.high == Fraction(1, 2)
