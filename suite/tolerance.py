"""The comparison of an adapter's number with a golden decimal string (``ndcg.comparison``).

The rule and its constants live in ``spec/comparison.yaml``; this module is their one
implementation. Every quantity is an exact rational, so the rule adds no rounding of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from ndcgspec.spec import load_comparison


def error_constant() -> int:
    """The constant c of ``ndcg.comparison.float``."""
    return load_comparison().c


def float_widths() -> tuple[int, ...]:
    """The float widths an adapter may declare, in the order of ``spec/comparison.yaml``."""
    return tuple(load_comparison().float_widths)


def _binary_format(width: int) -> tuple[int, int]:
    entry = load_comparison().float_widths[width]
    return entry.significand_bits, entry.min_exponent


def unit_roundoff(width: int) -> Fraction:
    """u_w = 2^−p, the unit roundoff of a binary float of `width` bits with p significand bits
    (``ndcg.comparison.float``)."""
    bits, _ = _binary_format(width)
    return Fraction(1, 2**bits)


def float_tolerance(expected: Fraction, terms: int, width: int) -> Fraction:
    """c · n · u_w · max(1, |expected|) (``ndcg.comparison.float``)."""
    return _constant_roundoff(width) * max(terms, 1) * max(_ONE, abs(expected))


_ONE = Fraction(1)


# c · u_w, read from the spec once per width: the rule is applied to every answer judged.
@cache
def _constant_roundoff(width: int) -> Fraction:
    return error_constant() * unit_roundoff(width)


def published_tolerance(decimal_places: int) -> Fraction:
    """0.5 · 10^−p for a value published to p decimals (``ndcg.comparison.published``)."""
    return Fraction(1, 2) / Fraction(10) ** decimal_places


def ulp(value: Fraction, width: int) -> Fraction:
    """The gap between `|value|` and the next larger float of `width` bits (subnormals
    included, so zero has the smallest gap)."""
    bits, exponent = _binary_format(width)
    if value != 0:
        exponent = max(exponent, _floor_log2(abs(value)))
    return Fraction(2) ** (exponent - bits + 1)


def _floor_log2(value: Fraction) -> int:
    guess = value.numerator.bit_length() - value.denominator.bit_length()
    return guess if Fraction(2) ** guess <= value else guess - 1


def exact(number: str | float) -> Fraction:
    """The exact rational of a decimal string or of a binary float."""
    return _exact_decimal(number) if isinstance(number, str) else Fraction(number)


# A golden value is compared with many answers (identify asks each input under several
# configurations). lru_cache serialises its own bookkeeping; a Fraction is immutable.
@lru_cache(maxsize=1 << 16)
def _exact_decimal(text: str) -> Fraction:
    return Fraction(Decimal(text))


def is_undefined(actual: Any) -> bool:
    """Whether an answer means "undefined": null or NaN (``ndcg.comparison.undefined``)."""
    return actual is None or (isinstance(actual, float) and math.isnan(actual))


@dataclass(frozen=True)
class Mismatch:
    """One value that does not meet the rule: which value, and by how much it misses."""

    what: str
    expected: str | None
    actual: Any
    abs_error: Fraction | None = None
    rel_error: Fraction | None = None
    ulps: Fraction | None = None
    tolerance: Fraction | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record; errors as 6-significant-digit floats, for reading."""
        out: dict[str, Any] = {"what": self.what, "expected": self.expected, "actual": self.actual}
        for name in ("abs_error", "rel_error", "ulps", "tolerance"):
            value = getattr(self, name)
            if value is not None:
                out[name] = float(f"{float(value):.6g}")
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Tolerance:
    """Which rule applies to one value: the float rule with its n, or a published precision."""

    width: int
    terms: int = 1
    decimal_places: int | None = None

    def bound(self, expected: Fraction) -> Fraction:
        """The largest |actual − expected| that passes."""
        if self.decimal_places is not None:
            return published_tolerance(self.decimal_places)
        return float_tolerance(expected, self.terms, self.width)


def compare_value(
    what: str, expected: str | None, actual: Any, tolerance_of: Tolerance
) -> Mismatch | None:
    """None when `actual` meets the rule for `expected`, else the mismatch."""
    if expected is None or is_undefined(actual):
        if expected is None and is_undefined(actual):
            return None
        note = "expected undefined" if expected is None else "result is undefined"
        return Mismatch(what, expected, _jsonable(actual), note=note)
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return Mismatch(what, expected, _jsonable(actual), note="result is not a number")
    if math.isinf(actual):
        return Mismatch(what, expected, _jsonable(actual), note="result is infinite")
    if (
        tolerance_of.decimal_places is None
        and float(actual) == _nearest_double(expected)
        and _covers_double_rounding(tolerance_of.width)
    ):
        return None
    want, got = exact(expected), exact(float(actual))
    error = abs(got - want)
    bound = tolerance_of.bound(want)
    if error <= bound:
        return None
    return Mismatch(
        what,
        expected,
        actual,
        abs_error=error,
        rel_error=error / abs(want) if want else None,
        ulps=error / ulp(want if want else got, tolerance_of.width),
        tolerance=bound,
    )


# The double nearest a value is within u_64 · |value| of it (round to nearest; a subnormal's
# error is far below any bound), which the float rule's bound c · n · u_w · max(1, |value|)
# exceeds wherever c ≥ 1 and w has at most a double's 53 bits: an answer equal to that double
# passes without the exact arithmetic, the verdict unchanged. identify and the matrix judge
# hundreds of thousands of answers, most of them that double.
@lru_cache(maxsize=1 << 16)
def _nearest_double(text: str) -> float:
    return float(text)


@cache
def _covers_double_rounding(width: int) -> bool:
    bits, _ = _binary_format(width)
    return error_constant() >= 1 and bits <= _binary_format(64)[0]


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value if value is None or isinstance(value, (int, float, str, bool)) else repr(value)
