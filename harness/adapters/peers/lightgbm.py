"""LightGBM's ranking metric ``ndcg`` evaluated on fixed scores, as a built-in adapter
(``ndcgspec run lightgbm``).

No model is trained: the case's scores are the Dataset's ``init_score``, a Booster is built on
it with zero boosting rounds, and ``eval_train`` reports the metric on those scores. LightGBM
sees only the retrieved documents of each query (a ``group``), so the ideal list is built from
them. It has no whole-list nDCG (``eval_at`` defaults to 1..5), so a null cutoff asks for
``eval_at`` = the length of the longest query. The gain axis picks ``label_gain``: LightGBM's
default 2^i − 1, or i for a linear gain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    QueryArrays,
    query_arrays,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "lightgbm"
EXTRA = "lightgbm"
ADAPTERS = {"lightgbm": "adapter"}
MAX_LABEL = 31


def ltr_rows(queries: Sequence[QueryArrays]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Labels, scores and group sizes of several queries, stacked in order."""
    labels = np.concatenate([q.labels for q in queries]) if queries else np.zeros(0)
    scores = np.concatenate([q.scores for q in queries]) if queries else np.zeros(0)
    return labels, scores, [len(q.labels) for q in queries]


class LightgbmAdapter(ArraysPeerAdapter):
    """``Booster(params, Dataset(..., init_score=scores)).eval_train()``."""

    def __init__(self) -> None:
        self.lightgbm = require("lightgbm", EXTRA)
        super().__init__(
            name="lightgbm",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["exponential", "linear"],
                "ideal": ["retrieved"],
                "ties": ["input"],
                "fractional": ["error"],
                "negative": ["error"],
                "empty": ["one"],
                "aggregate": ["run"],
            },
            # Width 64: labels are stored as float32, but only integers below 31 (exact in
            # float32) are accepted; init_score and the metric's sums are float64.
            library=DISTRIBUTION,
        )

    def _ndcg(self, queries: Sequence[QueryArrays], cutoff: int | None, gain: str) -> float:
        labels, scores, groups = ltr_rows(queries)
        params: dict[str, Any] = {
            "objective": "lambdarank",
            "metric": "ndcg",
            "eval_at": [cutoff or max(groups, default=1)],
            "verbosity": -1,
        }
        if gain == "linear":
            params["label_gain"] = list(range(MAX_LABEL))
        dataset = self.lightgbm.Dataset(
            np.zeros((len(labels), 1)), label=labels, group=groups, init_score=scores
        )
        try:
            booster = self.lightgbm.Booster(params=params, train_set=dataset)
        except self.lightgbm.basic.LightGBMError as error:
            raise Rejected(str(error).splitlines()[0]) from None
        return float(booster.eval_train()[0][2])

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Each query evaluated alone, then all queries together for LightGBM's own mean."""
        queries = list(query_arrays(case_input, config.choice("aggregate"), retrieved_only=True))
        asked = (config.cutoff, config.choice("gain"))
        per_query = {q.qid: self._ndcg([q], *asked) for q in queries}
        return Values.with_aggregate(per_query, self._ndcg(queries, *asked))


adapter = LightgbmAdapter
