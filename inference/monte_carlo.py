"""The Monte-Carlo uncertainty of a drawn p-value, and how many draws a family of tests needs.

A sign-flip p-value drawn from N sign vectors estimates the exact p-value of the enumeration
(``ndcgspec.inference.randomization``): the count c of drawn vectors at least as extreme is
binomial with N trials and that p-value as its probability. Its uncertainty is the Wilson score
interval of c out of N (Wilson 1927, "Probable inference, the law of succession, and statistical
inference", JASA 22; Agresti and Coull 1998 on its coverage, which stays close to the nominal
level down to c = 0, where the normal-approximation interval collapses to a point), at
`MONTE_CARLO_LEVEL`. The interval is computed by mpmath at `DPS` digits in the thread's own
context (``reference.contexts``) and held as exact fractions of those digits: it decides only
whether α lies inside it, a comparison its 30 digits settle wherever the interval's end is not
within 10^-30 of α."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ndcgspec.reference.contexts import computing_mp
from ndcgspec.reference.precision import mpf_fraction

MONTE_CARLO_LEVEL = Fraction(99, 100)
DPS = 30


@dataclass(frozen=True)
class Estimate:
    """A p-value and an interval that holds the exact p-value it stands for: a point when the
    p-value is exact (an enumeration, a t-test), the Monte-Carlo interval when it was drawn,
    with the number of `draws` (None when exact)."""

    p: Fraction
    low: Fraction
    high: Fraction
    draws: int | None = None

    @classmethod
    def exact(cls, p: Fraction) -> Estimate:
        return cls(p, p, p)

    @classmethod
    def drawn(cls, count: int, draws: int, level: Fraction = MONTE_CARLO_LEVEL) -> Estimate:
        """The p-value (count + 1) / (draws + 1) of `count` extreme vectors among `draws`
        (Phipson and Smyth 2010), in the Wilson interval of count / draws, widened to hold
        the p-value itself (which counts the observed vector once more)."""
        p = Fraction(count + 1, draws + 1)
        low, high = wilson_interval(count, draws, level)
        return cls(p, min(low, p), max(high, p), draws)


def wilson_interval(successes: int, trials: int, level: Fraction) -> tuple[Fraction, Fraction]:
    """The Wilson score interval of a binomial proportion at `level`: with p̂ = s / n and
    z = Φ⁻¹((1 + level) / 2), (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)."""
    if not 0 <= successes <= trials or trials < 1:
        raise ValueError(f"{successes} successes of {trials} trials")
    if not 0 < level < 1:
        raise ValueError(f"level {level}: between 0 and 1, exclusive")
    ctx = computing_mp()
    with ctx.workdps(DPS):
        n = ctx.mpf(trials)
        share = ctx.mpf(successes) / n
        z = ctx.sqrt(2) * ctx.erfinv(ctx.mpf(level.numerator) / level.denominator)
        centre = share + z**2 / (2 * n)
        half = z * ctx.sqrt(share * (1 - share) / n + z**2 / (4 * n**2))
        scale = 1 + z**2 / n
        low, high = (centre - half) / scale, (centre + half) / scale
        return max(Fraction(0), mpf_fraction(low)), min(Fraction(1), mpf_fraction(high))


def draws_for_family(size: int, alpha: Fraction, corrected: bool, draws: int) -> int:
    """The draws that let a family of `size` tests reach α: a drawn p-value is at least
    1 / (N + 1), and Holm's and Bonferroni's first step multiply it by `size`, so no test of
    the family could be significant unless (N + 1) ≥ size / α. At least `draws`."""
    multiplier = size if corrected else 1
    return max(draws, math.ceil(multiplier / alpha) - 1)
