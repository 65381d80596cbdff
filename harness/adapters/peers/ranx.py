"""ranx's ``evaluate`` with ``ndcg`` / ``ndcg_burges`` through ``Qrels`` and ``Run`` objects as a
built-in adapter (``ndcgspec run ranx``); the gain axis picks the metric. ranx compiles its
kernels (numba) in each process on first use, so one process serves it (`Adapter.processes`)."""

from __future__ import annotations

from ndcgspec.harness.adapters.base import (
    DICT_NOT_OBSERVABLE,
    CaseInput,
    distribution_version,
    trec_dicts,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "ranx"
EXTRA = "ranx"
ADAPTERS = {"ranx": "adapter"}
METRICS = {"linear": "ndcg", "exponential": "ndcg_burges"}


class RanxAdapter(PeerAdapter):
    """``evaluate(Qrels(qrels), Run(run), metric, make_comparable=True)``."""

    def __init__(self) -> None:
        self.ranx = require("ranx", EXTRA)
        super().__init__(
            name="ranx",
            version=distribution_version(DISTRIBUTION),
            capabilities={"gain": list(METRICS), "ties": ["input"], "fractional": ["truncate"]},
            library=DISTRIBUTION,
            not_observable=DICT_NOT_OBSERVABLE,
            processes=1,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each qrels query; make_comparable gives missing queries an empty ranking."""
        qrels, run = trec_dicts(case_input)
        metric = METRICS[config.choice("gain")]
        if config.cutoff is not None:
            metric = f"{metric}@{config.cutoff}"
        qrels_object = self.ranx.Qrels(qrels)
        run_object = self.ranx.Run(run)
        self.ranx.evaluate(qrels_object, run_object, metric, make_comparable=True)
        return {q: float(v) for q, v in run_object.scores[metric].items()}


adapter = RanxAdapter
