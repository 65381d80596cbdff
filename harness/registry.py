"""The built-in adapters, the one registry of their names: each Python adapter's name →
``module:object`` (the reference and the adapters of other nDCG implementations), each
protocol program's name → how it runs, and which adapter each preset describes (stated in
``spec/presets.yaml``). Each module is written out whole, so that what names a peer's module
is seen as importing it (``tests/test_architecture.py``): the harness, which loads the
adapters, may import the peers, and the SDK below them (``harness.adapters``) knows none.

Each target imports its library only when loaded (``harness/adapters/peers/common.py``)."""

from __future__ import annotations

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.reference.config import presets

PEER_ADAPTERS: dict[str, str] = {
    "pytrec_eval": "ndcgspec.harness.adapters.peers.pytrec_eval:adapter",
    "ir_measures": "ndcgspec.harness.adapters.peers.ir_measures:adapter",
    "ir_measures-pytrec_eval": "ndcgspec.harness.adapters.peers.ir_measures:adapter_pytrec_eval",
    "ir_measures-ranx": "ndcgspec.harness.adapters.peers.ir_measures:adapter_ranx",
    "ir_measures-trectools": "ndcgspec.harness.adapters.peers.ir_measures:adapter_trectools",
    "ir_measures-gdeval": "ndcgspec.harness.adapters.peers.ir_measures:adapter_gdeval",
    "ranx": "ndcgspec.harness.adapters.peers.ranx:adapter",
    "trectools": "ndcgspec.harness.adapters.peers.trectools:adapter",
    "sklearn": "ndcgspec.harness.adapters.peers.sklearn:adapter",
    "sklearn-ignore-ties": "ndcgspec.harness.adapters.peers.sklearn:adapter_ignore_ties",
    "torchmetrics": "ndcgspec.harness.adapters.peers.torchmetrics:adapter",
    "torchmetrics-functional": "ndcgspec.harness.adapters.peers.torchmetrics:adapter_functional",
    "lightgbm": "ndcgspec.harness.adapters.peers.lightgbm:adapter",
    "xgboost": "ndcgspec.harness.adapters.peers.xgboost:adapter",
    "catboost": "ndcgspec.harness.adapters.peers.catboost:adapter",
    "numpy-snippet": "ndcgspec.harness.adapters.peers.numpy_snippet:adapter",
    "trec_eval": "ndcgspec.harness.adapters.peers.trec_eval:adapter",
    "spark-mllib": "ndcgspec.harness.adapters.peers.spark_mllib:adapter",
    "spark-mllib-relevance": "ndcgspec.harness.adapters.peers.spark_mllib:adapter_relevance",
    "spark-ml": "ndcgspec.harness.adapters.peers.spark_mllib:adapter_evaluator",
    "rank-validation": "ndcgspec.harness.adapters.peers.rank_validation:adapter",
    "rankkit": "ndcgspec.harness.adapters.peers.rankkit:adapter",
    "evret": "ndcgspec.harness.adapters.peers.evret:adapter",
    "szl-retrieval-bench": "ndcgspec.harness.adapters.peers.szl_retrieval_bench:adapter",
    "rankereval": "ndcgspec.harness.adapters.peers.rankereval:adapter",
    "toolkit-rag-quality": "ndcgspec.harness.adapters.peers.toolkit_rag_quality:adapter",
    "rag-eval-lite": "ndcgspec.harness.adapters.peers.rag_eval_lite:adapter",
    "pyltr": "ndcgspec.harness.adapters.peers.pyltr:adapter",
}


BUILTIN_ADAPTERS: dict[str, str] = {
    "reference": "ndcgspec.harness.adapters.reference:adapter",
    **PEER_ADAPTERS,
}
"""Every built-in Python adapter, served over the protocol by ``harness/host.py``."""

BUILTIN_PROGRAMS: dict[str, tuple[str, str]] = {"node-example": ("node", "ndcg_adapter.mjs")}
"""The built-in protocol programs: name → (interpreter, program file shipped beside this
module)."""


def builtin_names() -> list[str]:
    """Every built-in adapter's name: the Python adapters, then the protocol programs."""
    return [*BUILTIN_ADAPTERS, *BUILTIN_PROGRAMS]


def adapter_target(name: str) -> str:
    """The ``module:object`` a built-in name stands for, or `name` itself when it is one."""
    if name in BUILTIN_ADAPTERS:
        return BUILTIN_ADAPTERS[name]
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        builtins = ", ".join(BUILTIN_ADAPTERS)
        raise AdapterError(
            f"adapter {name!r}: expected a built-in name ({builtins}) or module:object"
        )
    return name


def preset_adapters() -> dict[str, str]:
    """preset id → the built-in adapter of the library it describes, for every preset of
    ``spec/presets.yaml`` that names one (its ``adapter`` field), in file order."""
    return {p["id"]: p["adapter"] for p in presets() if "adapter" in p}
