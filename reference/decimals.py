"""Exact decimal input, and mpmath arithmetic at the spec's precision (``ndcg.precision``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation

import mpmath

from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.spec import load_spec

DPS: int = load_spec()["precision"]["dps"]
OUTPUT_DIGITS: int = load_spec()["precision"]["output_digits"]


@contextmanager
def working_precision(dps: int = DPS) -> Iterator[None]:
    """Run the enclosed arithmetic at `dps` significant digits (``ndcg.precision``)."""
    with mpmath.workdps(dps):
        yield


def parse_decimal(text: str) -> Decimal:
    """The exact finite decimal written in `text`; anything else raises NdcgSpecError."""
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        raise NdcgSpecError(f"not a decimal number: {text!r}") from None
    if not value.is_finite():
        raise NdcgSpecError(f"not a finite number: {text!r}")
    return value


def canonical_decimal(value: Decimal) -> str:
    """The shortest plain notation of `value`, every digit kept: no exponent, no trailing
    zeros, no "-0". Built from the digits themselves, so no context precision rounds it."""
    sign, digit_tuple, written_exponent = value.as_tuple()
    exponent = int(written_exponent)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    if not digits:
        return "0"
    exponent += len(digit_tuple) - len(digits)
    if exponent >= 0:
        plain = digits + "0" * exponent
    elif len(digits) > -exponent:
        plain = f"{digits[:exponent]}.{digits[exponent:]}"
    else:
        plain = "0." + "0" * (-exponent - len(digits)) + digits
    return ("-" if sign else "") + plain


def to_mpf(value: Decimal | int) -> mpmath.mpf:
    """`value` rounded once to the working precision (exact when it fits)."""
    return mpmath.mpf(str(value))


def decimal_string(value: mpmath.mpf | None, digits: int = OUTPUT_DIGITS) -> str | None:
    """`value` as a plain decimal string of `digits` significant digits; None stays None.

    The output rule of ``ndcg.precision``: rounded to nearest, no exponent, "0" for zero.
    """
    if value is None:
        return None
    if value == 0:
        return "0"
    return mpmath.nstr(
        value, digits, strip_zeros=False, min_fixed=-mpmath.inf, max_fixed=mpmath.inf
    )
