"""Exact values between the executors and the driver (``ndcg.precision``).

A value of the working precision travels as a decimal string with enough significant digits
that reading it back at that precision gives the same binary value: d digits round-trip p bits
when 10^(d−1) > 2^p.
"""

from __future__ import annotations

import math
from decimal import Decimal

import mpmath

from ndcgspec.reference.decimals import canonical_decimal


def round_trip_digits() -> int:
    """The significant digits that carry every value of the working precision exactly."""
    return math.ceil(mpmath.mp.prec * math.log10(2)) + 2


def sent(value: mpmath.mpf | None) -> str | None:
    """`value` (None: undefined) as the decimal string the driver reads back with
    `received`, both at the working precision."""
    if value is None:
        return None
    return mpmath.nstr(value, round_trip_digits(), strip_zeros=False)


def received(text: str | None) -> mpmath.mpf | None:
    """The value `sent` wrote, at the working precision."""
    return None if text is None else mpmath.mpf(text)


def exact_decimal_text(value: object) -> str | None:
    """A label or score of a numeric column as the exact decimal it holds
    (``ndcg.input.number``): a float64 is the exact decimal of the double, never its shortest
    repr; a decimal keeps every digit. None (SQL NULL) stays None; NaN and infinities are
    written as such, and the reader rejects them with its own message."""
    if value is None:
        return None
    exact = Decimal(value) if isinstance(value, Decimal | int) else Decimal(float(value))  # type: ignore[arg-type]
    if not exact.is_finite():
        return str(exact)
    return canonical_decimal(exact)
