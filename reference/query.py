"""nDCG of one query, composing the axes in the order of ``ndcg.definition.order``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import mpmath

from ndcgspec.reference import duplicates, empty, fractional, negative, ties, unjudged
from ndcgspec.reference.config import Config
from ndcgspec.reference.cutoff import cut
from ndcgspec.reference.discount import discount
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.gain import check_label, gain
from ndcgspec.reference.ideal import ideal_gains
from ndcgspec.reference.inputs import Judgment, Posting


@dataclass(frozen=True)
class TraceRow:
    """One rank of the explain trace: the ranking's side, then the ideal list's side.

    Fields of a side are None past the end of that side's list.
    """

    rank: int
    docid: str | None
    label: Decimal | None
    gain: mpmath.mpf | None
    discount: mpmath.mpf
    discounted_gain: mpmath.mpf | None
    dcg: mpmath.mpf
    ideal_gain: mpmath.mpf | None
    idcg: mpmath.mpf


@dataclass(frozen=True)
class QueryResult:
    """DCG, IDCG and nDCG of one query; `ndcg` None is undefined (``ndcg.definition.ndcg``).

    `in_mean` says whether the query enters the aggregate (``ndcg.empty``).
    """

    qid: str
    ndcg: mpmath.mpf | None
    dcg: mpmath.mpf
    idcg: mpmath.mpf
    in_mean: bool
    trace: tuple[TraceRow, ...]


def judged_gain(judgment: Judgment, config: Config) -> tuple[Decimal | None, mpmath.mpf | None]:
    """The label after the fractional and negative axes and its gain; (None, None) when the
    negative axis turns the judgment into no judgment (``ndcg.negative.unjudged``)."""
    check_label(judgment.label, config, judgment.where)
    label = fractional.CHOICES[config.choice("fractional")](judgment.label, judgment.where)
    if label >= 0:
        return label, gain(label, config)
    value = negative.CHOICES[config.choice("negative")](label, config, judgment.where)
    return (None, None) if value is None else (label, value)


def _trace(
    ranking: Sequence[tuple[ScoredDocument, mpmath.mpf]],
    ideal: Sequence[mpmath.mpf],
    config: Config,
) -> tuple[TraceRow, ...]:
    rows = []
    dcg = idcg = mpmath.mpf(0)
    for index in range(max(len(ranking), len(ideal))):
        rank = index + 1
        weight = discount(rank, config)
        document, credit = ranking[index] if index < len(ranking) else (None, None)
        ideal_gain = ideal[index] if index < len(ideal) else None
        discounted = None if credit is None else credit * weight
        dcg += discounted or 0
        idcg += 0 if ideal_gain is None else ideal_gain * weight
        rows.append(
            TraceRow(
                rank=rank,
                docid=None if document is None else document.docid,
                label=None if document is None else document.label,
                gain=credit,
                discount=weight,
                discounted_gain=discounted,
                dcg=dcg,
                ideal_gain=ideal_gain,
                idcg=idcg,
            )
        )
    return tuple(rows)


def evaluate_query(
    qid: str, judgments: Mapping[str, Judgment], postings: Sequence[Posting], config: Config
) -> QueryResult:
    """nDCG, DCG, IDCG and the explain trace of one query (``ndcg.definition``)."""
    resolved = {docid: judged_gain(j, config) for docid, j in judgments.items()}
    kept = duplicates.CHOICES[config.choice("duplicates")](postings, qid)
    documents = [
        ScoredDocument(p.docid, p.score, *resolved.get(p.docid, (None, None)), where=p.where)
        for p in kept
    ]
    ranked = unjudged.CHOICES[config.choice("unjudged")](documents, qid)
    ranking = cut(ties.rank(ranked, config), config)
    ideal = ideal_gains(
        [g for _, g in resolved.values() if g is not None], [d.gain for d in ranked], config
    )
    trace = _trace(ranking, ideal, config)
    dcg = trace[-1].dcg if trace else mpmath.mpf(0)
    idcg = trace[-1].idcg if trace else mpmath.mpf(0)
    if idcg > 0:
        ndcg, in_mean = dcg / idcg, True
    else:
        ndcg, in_mean = empty.CHOICES[config.choice("empty")](qid)
    return QueryResult(qid, ndcg, dcg, idcg, in_mean, trace)
