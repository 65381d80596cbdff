"""The nDCG function that tutorials teach, in numpy, as a built-in adapter (``ndcgspec run
numpy-snippet``): ideal list from the labels passed, ``k = min(k, n)``, ranking by
``np.argsort(-score)`` and 0 for a query with nothing relevant. It stands for the many
copies of this snippet in notebooks and blog posts; no package of its own exists."""

from __future__ import annotations

import numpy as np

from ndcgspec.harness.adapters.base import CaseInput, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    query_arrays,
)
from ndcgspec.reference import Config

ADAPTERS = {"numpy-snippet": "adapter"}


def tutorial_ndcg(y_true: np.ndarray, y_score: np.ndarray, k: int | None) -> float:
    """The snippet as tutorials write it, kept verbatim in spirit (no tie or label care)."""
    k = len(y_true) if k is None else min(k, len(y_true))
    order = np.argsort(-y_score)
    discounts = np.log2(np.arange(2, k + 2))
    dcg = np.sum(y_true[order][:k] / discounts)
    idcg = np.sum(np.sort(y_true)[::-1][:k] / discounts)
    return float(dcg / idcg) if idcg > 0 else 0.0


class NumpySnippetAdapter(ArraysPeerAdapter):
    """`tutorial_ndcg` per query; queries without retrieved rows get empty arrays."""

    def __init__(self) -> None:
        super().__init__(
            name="numpy-snippet",
            version=distribution_version("numpy"),
            capabilities={
                "ideal": ["retrieved"],
                "ties": ["input"],
                "negative": ["keep"],
                "aggregate": ["qrels", "run"],
            },
            library="numpy",
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query the aggregate axis scores."""
        return {
            q.qid: tutorial_ndcg(q.labels, q.scores, config.cutoff)
            for q in query_arrays(case_input, config.choice("aggregate"), retrieved_only=False)
        }


adapter = NumpySnippetAdapter
