"""Exact decimal input (``ndcg.input.number``) and correctly rounded decimal output digits
(``ndcg.precision``), in the standard library's decimals and fractions alone: a configuration
parses, and a case's numbers read, without mpmath (`reference.precision` holds what touches
it)."""

from __future__ import annotations

import numbers
import re
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import cache

from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.spec import load_spec

# fractions costs milliseconds of every start that reads a measure (issue 41); type checkers
# read the name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction

DPS: int = load_spec()["precision"]["dps"]
MAX_DPS: int = load_spec()["precision"]["max_dps"]
OUTPUT_DIGITS: int = load_spec()["precision"]["output_digits"]
NUMBER: re.Pattern[str] = re.compile(load_spec()["input"]["number"]["pattern"], re.ASCII)


MAGNITUDE: int = load_spec()["limits"]["number_magnitude"]
# Not math.inf: math is loaded from a file of its own at every start that imports it (issue 41).
_INFINITY = float("inf")
# An exponent of more digits than this is beyond what Decimal holds, and far beyond MAGNITUDE.
_EXPONENT_DIGITS = 18


_BEYOND = (
    f"lies outside 10^-{MAGNITUDE} to 10^{MAGNITUDE}, the magnitudes of nonzero labels and "
    "scores (ndcg.limits)"
)


class BeyondLimits(NdcgSpecError):
    """A number outside ``ndcg.limits``: the message says which bound."""


def bounded(value: Decimal) -> Decimal:
    """`value` if it is finite and, unless zero, of magnitude within 10^-MAGNITUDE and
    10^MAGNITUDE (``ndcg.limits``), checked before any arithmetic; a zero is plain 0, whatever
    exponent it was written with. A NaN or an infinity raises NdcgSpecError, a magnitude beyond
    the bound BeyondLimits."""
    if not value.is_finite():
        raise NdcgSpecError(f"{value} is not a finite decimal number")
    if not value:
        # A zero's exponent can only cost arithmetic.
        return Decimal(0) if abs(value.adjusted()) > MAGNITUDE else value
    if abs(value.adjusted()) > MAGNITUDE:
        raise BeyondLimits(_BEYOND)
    return value


def parse_decimal(text: str) -> Decimal:
    """The exact decimal written in `text` in the number grammar of ``ndcg.input.number``
    (ASCII decimal syntax, nothing around it), `bounded`; anything else raises NdcgSpecError.
    Every reader of labels and scores and every number of a configuration goes through here."""
    match = NUMBER.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise NdcgSpecError(f"not a decimal number: {text!r}")
    mantissa, _, exponent = text.lower().partition("e")
    if len(exponent.lstrip("+-").lstrip("0")) > _EXPONENT_DIGITS:
        # Decimal itself refuses such an exponent: only a zero is a number then.
        if Decimal(mantissa):
            raise BeyondLimits(_BEYOND)
        return Decimal(0)
    return bounded(Decimal(text))


def exact_decimal(value: object) -> Decimal:
    """The exact decimal a label or score of any kind holds, one rule for every reader that is
    given numbers rather than text (``ndcg.input.number``, ``ndcg.input.table``): text in the
    number grammar (`parse_decimal`), a Decimal as it is, an integer (Python's or numpy's) as it
    is, and a binary float of any width (Python's, numpy's float16 to longdouble) as the exact
    decimal of its value, the number a float implementation is given, never its shortest repr;
    each `bounded` (``ndcg.limits``). A NaN or an infinity raises NdcgSpecError, a magnitude
    beyond the bound BeyondLimits, and anything else, a bool among them, TypeError."""
    if isinstance(value, str):
        return parse_decimal(value)
    if isinstance(value, Decimal):
        return bounded(value)
    if isinstance(value, bool):
        raise TypeError(f"{value!r} (bool) is not a number")
    if isinstance(value, numbers.Integral):
        return bounded(Decimal(int(value)))
    ratio = getattr(value, "as_integer_ratio", None)
    if isinstance(value, numbers.Real) and ratio is not None:
        # Comparisons, not arithmetic: they tell NaN and the infinities of every width apart
        # without a warning or a conversion to float64.
        if value != value or abs(value) == _INFINITY:
            raise NdcgSpecError(f"{value} is not a finite decimal number")
        numerator, denominator = ratio()
        places = denominator.bit_length() - 1
        # n / 2^k = n * 5^k / 10^k: every digit of the binary value, no context rounding.
        return bounded(Decimal(f"{numerator * 5**places}e-{places}"))
    raise TypeError(f"{value!r} ({type(value).__name__}) is not a number")


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


@cache
def rounding(digits: int) -> Context:
    """Decimal arithmetic correctly rounded to `digits` significant digits, ties to even."""
    return Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=10**6, Emin=-(10**6))


def round_quotient(numerator: int, denominator: int, digits: int = OUTPUT_DIGITS) -> Decimal:
    """numerator / denominator (denominator > 0) correctly rounded to `digits` significant
    digits, ties to even (``ndcg.precision``): one correctly rounded decimal division of
    exact integers."""
    if numerator == 0:
        return Decimal(0)
    return rounding(digits).divide(Decimal(numerator), Decimal(denominator))


def round_fraction(value: Fraction, digits: int = OUTPUT_DIGITS) -> Decimal:
    """`value` correctly rounded to `digits` significant digits, ties to even."""
    return round_quotient(value.numerator, value.denominator, digits)


def plain_digits(value: Decimal, digits: int = OUTPUT_DIGITS) -> str:
    """A decimal of at most `digits` significant digits written with exactly `digits` of
    them, without exponent; "0" for zero."""
    if value == 0:
        return "0"
    exponent = Decimal(1).scaleb(value.adjusted() - digits + 1)
    return format(value.quantize(exponent, context=rounding(digits)), "f")
