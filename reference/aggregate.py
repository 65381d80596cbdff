"""The ``aggregate`` axis: which queries are scored and averaged (``ndcg.aggregate``).

Run queries absent from the qrels are ignored under every choice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import mpmath


def qrels(qrels_queries: Iterable[str], run_queries: Iterable[str]) -> list[str]:
    """``ndcg.aggregate.qrels``: every query of the qrels, in qrels order."""
    return list(qrels_queries)


def run(qrels_queries: Iterable[str], run_queries: Iterable[str]) -> list[str]:
    """``ndcg.aggregate.run``: queries in both the run and the qrels, in qrels order."""
    present = set(run_queries)
    return [q for q in qrels_queries if q in present]


CHOICES: dict[str, Callable[[Iterable[str], Iterable[str]], list[str]]] = {
    "qrels": qrels,
    "run": run,
}


def mean(scores: Mapping[str, tuple[mpmath.mpf | float | None, bool]]) -> mpmath.mpf | None:
    """The arithmetic mean, at the working precision, of the queries that enter it; None when
    one of them is undefined or none enters (``ndcg.empty.nan``, ``ndcg.empty.skip``). The
    harness computes the mean an adapter's per-query values imply with it too."""
    values = [value for value, enters in scores.values() if enters]
    if not values or any(v is None for v in values):
        return None
    return mpmath.fsum(values) / len(values)
