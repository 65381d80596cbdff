"""pyltr's ``pyltr.metrics.NDCG`` as a built-in adapter (``ndcgspec run pyltr``).

pyltr, a learning-to-rank toolkit, scores each query's labels in the order of its scores:
``evaluate_preds`` sorts them with ``np.lexsort((labels, -scores))`` (score descending, tied
documents by label ascending), and NDCG divides their DCG (``gain_type`` 'exp2', 2^l - 1, the
default, or 'identity'; discount 1/log2(i + 2) for 0-based i; the first k ranks) by the DCG of
the same labels sorted descending, floored at float64's machine epsilon:
``dcg / max(_EPS, ideal)``. A query whose ideal DCG is 0 or below therefore gives its DCG over
2.2e-16: 0 when nothing relevant is retrieved and nothing negative, near -1e15 with a negative
label in the first k. The metric keeps each query id's ideal DCG for later calls, so the
adapter builds one per case. ``calc_mean`` averages the query groups of the arrays given, the
retrieved queries. k defaults to 10: asked for no cutoff, the adapter asks for the default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ndcgspec.harness.adapters.base import CaseInput, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import ArraysPeerAdapter, query_arrays, require
from ndcgspec.reference import Config

DISTRIBUTION = "pyltr"
EXTRA = "pyltr"
ADAPTERS = {"pyltr": "adapter"}
GAIN_TYPES = {"exponential": "exp2", "linear": "identity"}


class PyltrAdapter(ArraysPeerAdapter):
    """``NDCG(k, gain_type).evaluate_preds`` per retrieved query and ``calc_mean`` of them."""

    def __init__(self) -> None:
        self.metrics = require("pyltr.metrics", EXTRA)
        super().__init__(
            name="pyltr",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": list(GAIN_TYPES),
                "ideal": ["retrieved"],
                "negative": ["keep-in-ideal"],
                "ties": ["pessimistic"],
                "aggregate": ["run"],
            },
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Each retrieved query's nDCG and the library's mean over them."""
        options: dict[str, Any] = {"gain_type": GAIN_TYPES[config.choice("gain")]}
        if config.cutoff is not None:
            options["k"] = config.cutoff
        metric = self.metrics.NDCG(**options)
        queries = list(query_arrays(case_input, config.choice("aggregate"), retrieved_only=True))
        per_query = {
            q.qid: float(metric.evaluate_preds(q.qid, q.labels, q.scores)) for q in queries
        }
        if not queries:
            # calc_mean of no group is numpy's mean of nothing, NaN: undefined.
            return Values.with_aggregate(per_query, None)
        qids = np.array([q.qid for q in queries for _ in q.labels], dtype=object)
        labels = np.concatenate([q.labels for q in queries])
        scores = np.concatenate([q.scores for q in queries])
        return Values.with_aggregate(per_query, float(metric.calc_mean(qids, labels, scores)))


adapter = PyltrAdapter
