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
from subprocess import CalledProcessError
from typing import Any

from ndcgspec.harness.adapters.base import (
    DICT_NOT_OBSERVABLE,
    CaseInput,
    Rejected,
    Values,
    distribution_version,
    label_number,
)
from ndcgspec.harness.adapters.peers.common import (
    PeerAdapter,
    require,
)
from ndcgspec.reference import Config

DISTRIBUTION = "ir-measures"
EXTRA = "ir-measures"
ADAPTERS = {
    "ir_measures": "adapter",
    "ir_measures-pytrec_eval": "adapter_pytrec_eval",
    "ir_measures-ranx": "adapter_ranx",
    "ir_measures-trectools": "adapter_trectools",
    "ir_measures-gdeval": "adapter_gdeval",
}
LIBRARY_PROVIDERS = ("ranx", "trectools")
"""The providers whose library ir_measures does not install; each is the name of its module and
of ndcgspec's extra that installs it."""


def measure(ir_measures: Any, config: Config, cutoff: int | None) -> Any:
    """The ir_measures measure object of a configuration's gain choice (with its gain map under
    ``gain=map``) and unjudged choice, at `cutoff`."""
    params: dict[str, Any] = {}
    gain = config.choice("gain")
    if gain == "exponential":
        params["dcg"] = "exp-log2"
    if gain == "map":
        params["gains"] = {label_number(k): label_number(v) for k, v in config.param("gain_map")}
    if config.choice("unjudged") == "condense":
        params["judged_only"] = True
    chosen = ir_measures.nDCG(**params) if params else ir_measures.nDCG
    return chosen if cutoff is None else chosen @ cutoff


CAPABILITIES: dict[str, list[str]] = {
    "gain": ["linear", "exponential", "map"],
    "unjudged": ["zero", "condense"],
    "negative": ["unjudged"],
    "fractional": ["error"],
}


class IrMeasuresAdapter(PeerAdapter):
    """One provider of ir_measures, or the default pipeline when `provider` is None."""

    def __init__(
        self,
        provider: str | None = None,
        capabilities: Mapping[str, list[str]] = CAPABILITIES,
        decimal_places: int | None = None,
    ) -> None:
        self.ir_measures = require("ir_measures", EXTRA)
        if provider in LIBRARY_PROVIDERS:
            # Else ir_measures would fail every case alone, saying only "not available".
            require(provider, provider)
        self.provider = provider
        super().__init__(
            name="ir_measures" if provider is None else f"ir_measures-{provider}",
            version=distribution_version(DISTRIBUTION),
            capabilities=dict(capabilities),
            decimal_places=decimal_places,
            library=DISTRIBUTION,
            not_observable=DICT_NOT_OBSERVABLE,
            # ranx compiles its kernels (numba) in each process on first use, as the ranx
            # adapter's does: one process serves it (`Adapter.processes`).
            processes=1 if provider == "ranx" else None,
        )

    def _engine(self) -> Any:
        if self.provider is None:
            return self.ir_measures
        return getattr(self.ir_measures, self.provider)

    def query_ids(self, case_input: CaseInput) -> dict[str, str]:
        """The id each query is given to the library under: its own."""
        return {q: q for q in [*case_input.labels(), *case_input.rankings()]}

    def cutoff(self, case_input: CaseInput, cutoff: int | None) -> int | None:
        """The cutoff asked of the library for the configuration's `cutoff`: that one."""
        return cutoff

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """Per-query nDCG and the mean, from the chosen provider or pipeline."""
        irm = self.ir_measures
        ids = self.query_ids(case_input)
        qrels = [
            irm.Qrel(ids[q], d, label_number(v))
            for q, docs in case_input.labels().items()
            for d, v in docs.items()
        ]
        run = [
            irm.ScoredDoc(ids[q], d, float(s))
            for q, docs in case_input.rankings().items()
            for d, s in docs
        ]
        asked = measure(irm, config, self.cutoff(case_input, config.cutoff))
        engine = self._engine()
        try:
            found = {m.query_id: float(m.value) for m in engine.iter_calc([asked], qrels, run)}
            aggregate = engine.calc_aggregate([asked], qrels, run).get(asked)
        except TypeError as error:
            # pytrec_eval refuses a non-integer label with TypeError.
            raise Rejected(str(error)) from None
        except CalledProcessError as error:
            # gdeval.pl stops on a line it cannot read, such as a label that is not an integer
            # of at most 4.
            raise Rejected(f"gdeval.pl stopped with exit status {error.returncode}") from None
        per_query = {q: found[given] for q, given in ids.items() if given in found}
        return Values.with_aggregate(per_query, None if aggregate is None else float(aggregate))


class GdevalAdapter(IrMeasuresAdapter):
    """``ir_measures.gdeval``: the TREC Web track's gdeval.pl, which serves only
    ``nDCG(dcg='exp-log2')@k``, reads only numeric topic ids and prints 5 decimals."""

    def __init__(self) -> None:
        super().__init__(
            "gdeval",
            {**CAPABILITIES, "gain": ["exponential"], "unjudged": ["zero"]},
            decimal_places=5,
        )

    def query_ids(self, case_input: CaseInput) -> dict[str, str]:
        """Topic numbers 1, 2, ... in order of first appearance, qrels first, so that
        gdeval.pl, which sorts topics numerically, keeps the case's query order."""
        return {q: str(n) for n, q in enumerate(super().query_ids(case_input), start=1)}

    def cutoff(self, case_input: CaseInput, cutoff: int | None) -> int | None:
        """gdeval.pl requires a cutoff: none asks for one that no list reaches, ranking or
        judged, which cuts nothing."""
        if cutoff is not None:
            return cutoff
        lists = [*case_input.labels().values(), *case_input.rankings().values()]
        return max([len(items) for items in lists], default=1)


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
    return GdevalAdapter()
