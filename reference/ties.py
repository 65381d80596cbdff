"""The ``ties`` axis: the order of documents with equal scores (``ndcg.ties``).

Ranking is by score descending first; each choice orders one tie group (documents whose
scores are numerically equal, in run order) and says what gain each is credited with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby
from typing import Any

from ndcgspec.reference.arithmetic import Ordered, fsum
from ndcgspec.reference.config import Config
from ndcgspec.reference.document import ScoredDocument

Credited = list[tuple[ScoredDocument, Any]]


def _own_gains(group: Sequence[ScoredDocument]) -> Credited:
    return [(d, d.gain) for d in group]


def input_order(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.input``: order of appearance in the run."""
    return _own_gains(group)


def docid_key(docid: str) -> bytes:
    """What ``ndcg.ties.docid-desc`` and ``ndcg.ties.docid-asc`` sort tied documents on: the
    UTF-8 bytes of the id, compared as unsigned bytes (C's strcmp, as trec_eval)."""
    return docid.encode("utf-8")


def docid_desc(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.docid-desc``: document id descending by `docid_key`, as trec_eval."""
    return _own_gains(sorted(group, key=lambda d: docid_key(d.docid), reverse=True))


def docid_asc(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.docid-asc``: document id ascending by `docid_key`."""
    return _own_gains(sorted(group, key=lambda d: docid_key(d.docid)))


def average(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.average``: each document credited with the group's mean gain
    (McSherry & Najork 2008)."""
    mean = fsum(d.gain for d in group) / len(group)
    return [(d, mean) for d in group]


def pessimistic(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.pessimistic``: lowest gain first, run order among equal gains."""
    return _own_gains(sorted(group, key=lambda d: Ordered(d.gain)))


def optimistic(group: Sequence[ScoredDocument]) -> Credited:
    """``ndcg.ties.optimistic``: highest gain first, run order among equal gains."""
    return _own_gains(sorted(group, key=lambda d: Ordered(d.gain), reverse=True))


CHOICES: dict[str, Callable[[Sequence[ScoredDocument]], Credited]] = {
    "input": input_order,
    "docid-desc": docid_desc,
    "docid-asc": docid_asc,
    "average": average,
    "pessimistic": pessimistic,
    "optimistic": optimistic,
}


def rank(documents: Sequence[ScoredDocument], config: Config) -> Credited:
    """The ranking: score descending, each tie group ordered by the ties choice."""
    by_score = sorted(documents, key=lambda d: d.score, reverse=True)
    order = CHOICES[config.choice("ties")]
    ranking: Credited = []
    for _, group in groupby(by_score, key=lambda d: d.score):
        ranking.extend(order(list(group)))
    return ranking
