"""Percentile bootstrap intervals of a mean over queries (Efron and Tibshirani 1993, §13.3).

`resamples` resamples of the n queries are drawn with replacement from numpy's generator
seeded with `seed` (``Generator.integers(0, n, (resamples, n))``: PCG64, the same numbers on
every machine, and the draw scipy.stats.bootstrap makes for one sample), each resample's mean
computed exactly (`exact.Limbs`), and the interval's ends are the quantiles (1 − level)/2 and
(1 + level)/2 of the sorted means, interpolated linearly between order statistics
(Hyndman and Fan 1996, definition 7: numpy's and scipy's default), in exact fractions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ndcgspec.inference.exact import Limbs, mean, scaled, sorted_rows

RESAMPLES = 2000
ROWS_AT_ONCE = 1 << 14


@dataclass(frozen=True)
class Interval:
    """The mean of the values and its percentile bootstrap interval at `level`."""

    mean: Fraction
    low: Fraction
    high: Fraction
    level: Fraction
    resamples: int
    seed: int


def percentile_interval(
    values: Sequence[Decimal], level: Fraction, resamples: int = RESAMPLES, seed: int = 0
) -> Interval:
    """The percentile bootstrap interval of the mean of `values` (two or more)."""
    if not 0 < level < 1:
        raise ValueError(f"confidence level {level}: between 0 and 1, exclusive")
    if len(values) < 2 or resamples < 1:
        raise ValueError("the bootstrap needs two or more values and one or more resamples")
    integers, exponent = scaled(values)
    n = len(integers)
    limbs = Limbs.of(integers)
    picks = np.random.default_rng(seed).integers(0, n, (resamples, n))
    blocks = []
    for start in range(0, resamples, ROWS_AT_ONCE):
        block = picks[start : start + ROWS_AT_ONCE]
        counts = np.zeros((len(block), n), dtype=np.int64)
        np.add.at(counts, (np.arange(len(block))[:, None], block), 1)
        blocks.append(limbs.combined(counts))
    ordered_rows = sorted_rows(np.concatenate(blocks))
    scale = Fraction(10) ** exponent / n

    def order_statistic(index: int) -> Fraction:
        return limbs.value_of(ordered_rows[index]) * scale

    ends = []
    for probability in ((1 - level) / 2, (1 + level) / 2):
        # Definition 7 of Hyndman and Fan: linear between the order statistics around
        # (N − 1)·probability; only those two are turned into fractions.
        h = (resamples - 1) * probability
        below = math.floor(h)
        low = order_statistic(below)
        if below + 1 < resamples:
            low += (h - below) * (order_statistic(below + 1) - low)
        ends.append(low)
    return Interval(mean(values), ends[0], ends[1], level, resamples, seed)
