"""The inputs of an evaluation: qrels and a run, as exact decimals (``ndcg.definition.inputs``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ndcgspec.reference.decimals import exact_decimal
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.location import Location


@dataclass(frozen=True)
class Judgment:
    """The label of one judged document; `where` names its origin (file and line) for errors."""

    label: Decimal
    where: Location | None = None


@dataclass(frozen=True)
class Posting:
    """One (document id, score) line of a run for a query; `where` names its origin."""

    docid: str
    score: Decimal
    where: Location | None = None


Qrels = Mapping[str, Mapping[str, Judgment]]
Run = Mapping[str, Sequence[Posting]]


def add_judgment(
    qrels: dict[str, dict[str, Judgment]], qid: str, docid: str, judgment: Judgment
) -> None:
    """Record one judgment; a document judged twice for one query is an InputError at the
    second, whether or not the labels agree (``ndcg.input.duplicate-judgment``)."""
    judged = qrels.setdefault(qid, {})
    first = judged.get(docid)
    if first is not None:
        at = f" (first at {first.where})" if first.where else ""
        raise InputError(
            f"document {docid!r} is judged twice for query {qid!r}{at}", judgment.where
        )
    judged[docid] = judgment


def qrels_from_labels(
    labels: Mapping[str, Mapping[str, str | int | Decimal]],
) -> dict[str, dict[str, Judgment]]:
    """Qrels from plain ``{qid: {docid: label}}``; labels are exact decimals or their text."""
    return {
        q: {d: Judgment(exact_decimal(label)) for d, label in docs.items()}
        for q, docs in labels.items()
    }


def run_from_scores(
    scores: Mapping[
        str, Mapping[str, str | int | Decimal] | Iterable[tuple[str, str | int | Decimal]]
    ],
) -> dict[str, list[Posting]]:
    """A run from ``{qid: {docid: score}}`` or ``{qid: [(docid, score), ...]}``, in that order."""
    run: dict[str, list[Posting]] = {}
    for qid, entries in scores.items():
        pairs = entries.items() if isinstance(entries, Mapping) else entries
        run[qid] = [Posting(docid, exact_decimal(score)) for docid, score in pairs]
    return run
