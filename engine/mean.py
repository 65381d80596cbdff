"""The mean over queries, exactly, of any share of them (``ndcg.aggregate``,
``ndcg.precision``): a `MeanPart` holds, per query, integers at the scale 2^MEAN_BITS below and
above its true nDCG, a count and an any-undefined flag. Parts add exactly, so blocks of queries
(streamed, or scored on other machines) combine in any order into one part, and
`MeanPart.rounded_mean` rounds once; `to_json`/`from_json` carry a part as plain JSON. When the
bounds of the mean still straddle a rounding boundary it raises NeedsMoreDigits, and the
reference then computes the mean from every query's true value (`evaluate.evaluate_prepared`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ndcgspec.engine.fixed_point import Bounds
from ndcgspec.reference.arithmetic import Real, enclose
from ndcgspec.reference.decimals import round_quotient

# A query's share of the mean at 2^MEAN_BITS, its true value enclosed at MEAN_DPS digits first.
MEAN_BITS = 256
MEAN_DPS = 90


class NeedsMoreDigits(ArithmeticError):
    """A mean's bounds straddle a rounding boundary: its digits need more guard bits."""


@dataclass(frozen=True)
class MeanPart:
    """The mean over queries of any share of them, exactly: ``ndcg.aggregate`` and
    ``ndcg.precision``.

    `low` and `high` are integers at the scale 2^MEAN_BITS whose sums bound the sum of the
    true nDCG values of the `count` queries that enter the mean; `undefined` says one of them
    is undefined (``ndcg.empty.nan``). `combine` adds two parts, so parts of blocks of queries
    combine in any order and grouping into the same part; `rounded_mean` rounds once.
    """

    low: int = 0
    high: int = 0
    count: int = 0
    undefined: bool = False

    @classmethod
    def between(cls, low: Bounds, high: Bounds) -> MeanPart:
        """One query whose nDCG lies between the quotients `low` and `high` (numerator,
        positive denominator)."""
        return cls((low[0] << MEAN_BITS) // low[1], -((-high[0] << MEAN_BITS) // high[1]), 1)

    @classmethod
    def of(cls, value: int | Fraction | None, in_mean: bool) -> MeanPart:
        """One query whose nDCG is exactly `value` (None: undefined)."""
        if not in_mean:
            return cls()
        if value is None:
            return cls(count=1, undefined=True)
        exact = Fraction(value)
        return cls.between(*[(exact.numerator, exact.denominator)] * 2)

    @classmethod
    def of_real(cls, value: Real | None, in_mean: bool) -> MeanPart:
        """One query whose true nDCG the reference gives as a `Real`."""
        if not in_mean or value is None:
            return cls.of(None, in_mean)
        low, high = enclose(value, MEAN_DPS)
        return cls.between((low.numerator, low.denominator), (high.numerator, high.denominator))

    def combine(self, other: MeanPart) -> MeanPart:
        """The part of both shares of queries."""
        return MeanPart(
            self.low + other.low,
            self.high + other.high,
            self.count + other.count,
            self.undefined or other.undefined,
        )

    def rounded_mean(self) -> Decimal | None:
        """The mean correctly rounded to the output digits; None when undefined or no query
        enters it. Raises NeedsMoreDigits when the bounds round differently."""
        if self.undefined or not self.count:
            return None
        scale = self.count << MEAN_BITS
        low = round_quotient(self.low, scale)
        if low != round_quotient(self.high, scale):
            raise NeedsMoreDigits(f"the mean of {self.count} queries")
        return low

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the big integers as decimal strings, and the scale they are at."""
        return {
            "low": str(self.low),
            "high": str(self.high),
            "count": self.count,
            "undefined": self.undefined,
            "bits": MEAN_BITS,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MeanPart:
        """The part `to_json` wrote; a part at another scale is refused."""
        if data.get("bits") != MEAN_BITS:
            raise ValueError(f"a mean part at scale 2^{data.get('bits')}, not 2^{MEAN_BITS}")
        return cls(int(data["low"]), int(data["high"]), int(data["count"]), bool(data["undefined"]))
