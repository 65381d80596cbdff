"""trectools' ``TrecEval.get_ndcg`` as a built-in adapter (``ndcgspec run trectools``).

The adapter writes the case's qrels and run as TREC files and reads them with ``TrecQrel`` and
``TrecRun``, the library's documented way in; ``trec_eval=True`` is its linear gain and
``False`` its exponential one, ``removeUnjudged`` drops unjudged documents, and a null cutoff
is the method's default ``depth=1000``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ndcgspec.harness.adapters.base import CaseInput, Rejected, Values, distribution_version
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    require,
    undefined_as_none,
    write_trec_files,
)
from ndcgspec.reference import Config

DISTRIBUTION = "trectools"
EXTRA = "trectools"
ADAPTERS = {"trectools": "adapter"}
DEFAULT_DEPTH = 1000


class TrectoolsAdapter(PeerAdapter):
    """``TrecEval(TrecRun(run), TrecQrel(qrels)).get_ndcg(...)``."""

    def __init__(self) -> None:
        self.trectools = require("trectools", EXTRA)
        super().__init__(
            name="trectools",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["linear", "exponential"],
                "unjudged": ["zero", "condense"],
                "ties": ["docid-asc"],
                "negative": ["unjudged"],
                "aggregate": ["run"],
            },
            library=DISTRIBUTION,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Per-query nDCG (NaN is undefined) and the method's own mean."""
        with tempfile.TemporaryDirectory(prefix="ndcgspec-trectools-") as folder:
            qrels_path, run_path = write_trec_files(case_input, Path(folder))
            try:
                run = self.trectools.TrecRun(str(run_path))
            except ValueError as error:
                # TrecRun's format check refuses a document listed twice for a query.
                raise Rejected(str(error)) from None
            evaluation = self.trectools.TrecEval(run, self.trectools.TrecQrel(str(qrels_path)))
            options = {
                "depth": DEFAULT_DEPTH if config.cutoff is None else config.cutoff,
                "trec_eval": config.choice("gain") == "linear",
                "removeUnjudged": config.choice("unjudged") == "condense",
            }
            table = evaluation.get_ndcg(per_query=True, **options)
            mean = evaluation.get_ndcg(per_query=False, **options)
        per_query = {str(q): undefined_as_none(v) for q, v in table.iloc[:, 0].items()}
        return Values.with_aggregate(per_query, undefined_as_none(mean))


adapter = TrectoolsAdapter
