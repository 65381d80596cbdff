"""The numbers the axes compute with, and each output's correctly rounded digits
(``ndcg.precision``).

The axis functions compute with `numbers()`: this thread's floating-point context at the
working precision (the explain trace), this thread's interval context (an interval that holds
the true value), or `Rationals` (the true value itself, when every number of the computation
is rational); `reference.contexts` says why each thread has contexts of its own. A
`Real` is a computation run in any of them; `correctly_rounded` finds its digits by Ziv's
strategy, as MPFR does: enclose the value at `dps` digits; if the enclosure holds more than one
rounding, compute it exactly when it is rational, else enclose it again at twice the digits, up
to `max_dps`; there, what the enclosure cannot tell apart is taken to be equal
(``ndcg.precision``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Generic, TypeAlias, TypeVar

import mpmath
from mpmath.ctx_iv import MPIntervalContext, ivmpf
from mpmath.ctx_mp_python import mpnumeric
from mpmath.libmp import finf, fnan, fninf

from ndcgspec.reference.contexts import computing_iv, computing_mp
from ndcgspec.reference.decimals import DPS, MAX_DPS, OUTPUT_DIGITS, round_fraction, rounding
from ndcgspec.reference.precision import mpf_fraction

#: A number of the computation: an mpf of a floating-point context (each context has its own
#: mpf class, all of them mpnumeric), an interval of an interval context, or a Fraction of
#: `Rationals`.
Number: TypeAlias = mpnumeric | ivmpf | Fraction
#: What `Real.of` and `Rationals.mpf` take as an exactly known number.
Exact: TypeAlias = Number | int | float | str | Decimal

V = TypeVar("V")

# The largest power n tried when asking whether log_b(x) is the integer n (`Rationals.log`).
LARGEST_RATIONAL_LOG = 64


class NotRational(ArithmeticError):
    """A number of the computation is irrational: `Rationals` cannot hold it."""


class Undecided(ArithmeticError):
    """An enclosure is too wide to decide a comparison at this precision."""


class Rationals:
    """Exact rational arithmetic under the names of mpmath's contexts that the axes use."""

    @property
    def e(self) -> Fraction:
        raise NotRational("e")

    def mpf(self, value: Exact) -> Fraction:
        return value if isinstance(value, Fraction) else Fraction(str(value))

    def power(self, base: Exact, exponent: Exact) -> Fraction:
        exponent = self.mpf(exponent)
        if exponent.denominator != 1:
            raise NotRational(f"{base}^{exponent}")
        return self.mpf(base) ** int(exponent)

    def log(self, x: Exact, base: Exact) -> Fraction:
        """log_b(x) when it is an integer n, 0 < n <= LARGEST_RATIONAL_LOG; other rational
        logarithms are not looked for, and the enclosures take over (``ndcg.precision``)."""
        x, base = self.mpf(x), self.mpf(base)
        power = base
        for n in range(1, LARGEST_RATIONAL_LOG + 1):
            if power == x:
                return Fraction(n)
            if power > x:
                break
            power *= base
        raise NotRational(f"log_{base}({x})")

    def fsum(self, values: Iterable[Fraction]) -> Fraction:
        return sum(values, Fraction(0))


@dataclass(frozen=True)
class Setting:
    """Which numbers (`kind`: "mp", "iv" or "exact"), at how many bits (intervals), and
    whether undecided comparisons count as equal."""

    kind: str
    prec: int = 0
    at_cap: bool = False


MP = Setting("mp")
EXACT = Setting("exact")
RATIONALS = Rationals()
_SETTING: ContextVar[Setting] = ContextVar("ndcgspec_arithmetic", default=MP)


def numbers() -> mpmath.MPContext | MPIntervalContext | Rationals:
    """The context the axes compute with: this thread's floating-point or interval context,
    or `Rationals`."""
    kind = _SETTING.get().kind
    if kind == "exact":
        return RATIONALS
    return computing_iv() if kind == "iv" else computing_mp()


@contextmanager
def computing_with(setting: Setting) -> Iterator[None]:
    """Compute with `setting` within the block; an interval setting's precision is set on
    this thread's interval context and put back after."""
    context = computing_iv()
    token, prec = _SETTING.set(setting), context.prec
    if setting.prec:
        context.prec = setting.prec
    try:
        yield
    finally:
        context.prec = prec
        _SETTING.reset(token)


def enclosing(dps: int, at_cap: bool = False) -> Setting:
    """Interval arithmetic with `dps` significant digits."""
    return Setting("iv", mpmath.libmp.dps_to_prec(dps), at_cap)


def _decided(compare: Callable[[], object]) -> bool:
    """A comparison's answer. An interval comparison that overlaps has none (mpmath 1.3
    answers None, 1.4 raises ValueError), which at the cap counts as equality
    (``ndcg.precision``)."""
    try:
        answer = compare()
    except ValueError:
        answer = None
    if answer is None:
        if _SETTING.get().at_cap:
            return False
        raise Undecided("overlapping enclosures")
    return bool(answer)


def less(a: Number, b: Number) -> bool:
    """a < b, decided; a number is never below itself."""
    return a is not b and _decided(lambda: a < b)


def positive(a: Number) -> bool:
    """a > 0, decided."""
    return _decided(lambda: a > number(0))


def is_zero(a: Number) -> bool:
    """Whether `a` is exactly 0 (an interval only when it is the point 0)."""
    return bool(a == number(0))


@dataclass(frozen=True, eq=False)
class Ordered:
    """A sort key comparing numbers with `less`."""

    value: Number

    def __lt__(self, other: Ordered) -> bool:
        return less(self.value, other.value)


@dataclass(eq=False)
class PerSetting(Generic[V]):
    """A value given by the computation that yields it in the current `numbers()`; each
    setting's result is kept."""

    compute: Callable[[], V]
    _known: dict[Setting, V] = field(default_factory=dict, repr=False)

    def __call__(self) -> V:
        setting = _SETTING.get()
        if setting not in self._known:
            self._known[setting] = self.compute()
        return self._known[setting]


@dataclass(eq=False)
class Real(PerSetting[Number]):
    """A real number given by the computation that yields it in the current `numbers()`;
    each setting's result is kept."""

    @classmethod
    def of(cls, value: Exact) -> Real:
        """An exactly known number: an int, a float, a Fraction, a Decimal or an mpf."""
        exact = _fraction(value)
        return cls(lambda: numbers().mpf(exact.numerator) / exact.denominator)

    def exact(self) -> Fraction | None:
        """The value as a fraction, or None when it is not rational."""
        with computing_with(EXACT):
            try:
                return self()
            except NotRational:
                return None


def _fraction(value: Exact) -> Fraction:
    if hasattr(value, "_mpf_"):
        return mpf_fraction(value)
    return Fraction(value if not isinstance(value, Decimal) else str(value))


def enclosure(interval: Number) -> tuple[Fraction, Fraction]:
    """The ends of an interval (or the value of a number of any context) as fractions."""
    if isinstance(interval, Fraction):
        return interval, interval
    if hasattr(interval, "_mpf_"):
        return mpf_fraction(interval), mpf_fraction(interval)
    low, high = interval._mpi_
    return mpf_fraction(low), mpf_fraction(high)


def _endpoints(interval: ivmpf) -> tuple[Fraction, Fraction] | None:
    """The ends of an enclosure as fractions; None when one is infinite."""
    if any(end in (finf, fninf, fnan) for end in interval._mpi_):
        return None
    return enclosure(interval)


def enclose(real: Real, dps: int) -> tuple[Fraction, Fraction]:
    """Two fractions around the value of `real`, from an enclosure at `dps` digits or more
    (more when a comparison needs it)."""
    while dps < MAX_DPS:
        ends = _tried(real, enclosing(dps))
        if ends is not None:
            return ends
        dps *= 2
    ends = _tried(real, enclosing(MAX_DPS, at_cap=True))
    assert ends is not None, "an enclosure at the cap decides every comparison"
    return ends


def _tried(real: Real, setting: Setting) -> tuple[Fraction, Fraction] | None:
    with computing_with(setting):
        try:
            return _endpoints(real())
        except Undecided:
            return None


def _precisions() -> Iterator[int]:
    dps = DPS
    while dps < MAX_DPS:
        yield dps
        dps *= 2


def correctly_rounded(real: Real, digits: int = OUTPUT_DIGITS) -> Decimal:
    """The value of `real` correctly rounded to `digits` significant digits, ties to even
    (``ndcg.precision``): Ziv's strategy, then the exact value, then the rule at the cap."""
    for attempt, dps in enumerate(_precisions()):
        ends = _tried(real, enclosing(dps))
        if ends is not None:
            low, high = (round_fraction(end, digits) for end in ends)
            if low == high:
                return low
        if attempt == 0 and (exact := real.exact()) is not None:
            return round_fraction(exact, digits)
    ends = _tried(real, enclosing(MAX_DPS, at_cap=True))
    assert ends is not None, "an enclosure at the cap decides every comparison"
    return _at_cap(*ends, digits)


def _at_cap(low: Fraction, high: Fraction, digits: int) -> Decimal:
    """The rule at ``max_dps``: an enclosure holding 0 is 0; one holding a halfway value is
    that value, rounded to even."""
    if low <= 0 <= high:
        return Decimal(0)
    below = round_fraction(low, digits)
    context = rounding(digits)
    above = context.next_plus(below)
    if round_fraction(high, digits) == below:
        return below
    wider = rounding(digits + 2)
    halfway = wider.divide(wider.add(below, above), Decimal(2))
    return context.plus(halfway)


def sign(real: Real) -> int:
    """-1, 0 or 1 as `real` is below, at or above 0, decided as `correctly_rounded` decides
    digits; an enclosure still holding 0 at the cap is 0 (``ndcg.precision``)."""
    for attempt, dps in enumerate(_precisions()):
        ends = _tried(real, enclosing(dps))
        if ends is not None and (ends[0] > 0 or ends[1] < 0 or ends[0] == 0 == ends[1]):
            return 1 if ends[0] > 0 else -1 if ends[1] < 0 else 0
        if attempt == 0 and (exact := real.exact()) is not None:
            return (exact > 0) - (exact < 0)
    low, high = _tried(real, enclosing(MAX_DPS, at_cap=True)) or (0, 0)
    return 1 if low > 0 else -1 if high < 0 else 0


def fsum(values: Iterable[Number]) -> Number:
    """The sum in the current numbers."""
    return numbers().fsum(list(values))


def number(value: Decimal | int) -> Number:
    """The exact decimal `value` in the current numbers: rounded once to the working
    precision (mp), enclosed (iv) or exact (Rationals)."""
    if isinstance(value, int) or (value.is_finite() and value == value.to_integral_value()):
        # The same number as its text, converted several times faster: each rank's discount
        # converts two (i and the offset).
        return numbers().mpf(int(value))
    return numbers().mpf(str(value))
