"""Two runs' per-query values paired by query: the differences every test here is taken of."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction

from ndcgspec.inference.exact import mean


@dataclass(frozen=True)
class Paired:
    """The queries both runs score, in `a`'s order, and a_q − b_q for each: exact, since the
    values are decimals and a decimal difference needs no rounding."""

    queries: tuple[str, ...]
    differences: tuple[Decimal, ...]

    @classmethod
    def of(cls, a: Mapping[str, Decimal], b: Mapping[str, Decimal]) -> Paired:
        queries = tuple(q for q in a if q in b)
        return cls(queries, tuple(exact_difference(a[q], b[q]) for q in queries))

    def mean_difference(self) -> Fraction:
        return mean(self.differences)


def exact_difference(x: Decimal, y: Decimal) -> Decimal:
    """x − y without rounding: Decimal subtraction rounds to its context's precision, so it
    runs in a context wide enough for both operands' digits."""
    digits = max(len(x.as_tuple().digits), len(y.as_tuple().digits))
    spread = abs(int(x.as_tuple().exponent) - int(y.as_tuple().exponent))
    return Context(prec=digits + spread + 2).subtract(x, y)
