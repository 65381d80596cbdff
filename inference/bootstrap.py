"""Bootstrap intervals of a mean over queries: the percentile interval (Efron and Tibshirani
1993, §13.3) and the bias-corrected and accelerated one, BCa (§14.3, eq. 14.10 and 14.15).

`resamples` resamples of the n queries are drawn with replacement from numpy's generator
seeded with `seed` (``Generator.integers(0, n, (resamples, n))``: PCG64, the same numbers on
every machine, and the draw scipy.stats.bootstrap makes for one sample), each resample's mean
computed exactly (`exact.Limbs`). The percentile interval's ends are the quantiles
(1 − level)/2 and (1 + level)/2 of the sorted means, interpolated linearly between order
statistics (Hyndman and Fan 1996, definition 7: numpy's and scipy's default), in exact
fractions. BCa moves those two probabilities by the bias correction z0 = Φ⁻¹(share of resampled
means below the mean, ties counted half) and the acceleration a = Σ U³ / (6 (Σ U²)^{3/2}) of the
jackknife (for the mean, U_i = x_i − x̄ exactly): α1,2 = Φ(z0 + (z0 + z)/(1 − a(z0 + z))) at
z = Φ⁻¹ of each end's probability, as scipy.stats.bootstrap's ``method='BCa'`` does. Those
probabilities are irrational: they are computed in this thread's mpmath context at `DPS`
digits, then the quantiles are taken exactly at the binary value held."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np

from ndcgspec.inference.exact import Limbs, mean, scaled, sorted_rows
from ndcgspec.reference.contexts import computing_mp
from ndcgspec.reference.precision import mpf_fraction

RESAMPLES = 2000
CELLS_AT_ONCE = 1 << 20


DPS = 50


@dataclass(frozen=True)
class Interval:
    """The mean of the values and its bootstrap interval at `level` by `method`."""

    mean: Fraction
    low: Fraction
    high: Fraction
    level: Fraction
    resamples: int
    seed: int
    method: str = "percentile"


class UndefinedInterval(ValueError):
    """The values give no interval by this method: said in one line, never a number."""


@dataclass(frozen=True)
class _Resampled:
    """The exact means of the resamples, in ascending order, each read on demand."""

    rows: np.ndarray
    limbs: Limbs
    scale: Fraction

    @classmethod
    def of(cls, values: Sequence[Decimal], resamples: int, seed: int) -> _Resampled:
        integers, exponent = scaled(values)
        n = len(integers)
        limbs = Limbs.of(integers)
        rng = np.random.default_rng(seed)
        blocks = []
        # Drawn block by block: one generator's integers come in the same order either way,
        # and a block's picks and counts are all that is held.
        rows = max(1, CELLS_AT_ONCE // n)
        for start in range(0, resamples, rows):
            block = rng.integers(0, n, (min(rows, resamples - start), n))
            counts = np.zeros((len(block), n), dtype=np.int64)
            np.add.at(counts, (np.arange(len(block))[:, None], block), 1)
            blocks.append(limbs.combined(counts))
        return cls(sorted_rows(np.concatenate(blocks)), limbs, Fraction(10) ** exponent / n)

    def __len__(self) -> int:
        return len(self.rows)

    def at(self, index: int) -> Fraction:
        """The `index`-th smallest resampled mean."""
        return self.limbs.value_of(self.rows[index]) * self.scale

    def quantile(self, probability: Fraction) -> Fraction:
        """Definition 7 of Hyndman and Fan: linear between the order statistics around
        (N − 1)·probability; only those two are turned into fractions."""
        h = (len(self) - 1) * probability
        below = math.floor(h)
        low = self.at(below)
        if below + 1 < len(self):
            low += (h - below) * (self.at(below + 1) - low)
        return low

    def below(self, value: Fraction, inclusive: bool) -> int:
        """How many resampled means are below `value` (or equal, when `inclusive`)."""
        low, high = 0, len(self)
        while low < high:
            middle = (low + high) // 2
            found = self.at(middle)
            if found < value or (inclusive and found == value):
                low = middle + 1
            else:
                high = middle
        return low


def _checked(values: Sequence[Decimal], level: Fraction, resamples: int) -> None:
    if not 0 < level < 1:
        raise ValueError(f"confidence level {level}: between 0 and 1, exclusive")
    if len(values) < 2 or resamples < 1:
        raise ValueError("the bootstrap needs two or more values and one or more resamples")


def percentile_interval(
    values: Sequence[Decimal], level: Fraction, resamples: int = RESAMPLES, seed: int = 0
) -> Interval:
    """The percentile bootstrap interval of the mean of `values` (two or more)."""
    _checked(values, level, resamples)
    means = _Resampled.of(values, resamples, seed)
    low, high = (means.quantile(p) for p in ((1 - level) / 2, (1 + level) / 2))
    return Interval(mean(values), low, high, level, resamples, seed)


def acceleration(values: Sequence[Decimal]) -> Fraction | None:
    """The jackknife's a = Σ U³ / (6 (Σ U²)^{3/2}) of the mean, squared with its sign (an
    exact fraction: a² = (Σ U³)² / (36 (Σ U²)³)); None when every value is the same."""
    centre = mean(values)
    deviations = [Fraction(v) - centre for v in values]
    squares = sum((u * u for u in deviations), Fraction(0))
    if squares == 0:
        return None
    cubes = sum((u**3 for u in deviations), Fraction(0))
    squared = cubes * cubes / (36 * squares**3)
    return squared if cubes >= 0 else -squared


def bca_interval(
    values: Sequence[Decimal], level: Fraction, resamples: int = RESAMPLES, seed: int = 0
) -> Interval:
    """The BCa bootstrap interval of the mean of `values` (two or more); UndefinedInterval
    when every resampled mean lies on one side of the mean (z0 would be infinite)."""
    _checked(values, level, resamples)
    means = _Resampled.of(values, resamples, seed)
    centre = mean(values)
    share = Fraction(means.below(centre, False) + means.below(centre, True), 2 * len(means))
    if share in (0, 1):
        raise UndefinedInterval(
            f"BCa is undefined here: every one of the {resamples} resampled means lies "
            f"{'above' if share == 0 else 'below'} the mean (try --ci-method percentile)"
        )
    signed_square = acceleration(values)
    ctx = computing_mp()
    with ctx.workdps(DPS):

        def phi_inverse(p: Fraction) -> mpmath.mpf:
            return ctx.sqrt(2) * ctx.erfinv(2 * ctx.mpf(p.numerator) / p.denominator - 1)

        a = (
            0
            if signed_square is None
            else ctx.sign(signed_square.numerator)
            * ctx.sqrt(ctx.mpf(abs(signed_square.numerator)) / signed_square.denominator)
        )
        z0 = phi_inverse(share)
        ends = []
        for p in ((1 - level) / 2, (1 + level) / 2):
            moved = z0 + phi_inverse(p)
            ends.append(mpf_fraction(ctx.ncdf(z0 + moved / (1 - a * moved))))
    low, high = (means.quantile(min(max(p, Fraction(0)), Fraction(1))) for p in ends)
    return Interval(centre, low, high, level, resamples, seed, "bca")


INTERVALS: dict[str, Callable[[Sequence[Decimal], Fraction, int, int], Interval]] = {
    "percentile": percentile_interval,
    "bca": bca_interval,
}
"""Each bootstrap interval by its name (``--ci-method``)."""
