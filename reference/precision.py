"""The working precision of mpmath's arithmetic and the correctly rounded output digits of the
values it computes (``ndcg.precision``). Apart from `reference.decimals`, so that what reads
configurations and decimals (``ndcgspec explain``, a case's inputs) does not import mpmath."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import mpmath

from ndcgspec.reference.contexts import computing_mp
from ndcgspec.reference.decimals import DPS, OUTPUT_DIGITS, plain_digits, round_fraction


@contextmanager
def working_precision(dps: int = DPS) -> Iterator[None]:
    """Run the enclosed arithmetic of this thread at `dps` significant digits
    (``ndcg.precision``); other threads keep their own (`reference.contexts`)."""
    with computing_mp().workdps(dps):
        yield


def mpf_fraction(value: mpmath.mpf | tuple[int, int, int, int]) -> Fraction:
    """The binary fraction an mpf (or a raw one: sign, mantissa, exponent, bits) holds,
    exactly."""
    sign, man, exp, _ = value if isinstance(value, tuple) else value._mpf_
    magnitude = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -magnitude if sign else magnitude


def decimal_string(value: mpmath.mpf | Decimal | None, digits: int = OUTPUT_DIGITS) -> str | None:
    """`value` as a plain decimal string of `digits` significant digits; None stays None.

    The output rule of ``ndcg.precision``: correctly rounded, ties to even, no exponent, "0"
    for zero.
    """
    if value is None:
        return None
    if isinstance(value, Decimal):
        exact = Fraction(str(value))
    else:
        exact = mpf_fraction(value if hasattr(value, "_mpf_") else computing_mp().mpf(value))
    return plain_digits(round_fraction(exact, digits), digits)
