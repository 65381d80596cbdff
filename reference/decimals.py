"""Exact decimal input (``ndcg.input.number``), and mpmath arithmetic at the spec's precision
(``ndcg.precision``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import mpmath

from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.spec import load_spec

DPS: int = load_spec()["precision"]["dps"]
OUTPUT_DIGITS: int = load_spec()["precision"]["output_digits"]
NUMBER: re.Pattern[str] = re.compile(load_spec()["input"]["number"]["pattern"], re.ASCII)


@contextmanager
def working_precision(dps: int = DPS) -> Iterator[None]:
    """Run the enclosed arithmetic at `dps` significant digits (``ndcg.precision``)."""
    with mpmath.workdps(dps):
        yield


def parse_decimal(text: str) -> Decimal:
    """The exact decimal written in `text` in the number grammar of ``ndcg.input.number``
    (ASCII decimal syntax, nothing around it); anything else raises NdcgSpecError. Every
    reader of labels and scores and every number of a configuration goes through here."""
    if not isinstance(text, str) or NUMBER.fullmatch(text) is None:
        raise NdcgSpecError(f"not a decimal number: {text!r}")
    return Decimal(text)


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
