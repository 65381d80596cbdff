"""ndcgspec: a specification, exact reference and conformance suite for nDCG.

The Python API is ``ndcgspec.score(qrels, run, measures)``, and ``ndcgspec.score_runs(qrels,
runs, measures)`` for many runs against qrels read once (see ``ndcgspec.evaluation``);
the adapter SDK, which wraps an nDCG implementation for ``ndcgspec run`` and ``identify``, is
``trec_adapter``, ``arrays_adapter``, ``Adapter``, ``Values`` and ``Rejected`` (see
``ndcgspec.harness.adapters.base`` and ``docs/adapters.md``). Both are imported on first use,
so that ``import ndcgspec.<subpackage>`` stays light.
``ndcgspec.__version__`` is the installed distribution's version, the one ``ndcgspec
--version`` prints, read from its metadata when first asked for.
"""

from __future__ import annotations

# The typing module costs a few milliseconds of every start; type checkers read the name
# TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ndcgspec.evaluation import ScoreError, score, score_runs
    from ndcgspec.harness.adapters.base import (
        Adapter,
        Rejected,
        Values,
        arrays_adapter,
        trec_adapter,
    )
    from ndcgspec.reference.result import Result

    __version__: str

__all__ = [
    "Adapter",
    "Rejected",
    "Result",
    "ScoreError",
    "Values",
    "arrays_adapter",
    "score",
    "score_runs",
    "trec_adapter",
]
_SCORING = ("Result", "ScoreError", "score", "score_runs")


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # Imported here, as the rest: importlib.metadata costs about 20 ms of a start-up.
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ndcgspec")
        except PackageNotFoundError:
            return "unknown"
    if name in _SCORING:
        from ndcgspec import evaluation

        return getattr(evaluation, name)
    if name in __all__:
        from ndcgspec.harness.adapters import base

        return getattr(base, name)
    raise AttributeError(f"module 'ndcgspec' has no attribute {name!r}")
