"""rankkit's ``scores(runs, "ndcg", k=k, gain=...)`` as a built-in adapter (``ndcgspec run
rankkit``).

The runs are built by ``extract_runs`` from the records its JSONL format holds, one per query
(``{"qid", "ranking", "relevance"}``), the documented way in: it refuses a negative grade, an
empty ranking and a document ranked twice. ``ndcg`` builds the ideal from every grade of the
query, exponential gain by default (``gain="linear"`` the label); a query whose ideal DCG is
0 is undefined and left out (``scores`` skips it, "matching trec_eval"). A query the run does
not rank cannot be a record, so the records are the run's queries. k is required: asked for the
whole ranking the adapter passes a k longer than every list.
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

DISTRIBUTION = "rankkit"
EXTRA = "rankkit"
ADAPTERS = {"rankkit": "adapter"}
GAINS = {"exponential": "exp", "linear": "linear"}


class RankkitAdapter(PeerAdapter):
    """``scores(extract_runs(records), "ndcg", k=k, gain=...)``."""

    def __init__(self) -> None:
        self.rankkit = require("rankkit", EXTRA)
        super().__init__(
            name="rankkit",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": list(GAINS),
                "negative": ["error"],
                "ties": ["input"],
                "empty": ["skip"],
                "aggregate": ["run"],
            },
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float | None]:
        """nDCG of each run query, None where rankkit leaves the query out."""
        labels, ranked = case_input.labels(), ranked_lists(case_input)
        records = [
            {
                "qid": q,
                "ranking": ranking,
                "relevance": {d: label_number(v) for d, v in labels.get(q, {}).items()},
            }
            for q, ranking in ranked.items()
        ]
        try:
            runs = self.rankkit.extract_runs(records)
        except ValueError as error:
            raise Rejected(str(error)) from None
        k = config.cutoff or whole_depth(case_input)
        found = self.rankkit.scores(runs, "ndcg", k=k, gain=GAINS[config.choice("gain")])
        return {q: found.get(q) for q in ranked if q in labels}


adapter = RankkitAdapter
