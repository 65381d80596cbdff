"""ndcgspec: a specification, exact reference and conformance suite for nDCG.

The Python API is ``ndcgspec.score(qrels, run, measures)`` (see ``ndcgspec.evaluation``);
it is imported on first use, so that ``import ndcgspec.<subpackage>`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ndcgspec.evaluation import Result, ScoreError, score

__all__ = ["Result", "ScoreError", "score"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from ndcgspec import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'ndcgspec' has no attribute {name!r}")
