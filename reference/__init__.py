"""The exact reference implementation of ``spec/ndcg.yaml``: one small module per axis,
mpmath arithmetic at the spec's precision, written for clarity rather than speed.

The names below are imported from their modules on first use, so that ``import
ndcgspec.reference.errors`` (every command's error handling) or ``.config`` (``ndcgspec
explain``) loads neither mpmath nor the evaluation. `evaluate` is imported from its module,
``ndcgspec.reference.evaluate``, whose name the package's attribute holds once it is loaded."""

from __future__ import annotations

from importlib import import_module

# The typing module costs milliseconds of every start (issue 41); type checkers read the name
# TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ndcgspec.reference.config import Config
    from ndcgspec.reference.errors import ConfigError, InputError, NdcgSpecError
    from ndcgspec.reference.evaluate import Evaluation
    from ndcgspec.reference.inputs import Judgment, Posting, qrels_from_labels, run_from_scores
    from ndcgspec.reference.location import Location
    from ndcgspec.reference.query import QueryResult, TraceRow

__all__ = [
    "Config",
    "ConfigError",
    "Evaluation",
    "InputError",
    "Judgment",
    "Location",
    "NdcgSpecError",
    "Posting",
    "QueryResult",
    "TraceRow",
    "qrels_from_labels",
    "run_from_scores",
]
_MODULE_OF = {
    "Config": "config",
    "ConfigError": "errors",
    "InputError": "errors",
    "Location": "location",
    "NdcgSpecError": "errors",
    "Evaluation": "evaluate",
    "Judgment": "inputs",
    "Posting": "inputs",
    "qrels_from_labels": "inputs",
    "run_from_scores": "inputs",
    "QueryResult": "query",
    "TraceRow": "query",
}


def __getattr__(name: str) -> Any:
    if name in _MODULE_OF:
        return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
