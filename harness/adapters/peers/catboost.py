"""CatBoost's ``NDCG`` metric through ``catboost.utils.eval_metric`` as a built-in adapter
(``ndcgspec run catboost``).

eval_metric takes labels, predictions and a ``group_id`` per row, so it sees only the retrieved
documents of each query. The gain axis picks ``type=Base`` or ``type=Exp`` and the discount
axis ``denominator=LogPosition`` or ``denominator=Position``; a cutoff is ``top=k``. Rows are
passed as plain lists, as the function's documentation shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndcgspec.harness.adapters.base import CaseInput, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    ArraysPeerAdapter,
    QueryArrays,
    query_arrays,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "catboost"
EXTRA = "catboost"
ADAPTERS = {"catboost": "adapter"}
TYPES = {"linear": "Base", "exponential": "Exp"}
DENOMINATORS = {"log": "LogPosition", "reciprocal": "Position"}


def metric_name(gain: str, discount: str, cutoff: int | None) -> str:
    """``NDCG:type=…;denominator=…[;top=k]``."""
    name = f"NDCG:type={TYPES[gain]};denominator={DENOMINATORS[discount]}"
    return name if cutoff is None else f"{name};top={cutoff}"


class CatboostAdapter(ArraysPeerAdapter):
    """``eval_metric(labels, predictions, metric, group_id=...)``."""

    def __init__(self) -> None:
        self.utils = require("catboost.utils", EXTRA)
        super().__init__(
            name="catboost",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": list(TYPES),
                "discount": list(DENOMINATORS),
                "ideal": ["retrieved"],
                "ties": ["pessimistic"],
                "negative": ["keep"],
                "empty": ["one"],
                "aggregate": ["run"],
            },
            params={"log_base": ["2"], "log_offset": ["1"]},
            # eval_metric casts labels to float32 (a label 0.1 scores as 0.10000000149011612);
            # predictions stay float64.
            float_width=32,
            library=DISTRIBUTION,
        )

    def _ndcg(self, queries: Sequence[QueryArrays], metric: str) -> float:
        labels = [float(v) for q in queries for v in q.labels]
        scores = [float(v) for q in queries for v in q.scores]
        group_id = [index for index, q in enumerate(queries) for _ in q.labels]
        return float(self.utils.eval_metric(labels, scores, metric, group_id=group_id)[0])

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """The case's rows in one call for CatBoost's own mean, then each query alone."""
        queries = list(query_arrays(case_input, config.choice("aggregate"), retrieved_only=True))
        metric = metric_name(config.choice("gain"), config.choice("discount"), config.cutoff)
        aggregate = self._ndcg(queries, metric)
        return Values.with_aggregate({q.qid: self._ndcg([q], metric) for q in queries}, aggregate)


adapter = CatboostAdapter
