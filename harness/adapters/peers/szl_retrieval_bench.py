"""szl-retrieval-bench's ``evaluate_run`` as a built-in adapter (``ndcgspec run
szl-retrieval-bench``).

``harness.evaluate_run(run, qrels, k)`` scores one query's ranked document ids against its
``{docid: grade}`` judgments, the call its BM25, dense and hybrid lanes make for every query:
``metrics.ndcg`` is exponential gain, 1/log2(rank + 1), the ideal every grade of the query
sorted and cut at k (negative grades included), 0 when the ideal DCG is 0 or below; every value
is rounded to 4 decimals. A query with no grade above 0 has no R-precision, and the evaluation
fails closed (state INVALID): the adapter refuses the input, as the lanes do. A document ranked
twice gains at each of its positions. k is required: asked for the whole ranking the adapter
passes a k longer than every list. The lanes score every query of the qrels.
"""

from __future__ import annotations

from ndcgspec.harness.adapters.base import (
    CaseInput,
    Rejected,
    distribution_version,
    label_number,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    ranked_lists,
    require,
    whole_depth,
)
from ndcgspec.reference import Config

DISTRIBUTION = "szl-retrieval-bench"
EXTRA = "szl-retrieval-bench"
ADAPTERS = {"szl-retrieval-bench": "adapter"}
DECIMAL_PLACES = 4


class SzlRetrievalBenchAdapter(PeerAdapter):
    """``evaluate_run(ranked ids, {docid: grade}, k)[f"ndcg@{k}"]`` per qrels query."""

    def __init__(self) -> None:
        self.harness = require("szl_retrieval_bench.harness", EXTRA)
        super().__init__(
            name="szl-retrieval-bench",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["exponential"],
                "negative": ["keep-in-ideal"],
                "ties": ["input"],
                "empty": ["error"],
            },
            decimal_places=DECIMAL_PLACES,
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of every qrels query; an INVALID query refuses the input."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        k = config.cutoff or whole_depth(case_input)
        out = {}
        for qid, judged in labels.items():
            grades = {d: label_number(v) for d, v in judged.items()}
            row = self.harness.evaluate_run(ranked.get(qid, []), grades, k)
            if row["state"] != "MEASURED":
                raise Rejected(f"query {qid}: {row.get('detail', row['state'])}")
            out[qid] = float(row[f"ndcg@{k}"])
        return out


adapter = SzlRetrievalBenchAdapter
