"""rankerEval's ``NDCG`` as a built-in adapter (``ndcgspec run rankereval``).

Labels are ``NumericLabels.from_matrix``, one row per query over its items (the judged
documents, then the unjudged retrieved ones, label 0), and rankings
``Rankings.from_ranked_indices``, each query's ranked item indices; ``NDCG(k).score`` gives a
value per row and ``mean`` their mean (NaN if any is NaN, its default ``nan_handling``). The
ideal DCG is the DCG of the row's labels sorted, negative ones included; a row without a
nonzero label is NaN (negative labels count as nonzero). Labels are stored as float32.
``relevance_scaling='identity'`` (the default, documented as 'binary') is linear gain;
``'power'``, documented as 2^rel − 1, computes rel² − 1, and the adapter passes it when asked
for exponential gain. The log base (``'e'`` by default) cancels in the quotient. The caller
picks the rows: the queries the aggregate axis scores. rankerEval 0.2.0 marks a row without a
nonzero label with ``np.NaN``, an alias numpy 2 removed, so on numpy 2 every call raises
AttributeError; the worker restores the alias (``np.NaN = np.nan``) before importing it, as a
user on numpy 2 must. rankerEval compiles its kernels (numba) in each process on first use, 13 s
of a first identify, so one process serves it (`Adapter.processes`).
"""

from __future__ import annotations

import numpy as np

from ndcgspec.harness.adapters.base import (
    CALLER_PICKS_QUERIES,
    CaseInput,
    Values,
    distribution_version,
    scored_queries,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    ranked_lists,
    require,
    undefined_as_none,
)
from ndcgspec.reference import Config

DISTRIBUTION = "rankerEval"
EXTRA = "rankereval"
ADAPTERS = {"rankereval": "adapter"}
SCALINGS = {"linear": "identity", "exponential": "power"}


class RankerEvalAdapter(PeerAdapter):
    """``NDCG(k, relevance_scaling=...).score(NumericLabels, Rankings)`` and ``.mean``."""

    def __init__(self) -> None:
        if not hasattr(np, "NaN"):
            np.NaN = np.nan  # type: ignore[attr-defined]
        self.rankereval = require("rankereval", EXTRA)
        super().__init__(
            name="rankereval",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": list(SCALINGS),
                "negative": ["keep-in-ideal"],
                "ties": ["input"],
                "empty": ["nan"],
                "aggregate": ["qrels", "run"],
            },
            float_width=32,
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
            processes=1,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """nDCG of each query the aggregate axis scores, and the library's mean."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        queries = scored_queries(case_input, config.choice("aggregate"))
        if not queries:
            return Values.with_aggregate({}, None)
        rows, rankings = [], []
        for qid in queries:
            judged = labels.get(qid, {})
            items = list(dict.fromkeys([*judged, *ranked.get(qid, [])]))
            index = {d: i for i, d in enumerate(items)}
            rows.append([float(judged.get(d, 0)) for d in items])
            rankings.append([index[d] for d in ranked.get(qid, [])])
        width = max(len(r) for r in rows)
        matrix = [r + [0.0] * (width - len(r)) for r in rows]
        y_true = self.rankereval.NumericLabels.from_matrix(matrix)
        y_pred = self.rankereval.Rankings.from_ranked_indices(rankings)
        metric = self.rankereval.NDCG(
            config.cutoff, relevance_scaling=SCALINGS[config.choice("gain")]
        )
        values = metric.score(y_true, y_pred)
        per_query = {q: undefined_as_none(v) for q, v in zip(queries, values, strict=True)}
        return Values.with_aggregate(per_query, undefined_as_none(metric.mean(y_true, y_pred)))


adapter = RankerEvalAdapter
