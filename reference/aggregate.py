"""The ``aggregate`` axis: which queries are scored and averaged (``ndcg.aggregate``).

Run queries absent from the qrels are ignored under every choice.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

import mpmath

from ndcgspec.reference.arithmetic import Real, correctly_rounded, fsum
from ndcgspec.reference.contexts import held

# A query as the caller names it: its id, or its index (the engine's columns).
Q = TypeVar("Q", bound=Hashable)


def qrels(qrels_queries: Iterable[Q], run_queries: Iterable[Q]) -> list[Q]:
    """``ndcg.aggregate.qrels``: every query of the qrels, in qrels order."""
    return list(qrels_queries)


def run(qrels_queries: Iterable[Q], run_queries: Iterable[Q]) -> list[Q]:
    """``ndcg.aggregate.run``: queries in both the run and the qrels, in qrels order."""
    present = set(run_queries)
    return [q for q in qrels_queries if q in present]


class Choice(Protocol):
    """A choice of the axis: the queries scored, of the qrels' and the run's queries."""

    def __call__(self, qrels_queries: Iterable[Q], run_queries: Iterable[Q]) -> list[Q]: ...


CHOICES: dict[str, Choice] = {
    "qrels": qrels,
    "run": run,
}


def mean(scores: Mapping[str, tuple[Real | Any | None, bool]]) -> mpmath.mpf | None:
    """The true mean of the values of the queries that enter it, correctly rounded once
    (``ndcg.precision``) and held as an mpf at the working precision; None when one of them is
    undefined or none enters (``ndcg.empty.nan``, ``ndcg.empty.skip``). A value is a `Real`
    or an exactly known number (an mpf, a float, an int): the harness computes the mean an
    adapter's per-query values imply with it too."""
    values = [value for value, enters in scores.values() if enters]
    if not values or any(v is None for v in values):
        return None
    reals = [v if isinstance(v, Real) else Real.of(v) for v in values]
    total = Real(lambda: fsum(v() for v in reals) / len(reals))
    return held(str(correctly_rounded(total)))
