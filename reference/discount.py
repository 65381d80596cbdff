"""The ``discount`` axis: the weight of rank i ≥ 1 (``ndcg.discount``)."""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import to_mpf


def _base(config: Config) -> mpmath.mpf:
    base = config.param("log_base")
    return mpmath.e if base == "e" else to_mpf(base)


def log(rank: int, config: Config) -> mpmath.mpf:
    """``ndcg.discount.log``: 1 / log_b(i + o)."""
    return 1 / mpmath.log(rank + to_mpf(config.param("log_offset")), _base(config))


def jarvelin2002(rank: int, config: Config) -> mpmath.mpf:
    """``ndcg.discount.jarvelin2002``: 1 for i < b, 1 / log_b(i) for i ≥ b (Järvelin &
    Kekäläinen 2002, §2.2)."""
    base = _base(config)
    return mpmath.mpf(1) if rank < base else 1 / mpmath.log(rank, base)


def reciprocal(rank: int, config: Config) -> mpmath.mpf:
    """``ndcg.discount.reciprocal``: 1 / i."""
    return mpmath.mpf(1) / rank


def geometric(rank: int, config: Config) -> mpmath.mpf:
    """``ndcg.discount.geometric``: p^(i − 1), the rank-biased precision user model."""
    return mpmath.power(to_mpf(config.param("persistence")), rank - 1)


def none(rank: int, config: Config) -> mpmath.mpf:
    """``ndcg.discount.none``: 1 at every rank (cumulative gain)."""
    return mpmath.mpf(1)


CHOICES: dict[str, Callable[[int, Config], mpmath.mpf]] = {
    "log": log,
    "jarvelin2002": jarvelin2002,
    "reciprocal": reciprocal,
    "geometric": geometric,
    "none": none,
}


def discount(rank: int, config: Config) -> mpmath.mpf:
    """The weight of 1-based `rank` under the configuration's discount (``ndcg.discount``)."""
    return CHOICES[config.choice("discount")](rank, config)
