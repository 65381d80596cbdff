"""ndcgspec: a specification, exact reference and conformance suite for nDCG.

The Python API is ``ndcgspec.score(qrels, run, measures)`` (see ``ndcgspec.evaluation``);
it is imported on first use, so that ``import ndcgspec.<subpackage>`` stays light.
``ndcgspec.__version__`` is the installed distribution's version, the one ``ndcgspec
--version`` prints, read from its metadata when first asked for.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ndcgspec.evaluation import Result, ScoreError, score

    __version__: str

__all__ = ["Result", "ScoreError", "score"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        try:
            return package_version("ndcgspec")
        except PackageNotFoundError:
            return "unknown"
    if name in __all__:
        from ndcgspec import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'ndcgspec' has no attribute {name!r}")
