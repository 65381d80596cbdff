"""The built-in adapters of other nDCG implementations: name → ``module:object``.

Each target imports its library only when loaded (``harness/adapters/peers/common.py``)."""

from __future__ import annotations

_PEERS = "ndcgspec.harness.adapters.peers."

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
}

# The library each preset of spec/presets.yaml that names one is computed by.
PRESET_ADAPTERS: dict[str, str] = {
    "pytrec_eval": "pytrec_eval",
    "ir_measures": "ir_measures",
    "ranx": "ranx",
    "ranx_burges": "ranx",
    "sklearn": "sklearn",
    "torchmetrics": "torchmetrics",
    "lightgbm": "lightgbm",
    "xgboost": "xgboost",
    "xgboost_minus": "xgboost",
    "xgboost_linear": "xgboost",
    "catboost": "catboost",
    "catboost_exp": "catboost",
}
