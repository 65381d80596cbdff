"""The built-in adapters, the one registry of their names: each Python adapter's name →
``module:object`` (the reference and the adapters of other nDCG implementations), each
protocol program's name → how it runs, and which adapter each preset describes (stated in
``spec/presets.yaml``).

Each target imports its library only when loaded (``harness/adapters/peers/common.py``)."""

from __future__ import annotations

from ndcgspec.reference.config import presets

_ADAPTERS = "ndcgspec.harness.adapters."
_PEERS = f"{_ADAPTERS}peers."

PEER_ADAPTERS: dict[str, str] = {
    "pytrec_eval": f"{_PEERS}pytrec_eval:adapter",
    "ir_measures": f"{_PEERS}ir_measures:adapter",
    "ir_measures-pytrec_eval": f"{_PEERS}ir_measures:adapter_pytrec_eval",
    "ir_measures-ranx": f"{_PEERS}ir_measures:adapter_ranx",
    "ir_measures-trectools": f"{_PEERS}ir_measures:adapter_trectools",
    "ir_measures-gdeval": f"{_PEERS}ir_measures:adapter_gdeval",
    "ranx": f"{_PEERS}ranx:adapter",
    "trectools": f"{_PEERS}trectools:adapter",
    "sklearn": f"{_PEERS}sklearn:adapter",
    "sklearn-ignore-ties": f"{_PEERS}sklearn:adapter_ignore_ties",
    "torchmetrics": f"{_PEERS}torchmetrics:adapter",
    "torchmetrics-functional": f"{_PEERS}torchmetrics:adapter_functional",
    "lightgbm": f"{_PEERS}lightgbm:adapter",
    "xgboost": f"{_PEERS}xgboost:adapter",
    "catboost": f"{_PEERS}catboost:adapter",
    "numpy-snippet": f"{_PEERS}numpy_snippet:adapter",
    "trec_eval": f"{_PEERS}trec_eval:adapter",
    "spark-mllib": f"{_PEERS}spark_mllib:adapter",
    "spark-mllib-relevance": f"{_PEERS}spark_mllib:adapter_relevance",
    "spark-ml": f"{_PEERS}spark_mllib:adapter_evaluator",
    "rank-validation": f"{_PEERS}rank_validation:adapter",
    "rankkit": f"{_PEERS}rankkit:adapter",
    "evret": f"{_PEERS}evret:adapter",
    "szl-retrieval-bench": f"{_PEERS}szl_retrieval_bench:adapter",
    "rankereval": f"{_PEERS}rankereval:adapter",
    "toolkit-rag-quality": f"{_PEERS}toolkit_rag_quality:adapter",
    "rag-eval-lite": f"{_PEERS}rag_eval_lite:adapter",
    "pyltr": f"{_PEERS}pyltr:adapter",
}


BUILTIN_ADAPTERS: dict[str, str] = {"reference": f"{_ADAPTERS}reference:adapter", **PEER_ADAPTERS}
"""Every built-in Python adapter, served over the protocol by ``harness/host.py``."""

BUILTIN_PROGRAMS: dict[str, tuple[str, str]] = {"node-example": ("node", "ndcg_adapter.mjs")}
"""The built-in protocol programs: name → (interpreter, program file shipped beside this
module)."""


def builtin_names() -> list[str]:
    """Every built-in adapter's name: the Python adapters, then the protocol programs."""
    return [*BUILTIN_ADAPTERS, *BUILTIN_PROGRAMS]


def preset_adapters() -> dict[str, str]:
    """preset id → the built-in adapter of the library it describes, for every preset of
    ``spec/presets.yaml`` that names one (its ``adapter`` field), in file order."""
    return {p["id"]: p["adapter"] for p in presets() if "adapter" in p}
