"""The ``unjudged`` axis: a retrieved document the qrels do not judge (``ndcg.unjudged``).

Each choice takes the run's documents, those without a judgment having ``gain=None``, and
returns the documents that are ranked, every one with a gain.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ndcgspec.reference.arithmetic import number
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.rejection import rejection


def zero(documents: Sequence[ScoredDocument], qid: str) -> list[ScoredDocument]:
    """``ndcg.unjudged.zero``: gain 0, and the document keeps its rank."""
    return [dataclasses.replace(d, gain=number(0)) if d.gain is None else d for d in documents]


def condense(documents: Sequence[ScoredDocument], qid: str) -> list[ScoredDocument]:
    """``ndcg.unjudged.condense``: removed before ranks are assigned (Sakai 2007)."""
    return [d for d in documents if d.gain is not None]


def error(documents: Sequence[ScoredDocument], qid: str) -> list[ScoredDocument]:
    """``ndcg.unjudged.error``: an unjudged retrieved document is rejected."""
    for d in documents:
        if d.gain is None:
            raise rejection(
                "unjudged", f"document {d.docid!r} of query {qid!r} is not judged", d.where
            )
    return list(documents)


CHOICES: dict[str, Callable[[Sequence[ScoredDocument], str], list[ScoredDocument]]] = {
    "zero": zero,
    "condense": condense,
    "error": error,
}
