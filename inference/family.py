"""A family of tests corrected together, and drawing on until each verdict at α is decided.

The correction (``inference.correction``) is applied to the family's p-values, and to the low
and the high ends of their intervals (``monte_carlo.Estimate``): Holm's and Bonferroni's adjusted
p-values never decrease when a p-value grows (both are monotone procedures), so the adjusted
p-value of exact p-values anywhere inside the intervals lies between the two. A verdict is
decided when α lies outside that adjusted interval; where it lies inside, the drawn tests whose
verdict is undecided are drawn again with twice the draws (the sign vectors of a seed extend
the smaller draw, so every earlier draw is kept), and the family is corrected again, until
every verdict is decided or those tests reach the most draws allowed: then the verdict is
undecided, and says so. This is a sequential Monte-Carlo test in the sense of Besag and
Clifford (1991, Biometrika 78) and Gandy (2009, JASA 104): it draws where the verdict needs it,
so that a published verdict does not depend on the seed, and stays a deterministic function of
the seed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ndcgspec.inference.correction import adjusted
from ndcgspec.inference.monte_carlo import Estimate

MAX_DRAWS = 640_000


@dataclass(frozen=True)
class Adjusted:
    """A test's adjusted p-value within the family, the adjusted interval around it, and
    whether α lies outside that interval."""

    p: Fraction
    low: Fraction
    high: Fraction
    decided: bool


def adjusted_family(
    estimates: Sequence[Estimate], correction: str, alpha: Fraction
) -> list[Adjusted]:
    """Each estimate's adjusted p-value and interval within the family at α."""
    ps = adjusted([e.p for e in estimates], correction)
    lows = adjusted([e.low for e in estimates], correction)
    highs = adjusted([e.high for e in estimates], correction)
    return [
        Adjusted(p, low, high, high <= alpha or low > alpha)
        for p, low, high in zip(ps, lows, highs, strict=True)
    ]


def decided_family(
    estimates: Sequence[Estimate],
    correction: str,
    alpha: Fraction,
    redraw: Callable[[int, int], Estimate],
    max_draws: int = MAX_DRAWS,
) -> tuple[list[Estimate], list[Adjusted]]:
    """The family's estimates after drawing on (`redraw(i, draws)` draws test i again with
    `draws` draws), and their adjusted p-values."""
    current = list(estimates)
    while True:
        judged = adjusted_family(current, correction, alpha)
        pending = [
            i
            for i, (estimate, verdict) in enumerate(zip(current, judged, strict=True))
            if not verdict.decided and estimate.draws is not None and estimate.draws < max_draws
        ]
        if not pending:
            return current, judged
        for i in pending:
            current[i] = redraw(i, min(2 * (current[i].draws or 0), max_draws))
