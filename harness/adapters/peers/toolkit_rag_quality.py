"""toolkit-rag-quality's ``score_run`` as a built-in adapter (``ndcgspec run
toolkit-rag-quality``).

The adapter writes the case's qrels and run as TREC files and reads them with
``formats.read_trec_qrels`` and ``formats.read_trec_run``, as its ``--format trec`` does:
grades must be integers ("2.0" and "1e3" are), a document listed twice for a query is an
error, and each ranking is ordered by score, then document id, descending. ``score_run(qrels,
run, k)`` is linear gain, 1/log2(rank + 1), the ideal the positive grades of the query sorted
and cut at k, zero and negative grades gain nothing, 0 for a query with nothing relevant; its
mean runs over every judged query, one missing from the run scoring 0 (trec_eval's ``-c``,
which the documentation, "trec_eval-equal", does not mention). Its JSONL input, read by
``run_from_rows``, keeps the first of a repeated document instead. k is required: asked for
the whole ranking the adapter passes a k longer than every list.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    require,
    whole_depth,
    write_trec_files,
)
from ndcgspec.reference import Config

DISTRIBUTION = "toolkit-rag-quality"
EXTRA = "toolkit-rag-quality"
ADAPTERS = {"toolkit-rag-quality": "adapter"}


class ToolkitRagQualityAdapter(PeerAdapter):
    """``score_run(qrels=read_trec_qrels(...), run=read_trec_run(...), k=k)``."""

    def __init__(self) -> None:
        self.formats = require("toolkit_rag_quality.formats", EXTRA)
        self.retrieval = require("toolkit_rag_quality.retrieval", EXTRA)
        super().__init__(
            name="toolkit-rag-quality",
            version=distribution_version(DISTRIBUTION),
            capabilities={"fractional": ["error"]},
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """The report's per-query ``ndcg`` and its ``ndcg_at_k``."""
        with tempfile.TemporaryDirectory(prefix="ndcgspec-toolkit-rag-") as folder:
            qrels_path, run_path = write_trec_files(case_input, Path(folder))
            try:
                qrels = self.formats.read_trec_qrels(qrels_path)
                run = self.formats.read_trec_run(run_path)
                report = self.retrieval.score_run(
                    qrels=qrels, run=run, k=config.cutoff or whole_depth(case_input)
                )
            except ValueError as error:
                raise Rejected(str(error).replace(folder, "<folder>")) from None
        per_query = {str(row["id"]): float(row["ndcg"]) for row in report.per_query}
        return Values.with_aggregate(per_query, float(report.summary["ndcg_at_k"]))


adapter = ToolkitRagQualityAdapter
