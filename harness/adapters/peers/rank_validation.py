"""rank-validation's ``get_metrics_report`` with the ``ndcg`` metric as a built-in adapter
(``ndcgspec run rank-validation``).

The report takes one DataFrame row per query: the judged documents with their grades (the
truth) and the ranked list of retrieved documents; ``normalise_relevance`` gives each ranked
document its grade (0 when unjudged) and ``metrics.ndcg`` computes exponential gain,
1/log2(rank + 1), over lists cut or padded to k. The truth list is cut to its first k grades,
in the order given, *before* it is sorted for the ideal, so at a cutoff the ideal DCG can miss
the best grades and the value exceed 1; a list shorter than k is padded with grades 0 before
the sort, so a negative grade sinks below them. A query without a retrieved document cannot be
a row (the report unpacks an empty list), so the rows are the queries of both run and qrels. k
is required: asked for the whole ranking the adapter passes the length of the longest list,
judgments or ranking, of those rows (a query of the qrels or the run alone does not count;
survey/prediction.py's model of the ideal takes the same k).
"""

from __future__ import annotations

from ndcgspec.harness.adapters.base import (
    CALLER_PICKS_QUERIES,
    CaseInput,
    distribution_version,
    label_number,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    ranked_lists,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "rank-validation"
EXTRA = "rank-validation"
ADAPTERS = {"rank-validation": "adapter"}


class RankValidationAdapter(PeerAdapter):
    """``get_metrics_report(df, "truth_items", "truth_scores", "pred_items", ["ndcg"], [k])``."""

    def __init__(self) -> None:
        self.report = require("rank_validation.validation_generator", EXTRA)
        self.pandas = require("pandas", EXTRA)
        super().__init__(
            name="rank-validation",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["exponential"],
                "negative": ["keep-in-ideal"],
                "ties": ["input"],
                "aggregate": ["run"],
            },
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """The per-query column ``ndcg@k`` of the report, one row per query of run and qrels."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        queries = [q for q in labels if q in ranked]
        if not queries:
            return {}
        longest = max(max(len(labels[q]), len(ranked[q])) for q in queries)
        k = config.cutoff or longest
        frame = self.pandas.DataFrame(
            {
                "query": queries,
                "truth_items": [list(labels[q]) for q in queries],
                "truth_scores": [[label_number(v) for v in labels[q].values()] for q in queries],
                "pred_items": [ranked[q] for q in queries],
            }
        )
        per_query, _ = self.report.get_metrics_report(
            frame, "truth_items", "truth_scores", "pred_items", ["ndcg"], [k]
        )
        return {
            str(q): float(v)
            for q, v in zip(per_query["query"], per_query[f"ndcg@{k}"], strict=True)
        }


adapter = RankValidationAdapter
