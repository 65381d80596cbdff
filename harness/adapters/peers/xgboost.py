"""XGBoost's ranking metrics ``ndcg``, ``ndcg@k`` and ``ndcg-`` evaluated on fixed scores, as a
built-in adapter (``ndcgspec run xgboost``).

No model is trained: the scores are the DMatrix's ``base_margin``, a Booster is made with zero
boosting rounds and ``Booster.eval`` reports the metric on them. Groups are the retrieved
documents of each query. A null cutoff asks for plain ``ndcg``; ``empty=zero`` asks for the
``-`` variant; ``gain=linear`` sets ``ndcg_exp_gain=False``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    QueryArrays,
    query_arrays,
    require,
)
from ndcgspec.harness.adapters.peers.lightgbm import ltr_rows
from ndcgspec.reference import Config

DISTRIBUTION = "xgboost"
EXTRA = "xgboost"
ADAPTERS = {"xgboost": "adapter"}


def metric_name(cutoff: int | None, empty: str) -> str:
    """``ndcg``, ``ndcg@k``, with a trailing ``-`` when an empty query scores 0."""
    name = "ndcg" if cutoff is None else f"ndcg@{cutoff}"
    return name + ("-" if empty == "zero" else "")


class XgboostAdapter(ArraysPeerAdapter):
    """``xgboost.train(params, DMatrix(..., base_margin=scores), 0).eval(dmatrix)``."""

    def __init__(self) -> None:
        self.xgboost = require("xgboost", EXTRA)
        super().__init__(
            name="xgboost",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["exponential", "linear"],
                "ideal": ["retrieved"],
                "ties": ["input"],
                "fractional": ["error"],
                "negative": ["error"],
                "empty": ["one", "zero"],
                "aggregate": ["run"],
            },
            # A DMatrix stores labels and base margins as float32 (DMatrix.get_label() of 0.1
            # reads back 0.10000000149011612).
            float_width=32,
            library=DISTRIBUTION,
        )

    def _ndcg(self, queries: Sequence[QueryArrays], metric: str, exponential: bool) -> float:
        labels, scores, groups = ltr_rows(queries)
        matrix = self.xgboost.DMatrix(np.zeros((len(labels), 1)), label=labels, base_margin=scores)
        matrix.set_group(groups)
        params = {"objective": "rank:ndcg", "eval_metric": metric, "ndcg_exp_gain": exponential}
        try:
            booster = self.xgboost.train(params, matrix, num_boost_round=0)
            report = booster.eval(matrix, name="case")
        except self.xgboost.core.XGBoostError as error:
            if "label must be" in str(error):
                raise Rejected(str(error).splitlines()[0]) from None
            raise
        return float(report.rsplit(":", 1)[1])

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Each query evaluated alone, then all queries together for XGBoost's own mean."""
        queries = list(query_arrays(case_input, config.choice("aggregate"), retrieved_only=True))
        asked = (
            metric_name(config.cutoff, config.choice("empty")),
            config.choice("gain") == "exponential",
        )
        per_query = {q.qid: self._ndcg([q], *asked) for q in queries}
        return Values.with_aggregate(per_query, self._ndcg(queries, *asked))


adapter = XgboostAdapter
