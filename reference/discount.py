"""The ``discount`` axis: the weight of rank i ≥ 1 (``ndcg.discount``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ndcgspec.reference.arithmetic import Number, number, numbers
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import computing_mp
from ndcgspec.reference.decimals import canonical_decimal


def _fraction_digits(value: Decimal | str) -> int:
    """The digits after the point of an exact decimal parameter ("e" has none)."""
    return 0 if isinstance(value, str) else len(canonical_decimal(value).partition(".")[2])


def _log_b(rank: int, offset: Decimal, config: Config) -> Number:
    """log_b(i + o) with b = `log_base`. At the working precision it is computed with as many
    extra digits as b and o have after the point: log(1 + o) and log(b) near b = 1 cancel that
    many (``ndcg.limits``); an enclosure widens by what cancels instead."""
    base = config.param("log_base")
    context, working = numbers(), computing_mp()
    with working.workdps(working.dps + _fraction_digits(base) + _fraction_digits(offset)):
        return context.log(
            number(rank) + number(offset), context.e if base == "e" else number(base)
        )


def log(rank: int, config: Config) -> Number:
    """``ndcg.discount.log``: 1 / log_b(i + o)."""
    return 1 / _log_b(rank, config.param("log_offset"), config)


def jarvelin2002(rank: int, config: Config) -> Number:
    """``ndcg.discount.jarvelin2002``: 1 for i < b, 1 / log_b(i) for i ≥ b (Järvelin &
    Kekäläinen 2002, §2.2)."""
    base = config.param("log_base")
    below = rank < (computing_mp().e if base == "e" else base)
    return number(1) if below else 1 / _log_b(rank, Decimal(0), config)


def reciprocal(rank: int, config: Config) -> Number:
    """``ndcg.discount.reciprocal``: 1 / i."""
    return number(1) / rank


def geometric(rank: int, config: Config) -> Number:
    """``ndcg.discount.geometric``: p^(i − 1), the rank-biased precision user model."""
    return numbers().power(number(config.param("persistence")), rank - 1)


def none(rank: int, config: Config) -> Number:
    """``ndcg.discount.none``: 1 at every rank (cumulative gain)."""
    return number(1)


CHOICES: dict[str, Callable[[int, Config], Number]] = {
    "log": log,
    "jarvelin2002": jarvelin2002,
    "reciprocal": reciprocal,
    "geometric": geometric,
    "none": none,
}


def discount(rank: int, config: Config) -> Number:
    """The weight of 1-based `rank` under the configuration's discount (``ndcg.discount``)."""
    return CHOICES[config.choice("discount")](rank, config)


class RankWeights:
    """The discounts of a configuration (``ndcg.definition.dcg``): every query weighs rank i
    by the same d(i), so each rank's weight is computed once, in each of the numbers (context
    and precision) it is asked in, for one evaluation or, when a caller keeps the weights, for
    many (`engine.discounts.kept_weights`). A weight is immutable and keyed by the context
    object: a floating-point or interval context is the computing thread's own
    (`reference.contexts`), so its weights are served only to that thread; exact fractions are
    the same in every thread. The lock keeps two threads from interleaving their inserts."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._known: dict[tuple[Any, int, int], Number] = {}
        self._lock = threading.Lock()

    def __call__(self, rank: int) -> Number:
        context = numbers()
        key = (context, getattr(context, "prec", 0), rank)
        with self._lock:
            known = self._known.get(key)
        if known is None:
            known = discount(rank, self.config)
            with self._lock:
                self._known[key] = known
        return known
