"""Percentile bootstrap intervals: the documented draw and definition 7 of Hyndman and Fan,
worked in exact fractions by the test itself."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from ndcgspec.inference.bootstrap import percentile_interval

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
