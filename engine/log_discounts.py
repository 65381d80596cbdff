"""The logarithmic discounts of many ranks at once (``ndcg.discount.log``,
``ndcg.discount.jarvelin2002``), enclosed as the reference encloses one rank's.

The reference computes each rank's log_b(i + o) on its own (``reference/discount.py``): two
logarithms a rank, which for the ranks of a long ranking under every discount a survey asks
about is most of the engine's set-up. For an integer offset and a base that is e or an integer,
i + o is an integer m, and ln m = ln p + ln(m / p) for the smallest prime p dividing m: only
the primes need a logarithm, every other m is one interval sum of two known enclosures, and
the discount is one quotient, ln b / ln m. Every step is interval arithmetic in the caller's
context, so each result encloses the true discount, as the reference's does; it is wider by
at most a few units of the last of DISCOUNT_DPS digits, far below the fixed point's scale, and
the digits the engine prints are decided by the same bounds either way (``ndcg.precision``).
"""

from __future__ import annotations

from decimal import Decimal

from ndcgspec.reference.arithmetic import Number
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import computing_iv, computing_mp

SIEVED = ("log", "jarvelin2002")
"""The discount choices whose weights are reciprocal logarithms of an integer rank."""


def sieved_discounts(config: Config, first: int, last: int) -> list[Number] | None:
    """The discounts of ranks `first` .. `last` (1 ≤ first) in this thread's interval context,
    at the precision ``computing_with(enclosing(...))`` set; None where they are not
    logarithms of integers in an integer or natural base (another discount, a fractional base
    or offset): those go to the reference rank by rank."""
    choice = config.choice("discount")
    if choice not in SIEVED:
        return None
    base = config.param("log_base")
    offset = config.param("log_offset") if choice == "log" else Decimal(0)
    if not _integral(offset) or not (base == "e" or _integral(base)):
        return None
    shift = int(offset)
    context = computing_iv()
    # log's offset is at least 1 and jarvelin2002's rank at least its base (> 1) where it
    # takes a logarithm: every m is at least 2.
    logs = _natural_logs(last + shift)
    log_base = None if base == "e" else context.log(context.mpf(int(base)))
    below = computing_mp().e if base == "e" else base
    found: list[Number] = []
    for rank in range(first, last + 1):
        if choice == "jarvelin2002" and rank < below:
            found.append(context.mpf(1))
        else:
            log_m = logs[rank + shift]
            found.append(1 / log_m if log_base is None else log_base / log_m)
    return found


def _integral(value: Decimal | str) -> bool:
    return isinstance(value, Decimal) and value.is_finite() and value == value.to_integral()


def _natural_logs(high: int) -> list[Number]:
    """ln m enclosed for every m in 2 .. `high` (index m; 0 and 1 hold nothing usable)."""
    context = computing_iv()
    smallest = _smallest_prime_factors(high)
    logs: list[Number] = [context.mpf(0)] * (high + 1)
    for m in range(2, high + 1):
        prime = smallest[m]
        logs[m] = context.log(context.mpf(m)) if prime == m else logs[prime] + logs[m // prime]
    return logs


def _smallest_prime_factors(high: int) -> list[int]:
    """The smallest prime factor of each m in 0 .. `high` (m itself for a prime; 0 and 1
    for 0 and 1), by Eratosthenes' sieve."""
    smallest = list(range(high + 1))
    for p in range(2, int(high**0.5) + 1):
        if smallest[p] == p:
            for multiple in range(p * p, high + 1, p):
                if smallest[multiple] == multiple:
                    smallest[multiple] = p
    return smallest
