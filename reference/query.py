"""nDCG of one query, composing the axes in the order of ``ndcg.definition.order``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import mpmath

from ndcgspec.reference import duplicates, empty, fractional, negative, ties, unjudged
from ndcgspec.reference.arithmetic import (
    MP,
    PerSetting,
    Real,
    computing_with,
    correctly_rounded,
    fsum,
    is_zero,
    number,
    sign,
)
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import computing_mp, held
from ndcgspec.reference.cutoff import cut
from ndcgspec.reference.discount import RankWeights
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.gain import check_label, gain
from ndcgspec.reference.ideal import IdealSources, ideal_gains
from ndcgspec.reference.inputs import Judgment, Posting
from ndcgspec.reference.precision import working_precision


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


class Trace(Sequence[TraceRow]):
    """The explain trace of a query, computed when first read (in the reading thread), at the
    working precision its query was evaluated at."""

    def __init__(self, compute: Callable[[], tuple[TraceRow, ...]]) -> None:
        self._compute, self._dps = compute, computing_mp().dps
        self._rows: tuple[TraceRow, ...] | None = None

    def _all(self) -> tuple[TraceRow, ...]:
        if self._rows is None:
            with working_precision(self._dps), computing_with(MP):
                self._rows = self._compute()
        return self._rows

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())


@dataclass(frozen=True)
class QueryResult:
    """DCG, IDCG and nDCG of one query, correctly rounded (``ndcg.precision``); `ndcg` None
    is undefined (``ndcg.definition.ndcg``).

    `in_mean` says whether the query enters the aggregate (``ndcg.empty``); `value` is the true
    nDCG, which the mean is taken of (None when undefined, or when not known).
    """

    qid: str
    ndcg: mpmath.mpf | None
    dcg: mpmath.mpf
    idcg: mpmath.mpf
    in_mean: bool
    trace: Sequence[TraceRow]
    value: Real | None = None


def judged_gain(judgment: Judgment, config: Config) -> tuple[Decimal | None, Any | None]:
    """The label after the fractional and negative axes and its gain; (None, None) when the
    negative axis turns the judgment into no judgment (``ndcg.negative.unjudged``)."""
    check_label(judgment.label, config, judgment.where)
    label = fractional.CHOICES[config.choice("fractional")](judgment.label, judgment.where)
    if label >= 0:
        return label, gain(label, config)
    value = negative.CHOICES[config.choice("negative")](label, config, judgment.where)
    return (None, None) if value is None else (label, value)


def _resolved(
    judgments: Mapping[str, Judgment], config: Config
) -> dict[str, tuple[Decimal | None, Any | None]]:
    """Each judged document's label and gain; equal labels share one gain, so that an
    enclosure of a gain is never compared with a copy of itself."""
    known: dict[Decimal, tuple[Decimal | None, Any | None]] = {}
    resolved = {}
    for docid, judgment in judgments.items():
        if judgment.label not in known:
            known[judgment.label] = judged_gain(judgment, config)
        resolved[docid] = known[judgment.label]
    return resolved


def _ranked(
    qid: str,
    resolved: Mapping[str, tuple[Decimal | None, Any | None]],
    postings: Sequence[Posting],
    config: Config,
) -> list[ScoredDocument]:
    """The documents of the ranking after the duplicates and unjudged axes, in run order: n of
    ``ndcg.definition.dcg`` is their number."""
    kept = duplicates.CHOICES[config.choice("duplicates")](postings, qid)
    documents = [
        ScoredDocument(p.docid, p.score, *resolved.get(p.docid, (None, None)), where=p.where)
        for p in kept
    ]
    return unjudged.CHOICES[config.choice("unjudged")](documents, qid)


def ranked_length(
    qid: str, judgments: Mapping[str, Judgment], postings: Sequence[Posting], config: Config
) -> int:
    """n, the length of the ranking after the duplicates and unjudged axes
    (``ndcg.definition.dcg``)."""
    with computing_with(MP):
        return len(_ranked(qid, _resolved(judgments, config), postings, config))


def _ranking_and_ideal(
    qid: str, judgments: Mapping[str, Judgment], postings: Sequence[Posting], config: Config
) -> tuple[list[tuple[ScoredDocument, Any]], list[Any]]:
    """The credited ranking, cut at k, and the ideal list's gains, in the current numbers."""
    resolved = _resolved(judgments, config)
    ranked = _ranked(qid, resolved, postings, config)
    ranking = cut(ties.rank(ranked, config), config)
    sources = IdealSources(
        judged=[g for _, g in resolved.values() if g is not None],
        retrieved=[d.gain for d in ranked],
        top_k=[credit for _, credit in ranking],
    )
    return ranking, ideal_gains(sources, config)


def _discounted_sums(
    ranking: Sequence[tuple[ScoredDocument, Any]], ideal: Sequence[Any], weights: RankWeights
) -> tuple[Any, Any]:
    """DCG and IDCG (``ndcg.definition.dcg``, ``ndcg.definition.idcg``), each rank's discount
    computed once for both; a gain of exactly 0 adds exactly 0, whatever its discount."""
    lists = ([credit for _, credit in ranking], list(ideal))
    terms: tuple[list[Any], list[Any]] = ([], [])
    for index in range(max(map(len, lists))):
        gains = [(side, g[index]) for side, g in enumerate(lists) if index < len(g)]
        gains = [(side, gain) for side, gain in gains if not is_zero(gain)]
        if gains:
            weight = weights(index + 1)
            for side, gain in gains:
                terms[side].append(gain * weight)
    return fsum(terms[0]), fsum(terms[1])


def _trace(
    ranking: Sequence[tuple[ScoredDocument, mpmath.mpf]],
    ideal: Sequence[mpmath.mpf],
    weights: RankWeights,
) -> tuple[TraceRow, ...]:
    """The running sums at the working precision, for display (``ndcgspec explain``)."""
    rows = []
    dcg = idcg = number(0)
    for index in range(max(len(ranking), len(ideal))):
        rank = index + 1
        weight = weights(rank)
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


def rounded(value: Real) -> mpmath.mpf:
    """`value` correctly rounded to the output digits (``ndcg.precision``), held as an mpf at
    the working precision, which keeps every one of those digits."""
    return held(str(correctly_rounded(value)))


def evaluate_query(
    qid: str,
    judgments: Mapping[str, Judgment],
    postings: Sequence[Posting],
    config: Config,
    weights: RankWeights | None = None,
) -> QueryResult:
    """nDCG, DCG, IDCG and the explain trace of one query (``ndcg.definition``): each value
    correctly rounded (``ndcg.precision``), the true nDCG kept for the mean. `weights` are
    the discounts of the evaluation the query belongs to (its own when not given)."""
    weights = weights or RankWeights(config)
    trace = Trace(lambda: _trace(*_ranking_and_ideal(qid, judgments, postings, config), weights))
    sums = PerSetting(
        lambda: _discounted_sums(*_ranking_and_ideal(qid, judgments, postings, config), weights)
    )
    dcg, idcg = Real(lambda: sums()[0]), Real(lambda: sums()[1])
    value: Real | None
    if sign(idcg) > 0:
        value, in_mean = Real(lambda: dcg() / idcg()), True
        ndcg = rounded(value)
    else:
        n = ranked_length(qid, judgments, postings, config)
        ndcg, in_mean = empty.CHOICES[config.choice("empty")](qid, n)
        value = None if ndcg is None else Real.of(ndcg)
    return QueryResult(qid, ndcg, rounded(dcg), rounded(idcg), in_mean, trace, value)
