"""An irrational gain as the sweep ranks and sums it (``ndcg.gain.exponential``: 2^l − 1 for a
fractional label l): known exactly by what decides it, and held by an enclosure.

The sweep (`sweep.Sweep`) only compares gains, sorts them and sums them times discounts; it
never adds two of them except for a mean of tied gains (``ndcg.ties.average``), which it
leaves to the engine whole. So an irrational gain needs no exact arithmetic: it is equal to
another exactly when the label after the fractional and negative axes and the choices of the
label axes are equal (2^l − 1 takes each value at one l), never equal to a rational gain, and
ordered against any gain by its enclosure at DISCOUNT_DPS digits. Where two enclosures overlap
or touch, no order is known and `Unordered` is raised: the sweep then leaves the configuration
to the engine, which encloses gains and falls back to the reference the same way
(``engine/label_gains.py``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction

from ndcgspec.engine.fixed_point import Bounds, fixed_gain
from ndcgspec.engine.ideal import Enclosure


class Unordered(ArithmeticError):
    """Two gains whose enclosures overlap or touch: their order is not known."""


@dataclass(frozen=True)
class IrrationalGain:
    """A gain known by `key` (equal keys, equal gains) and held by `enclosure`, its exact
    ends; `fixed` is that enclosure at the scale 2^FIXED_BITS (`fixed_point.fixed_gain`)."""

    key: Hashable
    enclosure: Enclosure = field(compare=False)
    fixed: Bounds = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fixed", fixed_gain(self.enclosure))

    def __bool__(self) -> bool:
        return True

    def _side(self, other: object) -> int:
        """-1, 0 or 1 as this gain is below, equal to or above `other`."""
        if self == other:
            return 0
        low: Fraction | int
        high: Fraction | int
        if isinstance(other, IrrationalGain):
            low, high = other.enclosure
        elif isinstance(other, Fraction | int):
            low = high = other
        else:
            raise TypeError(f"cannot order a gain against {type(other).__name__}")
        if self.enclosure[1] < low:
            return -1
        if self.enclosure[0] > high:
            return 1
        raise Unordered(f"the enclosures of {self.key!r} and {other!r} overlap")

    def __lt__(self, other: object) -> bool:
        return self._side(other) < 0

    def __le__(self, other: object) -> bool:
        return self._side(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._side(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._side(other) >= 0
