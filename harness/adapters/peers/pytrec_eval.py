"""pytrec_eval's ``RelevanceEvaluator`` with ``ndcg`` / ``ndcg_cut.k`` as a built-in adapter
(``ndcgspec run pytrec_eval``).

The library links trec_eval's own C code. It takes qrels and run as dicts, requires integer
labels (a float raises TypeError, which is its way of refusing the input) and returns values
only for run queries that have judgments.
"""

from __future__ import annotations

from ndcgspec.harness.adapters.base import (
    DICT_NOT_OBSERVABLE,
    CaseInput,
    Rejected,
    distribution_version,
    trec_dicts,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "pytrec-eval-terrier"
EXTRA = "pytrec-eval"
ADAPTERS = {"pytrec_eval": "adapter"}


def measure_name(cutoff: int | None) -> tuple[str, str]:
    """The measure to request and the key the result carries it under."""
    if cutoff is None:
        return "ndcg", "ndcg"
    return f"ndcg_cut.{cutoff}", f"ndcg_cut_{cutoff}"


class PytrecEvalAdapter(PeerAdapter):
    """``RelevanceEvaluator(qrels, {measure}).evaluate(run)``."""

    def __init__(self) -> None:
        self.pytrec_eval = require("pytrec_eval", EXTRA)
        super().__init__(
            name="pytrec_eval",
            version=distribution_version(DISTRIBUTION),
            capabilities={"negative": ["unjudged"], "fractional": ["error"], "aggregate": ["run"]},
            library=DISTRIBUTION,
            not_observable=DICT_NOT_OBSERVABLE,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each run query found in the qrels."""
        qrels, run = trec_dicts(case_input)
        request, key = measure_name(config.cutoff)
        try:
            evaluator = self.pytrec_eval.RelevanceEvaluator(qrels, {request})
        except TypeError as error:
            raise Rejected(str(error)) from None
        return {q: values[key] for q, values in evaluator.evaluate(run).items()}


adapter = PytrecEvalAdapter
