"""rag-eval-lite's ``RAGEvaluator(k).evaluate`` as a built-in adapter (``ndcgspec run
rag-eval-lite``).

Each query is a ``QueryResult`` of its ranked document ids and the set of its relevant ones
(here the judged documents labelled above 0): binary gain, 1/log2(rank + 1), an ideal of
min(k, |relevant|) gains of 1, 0 for a query with nothing relevant. A document ranked twice
gains at each of its positions, so the value can exceed 1. k is required: asked for the whole
ranking the adapter passes a k longer than every list. The caller picks the queries: those the
aggregate axis scores.
"""

from __future__ import annotations

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
    relevant_documents,
    require,
    whole_depth,
)
from ndcgspec.reference import Config

DISTRIBUTION = "rag-eval-lite"
EXTRA = "rag-eval-lite"
ADAPTERS = {"rag-eval-lite": "adapter"}


class RagEvalLiteAdapter(PeerAdapter):
    """``RAGEvaluator(k).evaluate([QueryResult(qid, ranked ids, relevant ids), ...])``."""

    def __init__(self) -> None:
        self.rag_eval = require("rag_eval", EXTRA)
        super().__init__(
            name="rag-eval-lite",
            version=distribution_version(DISTRIBUTION),
            capabilities={"gain": ["binary"], "ties": ["input"], "aggregate": ["qrels", "run"]},
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """The report's per-query ``ndcg`` and its ``mean_ndcg``."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        queries = scored_queries(case_input, config.choice("aggregate"))
        if not queries:
            return Values.with_aggregate({}, None)
        evaluator = self.rag_eval.RAGEvaluator(k=config.cutoff or whole_depth(case_input))
        report = evaluator.evaluate(
            [
                self.rag_eval.QueryResult(
                    q, ranked.get(q, []), relevant_documents(labels.get(q, {}))
                )
                for q in queries
            ]
        )
        per_query = {str(s.query_id): float(s.ndcg) for s in report.per_query}
        return Values.with_aggregate(per_query, float(report.mean_ndcg))


adapter = RagEvalLiteAdapter
