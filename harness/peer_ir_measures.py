"""ir_measures' ``nDCG`` as built-in adapters: the default pipeline (``ndcgspec run
ir_measures``) and each provider that serves nDCG on its own (``ir_measures-pytrec_eval``,
``ir_measures-ranx``, ``ir_measures-trectools``, ``ir_measures-gdeval``), since providers
compute different conventions behind the same measure name.

The configuration picks the measure: the gain axis sets ``dcg='exp-log2'`` or ``gains={...}``,
``unjudged=condense`` sets ``judged_only=True`` and the cutoff is ``@k``. Per-query values come
from ``iter_calc`` and the aggregate from ``calc_aggregate``, as the library's users get them.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .adapter import CaseInput, Rejected, Values
from .peer_common import DICT_INPUT, PeerAdapter, distribution_version, label_number, require

DISTRIBUTION = "ir-measures"
PROVIDERS = ("pytrec_eval", "ranx", "trectools", "gdeval")


def measure(ir_measures: Any, config: Mapping[str, Any]) -> Any:
    """The ir_measures measure object of a configuration."""
    params: dict[str, Any] = {}
    if config["gain"] == "exponential":
        params["dcg"] = "exp-log2"
    if config["gain"] == "map":
        params["gains"] = {
            label_number(Decimal(k)): label_number(Decimal(v))
            for k, v in config["gain_map"].items()
        }
    if config["unjudged"] == "condense":
        params["judged_only"] = True
    chosen = ir_measures.nDCG(**params) if params else ir_measures.nDCG
    return chosen if config["cutoff"] is None else chosen @ config["cutoff"]


class IrMeasuresAdapter(PeerAdapter):
    """One provider of ir_measures, or the default pipeline when `provider` is None."""

    def __init__(self, provider: str | None = None) -> None:
        self.ir_measures = require("ir_measures", DISTRIBUTION)
        self.provider = provider
        super().__init__(
            name="ir_measures" if provider is None else f"ir_measures-{provider}",
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["linear", "exponential", "map"],
                "unjudged": ["zero", "condense"],
                "negative": ["unjudged"],
                "fractional": ["error"],
            },
            library=DISTRIBUTION,
            not_observable={"duplicates": DICT_INPUT},
        )

    def _engine(self) -> Any:
        if self.provider is None:
            return self.ir_measures
        return getattr(self.ir_measures, self.provider)

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        """Per-query nDCG and the mean, from the chosen provider or pipeline."""
        irm = self.ir_measures
        qrels = [
            irm.Qrel(q, d, label_number(v))
            for q, docs in case_input.labels().items()
            for d, v in docs.items()
        ]
        run = [
            irm.ScoredDoc(q, d, float(s))
            for q, docs in case_input.rankings().items()
            for d, s in docs
        ]
        asked = measure(irm, config)
        engine = self._engine()
        try:
            per_query = {m.query_id: float(m.value) for m in engine.iter_calc([asked], qrels, run)}
            aggregate = engine.calc_aggregate([asked], qrels, run).get(asked)
        except TypeError as error:
            # pytrec_eval refuses a non-integer label with TypeError.
            raise Rejected(str(error)) from None
        return Values.with_aggregate(per_query, None if aggregate is None else float(aggregate))


def adapter() -> IrMeasuresAdapter:
    """The default pipeline (``ir_measures.iter_calc``)."""
    return IrMeasuresAdapter()


def adapter_pytrec_eval() -> IrMeasuresAdapter:
    """``ir_measures.pytrec_eval``."""
    return IrMeasuresAdapter("pytrec_eval")


def adapter_ranx() -> IrMeasuresAdapter:
    """``ir_measures.ranx``."""
    return IrMeasuresAdapter("ranx")


def adapter_trectools() -> IrMeasuresAdapter:
    """``ir_measures.trectools``."""
    return IrMeasuresAdapter("trectools")


def adapter_gdeval() -> IrMeasuresAdapter:
    """``ir_measures.gdeval``."""
    return IrMeasuresAdapter("gdeval")
