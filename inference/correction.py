"""Corrections for multiple comparisons: Holm's step-down method (Holm 1979) and Bonferroni's,
over one family of p-values (every pair of runs under every measure, for one test)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

CORRECTIONS = ("holm", "bonferroni", "none")


def adjusted(p_values: Sequence[Fraction], method: str) -> list[Fraction]:
    """The adjusted p-values, in the order given: Bonferroni min(1, m·p); Holm, with the
    p-values in ascending order p₍₁₎ ≤ … ≤ p₍ₘ₎, the running maximum of
    min(1, (m − i + 1)·p₍ᵢ₎); "none" leaves them. A hypothesis is rejected at α when its
    adjusted p-value is at most α, the same decision as the method's own procedure."""
    m = len(p_values)
    if method == "none":
        return list(p_values)
    if method == "bonferroni":
        return [min(Fraction(1), m * p) for p in p_values]
    if method != "holm":
        raise ValueError(f"correction {method!r}: one of {', '.join(CORRECTIONS)}")
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [Fraction(0)] * m
    running = Fraction(0)
    for rank, index in enumerate(order):
        running = max(running, min(Fraction(1), (m - rank) * p_values[index]))
        out[index] = running
    return out
