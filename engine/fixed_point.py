"""The engine's fixed-point arithmetic (``ndcg.precision``): every number it sums is held
between two integers at the scale 2^FIXED_BITS, the floor of its low end and the ceiling of its
high end, and every sum and product of those integers is exact.

Each distinct gain is exact (a fraction, from the reference's `judged_gain` computed with
rationals) or, when irrational (2^l − 1 for a fractional label l, ``ndcg.gain.exponential``),
enclosed by the reference's interval arithmetic at DISCOUNT_DPS digits; either is held by
`fixed_gain`, as is each tie group's mean gain (``ndcg.ties.average``). Each rank's discount is
enclosed the same way and held by `fixed_enclosure` (`discounts`). A value times a sum of
discounts (`product_bounds`) is then between two integers at the scale 2^(2 FIXED_BITS).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from mpmath.libmp import finf, fnan, fninf, mpf_neg

from ndcgspec.engine.ideal import Enclosure
from ndcgspec.reference.arithmetic import enclosure

# Gains, credits and discounts at 2^FIXED_BITS (77 digits, 37 past the output's), irrational
# ones enclosed at DISCOUNT_DPS digits first.
FIXED_BITS = 256
DISCOUNT_DPS = 90

Bounds = tuple[int, int]


def fixed_point(value: Fraction | int) -> Bounds:
    """`value` between two integers at the scale 2^FIXED_BITS: floor and ceiling."""
    scaled = value * (1 << FIXED_BITS)
    return math.floor(scaled), math.ceil(scaled)


def fixed_enclosure(value: Any) -> Bounds:
    """The ends of an enclosure (or an exact number) floored and ceiled at the scale
    2^FIXED_BITS: an interval's binary ends are shifted, exactly, with no fraction built."""
    ends = getattr(value, "_mpi_", None)
    if ends is None or any(end in (finf, fninf, fnan) for end in ends):
        return fixed_gain(enclosure(value))
    return _scaled_floor(ends[0]), -_scaled_floor(mpf_neg(ends[1]))


def _scaled_floor(end: tuple[int, int, int, int]) -> int:
    """floor(x × 2^FIXED_BITS) of a finite binary number x = ±mantissa × 2^exponent."""
    sign, mantissa, exponent, _ = end
    value, shift = (-int(mantissa) if sign else int(mantissa)), exponent + FIXED_BITS
    return value << shift if shift >= 0 else value >> -shift


# Scaling a gain builds two fractions of hundreds of bits, and hashing one costs a quarter of
# that: every configuration of a survey scores the same few gains again. lru_cache serialises
# its own bookkeeping, and what it keeps never changes.
@lru_cache(maxsize=1 << 12)
def fixed_gain(gain: Enclosure) -> Bounds:
    """A gain (or any enclosure given by its exact ends) between two integers at the scale
    2^FIXED_BITS: the floor of its low end, the ceiling of its high end."""
    return fixed_point(gain[0])[0], fixed_point(gain[1])[1]


def product_bounds(value: Bounds, weights: Bounds) -> Bounds:
    """Bounds of v × w for v in `value` and w in `weights`, 0 <= w."""
    (a, b), (s, t) = value, weights
    return (a * s if a >= 0 else a * t), (b * t if b >= 0 else b * s)
