"""scikit-learn's ``sklearn.metrics.ndcg_score`` as built-in adapters (``ndcgspec run
sklearn``, ``sklearn-ignore-ties``).

ndcg_score takes one row of true labels and one row of scores per query, so it sees only the
retrieved documents; the adapter calls it once per query with that query's rows. It refuses
(ValueError) negative labels and queries of fewer than two documents.
"""

from __future__ import annotations

from ndcgspec.harness.adapters.base import CaseInput, Rejected, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    query_arrays,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "scikit-learn"
EXTRA = "sklearn"
ADAPTERS = {"sklearn": "adapter", "sklearn-ignore-ties": "adapter_ignore_ties"}


class SklearnAdapter(ArraysPeerAdapter):
    """``ndcg_score(y_true, y_score, k=k, ignore_ties=...)`` per query."""

    def __init__(self, ignore_ties: bool = False) -> None:
        self.metrics = require("sklearn.metrics", EXTRA)
        self.ignore_ties = ignore_ties
        super().__init__(
            name="sklearn-ignore-ties" if ignore_ties else "sklearn",
            version=distribution_version(DISTRIBUTION),
            # ignore_ties=True promises only that ties are not averaged: ranking by score
            # in the order given is what a user expects, and what identify checks.
            capabilities={
                "ideal": ["retrieved"],
                "ties": ["input" if ignore_ties else "average"],
                "negative": ["error"],
                "aggregate": ["run"],
            },
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query with a retrieved document (``ndcg.ideal.retrieved``)."""
        out = {}
        for query in query_arrays(case_input, config.choice("aggregate"), retrieved_only=True):
            try:
                out[query.qid] = float(
                    self.metrics.ndcg_score(
                        [query.labels],
                        [query.scores],
                        k=config.cutoff,
                        ignore_ties=self.ignore_ties,
                    )
                )
            except ValueError as error:
                raise Rejected(f"query {query.qid}: {error}") from None
        return out


def adapter() -> SklearnAdapter:
    """``ndcg_score`` with its default ``ignore_ties=False`` (tie-averaged DCG)."""
    return SklearnAdapter(ignore_ties=False)


def adapter_ignore_ties() -> SklearnAdapter:
    """``ndcg_score(..., ignore_ties=True)``."""
    return SklearnAdapter(ignore_ties=True)
