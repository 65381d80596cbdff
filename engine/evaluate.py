"""The fast engine: the reference's numbers for large TREC files (spec anchor ``ndcg``).

The files are read once into columns (`read`) and ranked once (`rank`); each
configuration then touches mpmath only where a non-zero gain meets a discount. The gain of each
distinct label, the discount of each rank and the error a query raises all come from the plain
reference's own functions, so the definitions live in one place:

- DCG and IDCG add, in rank order, gain × discount at the spec's precision, the very
  operations of the reference (``ndcg.definition.dcg``, ``ndcg.definition.idcg``), so their
  digits are the reference's bit for bit; the ideal list is known from the count of each gain,
  and each product of a gain and a discount is computed once;
- the first query that is an error under a configuration is evaluated by the reference itself,
  which raises the error with its message and ``file:line``.

Input the columnar reader does not handle (or input errors) is scored by the plain reference,
with the reason logged on the ``ndcgspec`` logger (set ``NDCGSPEC_LOG=INFO`` to see it).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from mpmath.libmp import fzero, mpf_add, mpf_div, mpf_mul, round_nearest

from ndcgspec.engine.rank import (
    ConfigRanking,
    KeyTable,
    Ranked,
    exact_score,
    rank_config,
    rank_rows,
    widen,
)
from ndcgspec.engine.read import (
    QrelsColumns,
    RunColumns,
    Unsupported,
    read_qrels_columns,
    read_run_columns,
    token_texts,
)
from ndcgspec.engine.support import not_computed
from ndcgspec.reference import aggregate, empty
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal, working_precision
from ndcgspec.reference.discount import discount
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting, add_judgment
from ndcgspec.reference.query import QueryResult, evaluate_query, judged_gain
from ndcgspec.reference.trec_io import Source, opened

LOG = logging.getLogger("ndcgspec.fast")
LOG_ENV = "NDCGSPEC_LOG"
UNJUDGED, LABEL_ERROR = -1, -2
Raw = tuple[int, int, int, int]


def _log_if_asked() -> None:
    level = os.environ.get(LOG_ENV)
    if level and not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("ndcgspec: %(message)s"))
        LOG.addHandler(handler)
        LOG.setLevel(level.upper())


@dataclass
class GainClasses:
    """The distinct gains of a configuration, ascending, and each label's class: an index
    into `gains`, UNJUDGED (``ndcg.negative.unjudged``) or LABEL_ERROR."""

    gains: list[Raw]
    of_label: np.ndarray
    zero: int


def gain_classes(label_texts: Sequence[str], config: Config) -> GainClasses:
    """Resolve each distinct label once with the reference's `judged_gain`."""
    resolved: list[mpmath.mpf | str | None] = []
    for text in label_texts:
        try:
            resolved.append(judged_gain(Judgment(parse_decimal(text)), config)[1])
        except InputError:
            resolved.append("error")
    values = sorted({g for g in resolved if isinstance(g, mpmath.mpf)} | {mpmath.mpf(0)})
    index = {v: i for i, v in enumerate(values)}
    classes = [
        LABEL_ERROR if g == "error" else UNJUDGED if g is None else index[g] for g in resolved
    ]
    return GainClasses([v._mpf_ for v in values], np.array(classes, np.int64), index[0])


class DiscountedGains:
    """gain × discount of the reference (its `discount`, at the working precision), computed
    once per pair of a gain in `values` and a rank."""

    def __init__(self, config: Config, values: list[Raw]) -> None:
        self.config, self.values = config, values
        self.by_rank: dict[int, Raw] = {}
        self.terms: dict[tuple[int, int], Raw] = {}

    def __call__(self, value: int, rank: int) -> Raw:
        term = self.terms.get((value, rank))
        if term is None:
            weight = self.by_rank.get(rank)
            if weight is None:
                weight = self.by_rank[rank] = discount(rank, self.config)._mpf_
            term = mpf_mul(self.values[value], weight, _prec(), round_nearest)
            self.terms[value, rank] = term
        return term


class IdealSums:
    """``ndcg.definition.idcg`` added as the reference adds it: the ideal list's discounted
    gains in rank order, one rounding per addition. The list is given as (gain class, count)
    pairs, gains descending; the partial sum at the end of each run of one gain is kept, so
    ideal lists that begin alike share their additions."""

    def __init__(self, terms: DiscountedGains, k: int | None) -> None:
        self.terms, self.k = terms, k
        self.partial: dict[tuple[tuple[int, int], ...], Raw] = {}

    def __call__(self, pairs: list[tuple[int, int]]) -> Raw:
        prec, key, total, filled = _prec(), (), fzero, 0
        for cls, count in pairs:
            n = count if self.k is None else min(count, self.k - filled)
            key = (*key, (cls, n))
            cached = self.partial.get(key)
            if cached is None:
                for rank in range(filled + 1, filled + n + 1):
                    total = mpf_add(total, self.terms(cls, rank), prec, round_nearest)
                self.partial[key] = total
            else:
                total = cached
            filled += n
            if filled == self.k:
                break
        return total


def _judgment(qrels: QrelsColumns, row: int) -> Judgment:
    label = parse_decimal(qrels.label_texts[qrels.label_id[row]])
    return Judgment(label, f"{qrels.path}:{qrels.lines[row]}")


def _reject_judged_twice(qrels: QrelsColumns, table: KeyTable) -> None:
    """Raise the reference's error (``ndcg.input.duplicate-judgment``) when a document is
    judged twice: the rows of the queries concerned go, in file order, through the
    reference's `add_judgment`, which raises at the first repeated line."""
    copies = np.flatnonzero(table.first != np.arange(len(qrels.qidx)))
    if copies.size == 0:
        return
    rows = np.flatnonzero(np.isin(qrels.qidx, qrels.qidx[copies]))
    judged: dict[str, dict[str, Judgment]] = {}
    for docid, row in zip(token_texts(qrels.words[rows]), rows.tolist(), strict=True):
        add_judgment(judged, qrels.qids[qrels.qidx[row]], docid, _judgment(qrels, row))


def reference_inputs(
    qrels: QrelsColumns, run: RunColumns, q: int
) -> tuple[dict[str, Judgment], list[Posting]]:
    """One query's judgments and postings as the plain readers build them."""
    judged = np.flatnonzero(qrels.qidx == q)
    judgments = {
        docid: _judgment(qrels, row)
        for docid, row in zip(token_texts(qrels.words[judged]), judged.tolist(), strict=True)
    }
    inexact = dict(zip(run.inexact_rows.tolist(), run.inexact_texts, strict=True))
    rows = np.flatnonzero(run.qidx == q)
    if run.file_row is not None:
        rows = rows[np.argsort(run.file_row[rows])]
    postings = [
        Posting(
            docid,
            exact_score(run, row, inexact),
            f"{run.path}:{run.lines[run.file_index(row)]}",
        )
        for docid, row in zip(token_texts(run.words[rows]), rows.tolist(), strict=True)
    ]
    return judgments, postings


@dataclass
class Prepared:
    """What every configuration shares: the columns and the run's ranking order."""

    qrels: QrelsColumns
    run: RunColumns
    ranked: Ranked


def prepare(qrels: QrelsColumns, run: RunColumns) -> Prepared:
    """Join the run to the qrels by exact document id, and rank it once."""
    width = max(qrels.words.shape[1], run.words.shape[1])
    qrels.words, run.words = widen(qrels.words, width), widen(run.words, width)
    table = KeyTable(qrels.qidx, qrels.words, load=4)
    _reject_judged_twice(qrels, table)
    return Prepared(qrels, run, rank_rows(run, table.find(run.qidx, run.words, qrels.label_id)))


def _counts(qidx: np.ndarray, classes: np.ndarray, kept: np.ndarray, width: int) -> dict:
    """{query: [(class, count), ...] with classes descending} over the kept rows."""
    keys = qidx[kept].astype(np.int64) * width + classes[kept]
    distinct, counts = np.unique(keys, return_counts=True)
    out: dict[int, list[tuple[int, int]]] = {}
    for key, n in zip(distinct.tolist(), counts.tolist(), strict=True):
        out.setdefault(key // width, []).append((key % width, n))
    for pairs in out.values():
        pairs.reverse()
    return out


# Classes are ascending gains, so the positive ones lie above the zero class; under
# ndcg.negative.keep-in-ideal every class counts, and only the sentinels stay out.


def _judged_ideal(
    prep: Prepared, classes: GainClasses, ranking: ConfigRanking, every_gain: bool
) -> dict[int, list[tuple[int, int]]]:
    """``ndcg.ideal.judged``: the gain counts of every judged document."""
    row_class = classes.of_label[prep.qrels.label_id]
    kept = row_class >= 0 if every_gain else row_class > classes.zero
    return _counts(prep.qrels.qidx, row_class, kept, len(classes.gains))


def _retrieved_ideal(
    prep: Prepared, classes: GainClasses, ranking: ConfigRanking, every_gain: bool
) -> dict[int, list[tuple[int, int]]]:
    """``ndcg.ideal.retrieved``: the gain counts of the ranked documents."""
    row_class, width = ranking.gain_class, len(classes.gains)
    if not every_gain:
        return _counts(ranking.qidx, row_class, row_class > classes.zero, width)
    counts = _counts(ranking.qidx, row_class, row_class != classes.zero, width)
    return _with_retrieved_zeros(counts, ranking, classes.zero)


IDEAL_COUNTS = {"judged": _judged_ideal, "retrieved": _retrieved_ideal}


def _with_retrieved_zeros(
    counts: dict[int, list[tuple[int, int]]], ranking: ConfigRanking, zero: int
) -> dict[int, list[tuple[int, int]]]:
    """`counts` of the non-zero gains with each query's zero-gain documents put back: the
    ranking omits unjudged documents outside tie groups, yet under
    ``ndcg.negative.keep-in-ideal`` the zeros rank the negative gains of the ideal list."""
    for q, length in zip(ranking.queries.tolist(), ranking.lengths.tolist(), strict=True):
        pairs = counts.get(q, [])
        zeros = length - sum(n for _, n in pairs)
        if zeros:
            above = [p for p in pairs if p[0] > zero]
            counts[q] = [*above, (zero, zeros), *pairs[len(above) :]]
    return counts


def _prec() -> int:
    return mpmath.mp.prec


def _credits(
    classes: GainClasses, ranking: ConfigRanking, average: bool
) -> tuple[list[Raw], np.ndarray]:
    """Each kept row's credited gain as an index into a list of raw values: the class gain, or
    under ``ndcg.ties.average`` the mean gain of its tie group, computed as the reference does
    (fsum of the group's gains over its size) for every group of two or more."""
    values: list[Raw] = list(classes.gains)
    credit = ranking.gain_class.copy()
    if not average:
        return values, credit
    grouped = np.flatnonzero(ranking.tie_size > 1)
    if grouped.size == 0:
        return values, credit
    starts = grouped[np.r_[True, ranking.tie_group[grouped][1:] != ranking.tie_group[grouped][:-1]]]
    means: dict[tuple[int, ...], int] = {}
    gains = [mpmath.mp.make_mpf(g) for g in classes.gains]
    sizes = ranking.tie_size[starts].tolist()
    for start, size in zip(starts.tolist(), sizes, strict=True):
        members = tuple(ranking.gain_class[start : start + size].tolist())
        at = means.get(members)
        if at is None:
            mean = mpmath.fsum(gains[c] for c in members) / size
            at = means[members] = len(values)
            values.append(mean._mpf_)
        credit[start : start + size] = at
    return values, credit


def evaluate_prepared(prep: Prepared, config: Config) -> dict[str, Any]:
    """The JSON result object of `config`, equal to the plain reference's."""
    return evaluation_prepared(prep, config).to_json()


def evaluation_prepared(prep: Prepared, config: Config) -> Evaluation:
    """The evaluation of `config`, every value at the working precision, equal to the plain
    reference's `evaluate`."""
    qrels, run = prep.qrels, prep.run
    choices = {a: config.choice(a) for a in ("duplicates", "unjudged", "ties", "empty")}
    k = config.cutoff
    with working_precision():
        classes = gain_classes(qrels.label_texts, config)
        ranking = rank_config(prep.ranked, classes.of_label, classes.zero, choices)
        ideal = IDEAL_COUNTS[config.choice("ideal")](
            prep, classes, ranking, every_gain_enters(config)
        )
        queries = aggregate.CHOICES[config.choice("aggregate")](
            range(len(qrels.qids)), np.flatnonzero(run.present).tolist()
        )
        values, credit = _credits(classes, ranking, choices["ties"] == "average")
        terms = DiscountedGains(config, values)
        ideal_sum = IdealSums(terms, k)
        _raise_first_error(prep, config, classes, ranking, ideal, ideal_sum, queries)
        counted = ranking.rank <= k if k is not None else np.ones(len(ranking.rank), bool)
        # A credit of zero adds nothing to the DCG: only non-zero credits meet a discount.
        counted &= np.array([value[1] != 0 for value in values], bool)[credit]
        rows = np.flatnonzero(counted)
        spans = _spans(ranking.qidx[rows])
        rank_of, credit_of = ranking.rank[rows], credit[rows]
        prec, known = _prec(), terms.terms
        per_query = {}
        for q in queries:
            dcg = fzero
            low, high = spans.get(q, (0, 0))
            pairs = zip(credit_of[low:high].tolist(), rank_of[low:high].tolist(), strict=True)
            for pair in pairs:
                term = known.get(pair) or terms(*pair)
                if term[1]:
                    dcg = mpf_add(dcg, term, prec, round_nearest)
            idcg = ideal_sum(ideal[q]) if q in ideal else fzero
            qid = qrels.qids[q]
            if _positive(idcg):
                ndcg, in_mean = mpmath.mp.make_mpf(mpf_div(dcg, idcg, prec, round_nearest)), True
            else:
                ndcg, in_mean = empty.CHOICES[choices["empty"]](qid)
            per_query[qid] = QueryResult(
                qid, ndcg, mpmath.mp.make_mpf(dcg), mpmath.mp.make_mpf(idcg), in_mean, ()
            )
        mean = aggregate.mean({q: (r.ndcg, r.in_mean) for q, r in per_query.items()})
        return Evaluation(config, per_query, mean)


def _spans(qidx: np.ndarray) -> dict[int, tuple[int, int]]:
    if not len(qidx):
        return {}
    starts = np.flatnonzero(np.r_[True, qidx[1:] != qidx[:-1]])
    ends = np.r_[starts[1:], len(qidx)]
    return dict(
        zip(qidx[starts].tolist(), zip(starts.tolist(), ends.tolist(), strict=True), strict=True)
    )


def _positive(raw: Raw) -> bool:
    """Whether a raw mpf, (sign, mantissa, exponent, bits), is above 0."""
    return bool(raw[1]) and not raw[0]


def _raise_first_error(
    prep: Prepared,
    config: Config,
    classes: GainClasses,
    ranking: ConfigRanking,
    ideal: dict,
    ideal_sum: IdealSums,
    queries: list[int],
) -> None:
    """Let the reference evaluate the first query that is an error under `config`, so the
    error it raises is the reference's own."""
    flagged = np.zeros(len(prep.qrels.qids), bool)
    label_class = classes.of_label[prep.qrels.label_id]
    flagged[prep.qrels.qidx[label_class == LABEL_ERROR]] = True
    if config.choice("duplicates") == "error":
        flagged[: len(prep.ranked.has_duplicates)] |= prep.ranked.has_duplicates
    if config.choice("unjudged") == "error":
        flagged[ranking.unjudged_queries] = True
    if config.choice("empty") == "error":
        # Only positive gains make an ideal list unless zero and negative ones enter it too;
        # then a query with an ideal list may still have an IDCG of 0 or below.
        has_ideal = np.zeros(len(flagged), bool)
        every_gain = every_gain_enters(config)
        has_ideal[[q for q in ideal if not every_gain or _positive(ideal_sum(ideal[q]))]] = True
        flagged |= ~has_ideal
    for q in queries:
        if flagged[q]:
            judgments, postings = reference_inputs(prep.qrels, prep.run, q)
            evaluate_query(prep.qrels.qids[q], judgments, postings, config)
            LOG.warning("query %s was flagged as an error but the reference accepts it", q)


def score_files_fast(
    configs: Sequence[Config], qrels: str | Path | Source, run: str | Path | Source
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, as `scoring.score_files` defines them;
    raises Unsupported for a configuration the engine does not declare (`support`) and for
    input the columnar reader declines (among them every input error, which the plain
    readers then report)."""
    _log_if_asked()
    for config in configs:
        if missing := not_computed(config):
            raise Unsupported(f"{config.canonical()} uses {', '.join(missing)}")
    with opened(qrels) as qrels_source, opened(run) as run_source:
        qrels_columns = read_qrels_columns(qrels_source)
        prep = prepare(qrels_columns, read_run_columns(run_source, qrels_columns.qids))
    return [evaluate_prepared(prep, config) for config in configs]
