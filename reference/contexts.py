"""The mpmath contexts the reference computes in and holds its numbers in (``ndcg.precision``).

mpmath keeps a precision in its context object, and its module-level `mp` and `iv` are one
object each for the whole process: a precision set there is set for every thread at once. The
reference therefore never computes in them. What is shared between threads, and why that is
safe:

- Each thread computes in contexts of its own (`computing_mp`, `computing_iv`, kept in a
  `threading.local`): the reference sets their precision around each computation, and
  mpmath's own functions raise and restore it as they work (``iv.log(x, b)`` adds 10 bits
  while it runs), so only the thread that owns a computing context ever reads it.
- A value that leaves a computation (a query's nDCG, DCG and IDCG, a mean) is held as an mpf of
  a holding context (`holding`), one per precision, shared by every thread. Its precision is
  fixed when it is made and it refuses any change (`FixedPrecision`), so arithmetic on a held
  value gives the same digits in every thread. The contexts are made under a lock and stored
  complete, so a context is never seen half made.
"""

from __future__ import annotations

import threading
from typing import Any

import mpmath
from mpmath.ctx_iv import MPIntervalContext


class FixedPrecision(RuntimeError):
    """A holding context was asked to change its precision: only the elementary operations
    (conversion, +, −, ×, /, sums, comparisons) may run in one."""


class HoldingContext(mpmath.MPContext):  # type: ignore[misc]  # mpmath has no types
    """An mpmath context whose precision is set once, when it is made."""

    def __init__(self, dps: int) -> None:
        super().__init__()
        super()._set_dps(dps)
        self._fixed = True

    def _refuse(self, _: Any) -> None:
        if getattr(self, "_fixed", False):
            raise FixedPrecision(f"the holding context at {self._dps} digits keeps its precision")

    def _set_prec(self, n: Any) -> None:
        self._refuse(n)
        super()._set_prec(n)

    def _set_dps(self, n: Any) -> None:
        self._refuse(n)
        super()._set_dps(n)

    prec = property(lambda self: self._prec, _set_prec)
    dps = property(lambda self: self._dps, _set_dps)


class _ThreadContexts(threading.local):
    """The computing contexts of the current thread, made when the thread first computes."""

    def __init__(self) -> None:
        self.mp = mpmath.MPContext()
        self.iv = MPIntervalContext()


_COMPUTING = _ThreadContexts()
_HOLDING: dict[int, HoldingContext] = {}
_HOLDING_MADE = threading.Lock()


def computing_mp() -> Any:
    """This thread's own floating-point context: the working precision (`working_precision`)
    is set here."""
    return _COMPUTING.mp


def computing_iv() -> Any:
    """This thread's own interval context: each enclosure's precision is set here."""
    return _COMPUTING.iv


def holding(dps: int) -> HoldingContext:
    """The context, shared by every thread, that holds values at `dps` significant digits."""
    found = _HOLDING.get(dps)
    if found is None:
        with _HOLDING_MADE:
            found = _HOLDING.get(dps) or HoldingContext(dps)
            _HOLDING[dps] = found
    return found


def held(value: Any) -> Any:
    """`value` (an exact decimal string, an int or an mpf) as an mpf held at this thread's
    working precision: rounded once to it, exact when it fits."""
    return holding(computing_mp().dps).mpf(value)
