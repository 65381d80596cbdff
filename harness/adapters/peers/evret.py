"""evret's ``NDCG(k)`` as a built-in adapter (``ndcgspec run evret``).

``NDCG.score_query(retrieved_doc_ids, expected_answers)`` takes a query's ranked document ids
and the set of its relevant ones (here the judged documents labelled above 0): binary gain,
1/log2(rank + 1), an ideal of min(k, |relevant|) gains of 1, 0 for a query with nothing
relevant or nothing retrieved. A document ranked twice gains at each of its positions, and the
value is then clamped to [0, 1]. k is required: asked for the whole ranking the adapter passes
a k longer than every list. The caller picks the queries of the batch: those the aggregate
axis scores.
"""

from __future__ import annotations

from ndcgspec.harness.adapters.base import (
    CALLER_PICKS_QUERIES,
    CaseInput,
    distribution_version,
    scored_queries,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    ranked_lists,
    relevant_documents,
    require,
    whole_depth,
)
from ndcgspec.reference import Config

DISTRIBUTION = "evret"
EXTRA = "evret"
ADAPTERS = {"evret": "adapter"}


class EvretAdapter(PeerAdapter):
    """``NDCG(k).score_query(ranked ids, relevant ids)`` per query."""

    def __init__(self) -> None:
        self.metrics = require("evret.metrics", EXTRA)
        super().__init__(
            name="evret",
            version=distribution_version(DISTRIBUTION),
            capabilities={"gain": ["binary"], "ties": ["input"], "aggregate": ["qrels", "run"]},
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query the aggregate axis scores."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        metric = self.metrics.NDCG(config.cutoff or whole_depth(case_input))
        return {
            q: float(metric.score_query(ranked.get(q, []), relevant_documents(labels.get(q, {}))))
            for q in scored_queries(case_input, config.choice("aggregate"))
        }


adapter = EvretAdapter
