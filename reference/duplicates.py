"""The ``duplicates`` axis: a document listed twice for one query (``ndcg.duplicates``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ndcgspec.reference.inputs import Posting
from ndcgspec.reference.rejection import rejection


def error(postings: Sequence[Posting], qid: str) -> list[Posting]:
    """``ndcg.duplicates.error``: a repeated document id is rejected."""
    seen: set[str] = set()
    for posting in postings:
        if posting.docid in seen:
            raise rejection(
                "duplicates",
                f"duplicate document {posting.docid!r} for query {qid!r}",
                posting.where,
            )
        seen.add(posting.docid)
    return list(postings)


def first(postings: Sequence[Posting], qid: str) -> list[Posting]:
    """``ndcg.duplicates.first``: keep the occurrence with the highest score, the earliest
    of equal scores; kept postings stay in run order."""
    best: dict[str, int] = {}
    for index, posting in enumerate(postings):
        held = best.get(posting.docid)
        if held is None or posting.score > postings[held].score:
            best[posting.docid] = index
    kept = set(best.values())
    return [p for i, p in enumerate(postings) if i in kept]


def keep(postings: Sequence[Posting], qid: str) -> list[Posting]:
    """``ndcg.duplicates.keep``: every occurrence stays, a document of its own."""
    return list(postings)


CHOICES: dict[str, Callable[[Sequence[Posting], str], list[Posting]]] = {
    "error": error,
    "first": first,
    "keep": keep,
}
