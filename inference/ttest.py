"""The paired t-test (Student 1908) on exact per-query differences.

The mean m and the sample variance s² of the differences are exact fractions, and so is
t² = n m² / s²; the two-sided p-value is the regularized incomplete beta function
I_x(ν/2, 1/2) at x = ν / (ν + t²), ν = n − 1 (Abramowitz and Stegun 26.7.1), computed by mpmath
in this thread's own context (`reference.contexts`) at `DPS` digits and held at them. One-sided
p-values are half of it, or one minus that half, by the sign of t. When every difference is the
same, s² = 0 and t is not finite: p is 1 when they are all 0 and 0 otherwise (the limit as
s² → 0)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import mpmath

from ndcgspec.inference.monte_carlo import Estimate
from ndcgspec.inference.randomization import ALTERNATIVES
from ndcgspec.reference.contexts import computing_mp, holding
from ndcgspec.reference.precision import mpf_fraction

DPS = 30


@dataclass(frozen=True)
class TTest:
    """The statistic t (None when s² = 0), its degrees of freedom and the p-value."""

    t: mpmath.mpf | None
    df: int
    p: mpmath.mpf

    def estimate(self) -> Estimate:
        """The p-value, exact to its digits: no uncertainty of its own."""
        return Estimate.exact(mpf_fraction(self.p))

    def report(self) -> dict[str, float | int | None]:
        """What a report's test row gives of the outcome beside its p-value."""
        return {"t": None if self.t is None else float(self.t), "df": self.df}


def paired_t(differences: Sequence[Decimal], alternative: str = "two-sided") -> TTest:
    """The paired t-test of `differences` (a_q − b_q), two or more of them."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative {alternative!r}: one of {', '.join(ALTERNATIVES)}")
    values = [Fraction(d) for d in differences]
    n = len(values)
    if n < 2:
        raise ValueError("the t-test needs two or more differences")
    mean = sum(values, Fraction(0)) / n
    variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (n - 1)
    ctx = computing_mp()
    with ctx.workdps(DPS):
        if variance == 0:
            sign = (mean > 0) - (mean < 0)
            return TTest(None, n - 1, holding(DPS).mpf(_degenerate(ctx, sign, alternative)))
        t_squared = n * mean**2 / variance
        df = n - 1
        x = ctx.mpf(df) / (df + ctx.mpf(t_squared.numerator) / t_squared.denominator)
        two_sided = ctx.betainc(ctx.mpf(df) / 2, ctx.mpf(1) / 2, 0, x, regularized=True)
        t = ctx.sqrt(ctx.mpf(t_squared.numerator) / t_squared.denominator)
        if mean < 0:
            t = -t
        if alternative == "two-sided":
            p = two_sided
        elif (alternative == "greater") == (mean > 0):
            p = two_sided / 2
        else:
            p = 1 - two_sided / 2
        held = holding(DPS).mpf
        return TTest(held(t), df, held(p))


def _degenerate(ctx: mpmath.MPContext, sign: int, alternative: str) -> mpmath.mpf:
    """p when every difference equals the same value, of sign `sign`."""
    if sign == 0:
        return ctx.mpf(1)
    if alternative == "two-sided" or (alternative == "greater") == (sign > 0):
        return ctx.mpf(0)
    return ctx.mpf(1)
