"""Many configurations over one qrels file and one run, each per-query step done once.

The plain reference (`ndcgspec.reference.evaluate`) recomputes everything for every
configuration. A sweep evaluates the same steps, in the order of ``ndcg.definition.order``,
with the reference's own axis functions, and shares each step's result among every
configuration that agrees on the axes the step depends on:

- labels: the fractional, negative and gain axes resolve each distinct label once
  (`ndcgspec.reference.query.judged_gain`); configurations whose resolved gains are the same
  share everything downstream;
- ranking: duplicates, unjudged and ties (`ndcgspec.reference.ties.rank`) once per resolved
  gains and choice of those three axes;
- DCG: the running sum of gain × discount in rank order (``ndcg.definition.dcg``), once per
  ranking and discount; every cutoff reads its DCG@k from that one running sum, since DCG@k
  is the sum of the first min(k, n) terms;
- IDCG the same way over the ideal list (``ndcg.definition.idcg``);
- nDCG, the empty and aggregate axes last.

The arithmetic is the fast engine's (`ndcgspec.engine.evaluate`): gains are exact fractions
(the axes computed with rationals), each rank's discount is held between two fixed-point
integers, so each running sum is a pair of integers between which the true sum lies; each
output is then rounded once from those bounds (``ndcg.precision``), a query whose bounds do
not settle its digits is evaluated by the reference, and the mean is an exact
`evaluate.MeanPart`. A configuration with an irrational gain (2^l − 1 for a fractional l), or
whose mean the parts cannot round, is scored by the engine on the whole input
(`ndcgspec.engine.memory`). The digits are therefore the reference's, correctly rounded; the
tests check them against `ndcgspec.reference.evaluate` on random inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import Any

import mpmath

from ndcgspec.engine.evaluate import (
    Bounds,
    MeanPart,
    NeedsMoreDigits,
    QueryBounds,
    discount_key,
    discounts_of,
    fixed_point,
    product_bounds,
    query_result,
)
from ndcgspec.engine.memory import Inputs
from ndcgspec.reference import aggregate, duplicates, ties, unjudged
from ndcgspec.reference.arithmetic import EXACT, NotRational, computing_with
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import plain_digits, working_precision
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting, Qrels, Run
from ndcgspec.reference.query import QueryResult, judged_gain

Entries = dict[str, dict[str, str | None]]


@dataclass(frozen=True)
class _Ranked:
    """One query's ranking: credited gains in rank order, and the gains of the ranked
    documents (after duplicates and unjudged, before ties) for ``ndcg.ideal.retrieved``;
    exact fractions."""

    credits: tuple[Fraction, ...]
    gains: tuple[Fraction, ...]


@dataclass(frozen=True)
class _Keys:
    """What each step of one configuration depends on; equal keys share the step. `rational`
    says every gain is a fraction (else the engine scores the configuration whole)."""

    labels: int
    ranking: tuple
    ideal: tuple
    discount: tuple
    rational: bool


class Sweep:
    """Evaluates configurations over fixed qrels and run, sharing the per-query work.

    `cutoffs` lists every cutoff that will be asked for (None, the whole ranking, is always
    available); the running sums keep their value at each of them.
    """

    def __init__(self, qrels: Qrels, run: Run, cutoffs: Iterable[int | None] = ()) -> None:
        self.qrels, self.run = qrels, run
        self.qids = list(qrels)
        self.checkpoints = sorted({k for k in cutoffs if k is not None})
        self.labels = label_values(qrels)
        self._duplicated = any(
            len({p.docid for p in postings}) < len(postings) for postings in run.values()
        )
        self._memo: dict[Hashable, Any] = {}
        self._fixed: dict[Fraction, Bounds] = {}
        self._inputs: Inputs | None = None

    def _cached(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def keys(self, config: Config) -> _Keys:
        """The steps `config` shares with other configurations."""
        resolved = self._cached(
            ("labels", *(config.choice(a) for a in _LABEL_AXES), _gain_map(config)),
            lambda: self._resolve(config),
        )
        # Equal resolutions share one small id, so later keys hash quickly.
        labels = self._cached(("label id", resolved), lambda: len(self._memo))
        dedup = config.choice("duplicates") if self._duplicated else None
        ranking = (labels, dedup, config.choice("unjudged"), config.choice("ties"))
        retrieved = config.choice("ideal") == "retrieved"
        ideal = (
            labels,
            config.choice("ideal"),
            every_gain_enters(config),
            ranking[1:3] if retrieved else None,
        )
        return _Keys(labels, ranking, ideal, discount_key(config), resolved is not IRRATIONAL)

    # -- labels: fractional, negative, gain ------------------------------------------------

    def _resolve(self, config: Config) -> tuple | _Rejected:
        """The gain of every distinct label, as an exact fraction (an int when integral), None
        (``ndcg.negative.unjudged``) or ERROR (the configuration rejects the label); IRRATIONAL
        when a gain is not a fraction."""
        resolved: list[Fraction | int | _Rejected | None] = []
        with computing_with(EXACT):
            for label in self.labels:
                try:
                    value = judged_gain(Judgment(label), config)[1]
                except InputError:
                    resolved.append(ERROR)
                    continue
                except NotRational:
                    return IRRATIONAL
                # An integral gain as an int: the same number, and ranking compares ints fast.
                integral = value is not None and value.denominator == 1
                resolved.append(int(value) if integral else value)
        return tuple(resolved)

    def _gains(self, labels: int, config: Config) -> dict[str, dict[str, Any]]:
        """Per query, each judged document's gain: an exact fraction, None or ERROR."""

        def compute() -> dict[str, dict[str, Any]]:
            by_label = dict(zip(self.labels, self._resolve(config), strict=True))
            return {
                q: {d: by_label[j.label] for d, j in docs.items()} for q, docs in self.qrels.items()
            }

        return self._cached(("gains", labels), compute)

    def _label_error(self, qid: str, config: Config) -> InputError:
        """The reference's error for the first judgment of `qid` it rejects."""
        for judgment in self.qrels[qid].values():
            try:
                judged_gain(judgment, config)
            except InputError as error:
                return error
        raise AssertionError(f"query {qid!r}: no judgment is rejected")

    # -- ranking: duplicates, unjudged, ties -----------------------------------------------

    def _ranking(self, qid: str, keys: _Keys, config: Config) -> _Ranked | InputError:
        key = ("ranking", qid, keys.ranking)
        return self._cached(key, lambda: self._rank(qid, keys.labels, config))

    def _rank(self, qid: str, labels: int, config: Config) -> _Ranked | InputError:
        ranked = self._cached(
            ("ranked", qid, labels, config.choice("duplicates"), config.choice("unjudged")),
            lambda: self._judged(qid, labels, config),
        )
        if isinstance(ranked, InputError):
            return ranked
        with computing_with(EXACT):
            credits = tuple(credit for _, credit in ties.rank(ranked, config))
        return _Ranked(credits, tuple(d.gain for d in ranked))

    def _judged(self, qid: str, labels: int, config: Config) -> list[ScoredDocument] | InputError:
        """The run's documents of `qid` after the duplicates and unjudged axes."""
        gains = self._gains(labels, config).get(qid, {})
        if any(g is ERROR for g in gains.values()):
            return self._label_error(qid, config)
        postings: Sequence[Posting] = self.run.get(qid, ())
        try:
            kept = duplicates.CHOICES[config.choice("duplicates")](postings, qid)
            documents = [
                ScoredDocument(p.docid, p.score, None, gains.get(p.docid), where=p.where)
                for p in kept
            ]
            with computing_with(EXACT):
                return unjudged.CHOICES[config.choice("unjudged")](documents, qid)
        except InputError as error:
            return error

    # -- DCG and IDCG: running sums read at each cutoff --------------------------------------

    def _running_sums(self, gains: Sequence[Fraction], config: Config) -> dict[int | None, Bounds]:
        """Σ gain × discount over ranks 1 .. min(k, n) for every checkpoint k, and over the
        whole list (key None): two integers at the scale 2^(2 FIXED_BITS) between which the
        true sum lies (`evaluate.QueryBounds`)."""
        discounts = discounts_of(config)
        discounts.cover(len(gains))
        sums: dict[int | None, Bounds] = {}
        low = high = 0
        marks, at = self.checkpoints, 0
        for index, value in enumerate(gains):
            while at < len(marks) and marks[at] <= index:
                sums[marks[at]] = (low, high)
                at += 1
            if value:
                fixed = self._fixed.get(value) or self._fixed.setdefault(value, fixed_point(value))
                rank = index + 1
                term = product_bounds(fixed, (discounts.low[rank], discounts.high[rank]))
                low, high = low + term[0], high + term[1]
        for mark in marks[at:]:
            sums[mark] = (low, high)
        sums[None] = (low, high)
        return sums

    def _sums(self, qid: str, keys: _Keys, config: Config) -> tuple[dict, dict] | InputError:
        """(DCG, IDCG) of one query at every checkpoint (``ndcg.definition``)."""
        ranking = self._ranking(qid, keys, config)
        if isinstance(ranking, InputError):
            return ranking
        dcg = self._cached(
            ("dcg", qid, keys.ranking, keys.discount),
            lambda: self._running_sums(ranking.credits, config),
        )
        idcg = self._cached(
            ("idcg", qid, keys.ideal, keys.discount),
            lambda: self._running_sums(self._ideal(qid, ranking, keys, config), config),
        )
        return dcg, idcg

    def _ideal(self, qid: str, ranking: _Ranked, keys: _Keys, config: Config) -> list[Fraction]:
        """The ideal list, uncut (``ndcg.ideal``, ``ndcg.definition.idcg``)."""
        if config.choice("ideal") == "retrieved":
            candidates = list(ranking.gains)
        else:
            gains = self._gains(keys.labels, config)[qid]
            candidates = [g for g in gains.values() if g is not None]
        if not every_gain_enters(config):
            candidates = [g for g in candidates if g > 0]
        return sorted(candidates, reverse=True)

    # -- nDCG, empty, aggregate ----------------------------------------------------------------

    def _pairs(
        self, keys: _Keys, config: Config, cutoff: int | None
    ) -> dict[str, QueryBounds | InputError]:
        """Per qrels query, the bounds of DCG@k and IDCG@k, or its InputError."""

        def compute() -> dict[str, QueryBounds | InputError]:
            out: dict[str, QueryBounds | InputError] = {}
            for qid in self.qids:
                sums = self._sums(qid, keys, config)
                out[qid] = (
                    sums
                    if isinstance(sums, InputError)
                    else QueryBounds(sums[0][cutoff], sums[1][cutoff])
                )
            return out

        return self._cached(("pairs", keys.ranking, keys.ideal, keys.discount, cutoff), compute)

    def scores(
        self, config: Config, cutoff: int | None, keys: _Keys | None = None
    ) -> Scores | InputError:
        """The per-query results and their mean under `config` at `cutoff` (the config's own
        cutoff is not read), or an InputError the reference raises for it. `keys` may be
        given when already computed for `config`."""
        if cutoff is not None and cutoff not in self.checkpoints:
            raise ValueError(f"cutoff {cutoff} was not declared to this sweep")
        keys = keys or self.keys(config)
        tail = (config.choice("empty"), config.choice("aggregate"))
        key = ("scores", keys.ranking, keys.ideal, keys.discount, cutoff, *tail)
        return self._cached(key, lambda: self._score(config, keys, cutoff))

    def _score(self, config: Config, keys: _Keys, cutoff: int | None) -> Scores | InputError:
        measure = config.replace(cutoff=cutoff)
        if not keys.rational:
            return self._by_engine(measure)
        pairs = self._pairs(keys, config, cutoff)
        queries = aggregate.CHOICES[config.choice("aggregate")](self.qids, self.run.keys())
        per_query: Entries = {}
        in_mean: dict[str, bool] = {}
        total = MeanPart()
        for qid in queries:
            bounds = pairs[qid]
            if isinstance(bounds, InputError):
                return bounds
            try:
                entry, part = query_result(measure, qid, bounds, partial(self._query, qid))
            except InputError as error:
                return error
            per_query[qid], in_mean[qid] = entry, part.count > 0
            total = total.combine(part)
        try:
            mean = total.rounded_mean()
        except NeedsMoreDigits:
            return self._by_engine(measure)
        return Scores(per_query, in_mean, None if mean is None else plain_digits(mean))

    def _query(self, qid: str) -> tuple[Mapping[str, Judgment], Sequence[Posting]]:
        return self.qrels[qid], self.run.get(qid, ())

    def _by_engine(self, measure: Config) -> Scores | InputError:
        """`measure` scored by the engine on the whole input."""
        if self._inputs is None:
            self._inputs = Inputs(self.qrels, self.run)
        try:
            result = self._inputs.result(measure)
        except InputError as error:
            return error
        skipped = measure.choice("empty") == "skip"
        in_mean = {q: not (skipped and e["ndcg"] is None) for q, e in result["per_query"].items()}
        return Scores(result["per_query"], in_mean, result["aggregate"])

    def evaluate(self, config: Config) -> Evaluation | InputError:
        """What `ndcgspec.reference.evaluate` gives for `config` (per-query results without
        traces), or an InputError it raises when the configuration rejects the input."""
        result = self.scores(config, config.cutoff)
        if isinstance(result, InputError):
            return result
        return Evaluation(config, result.results(), result.aggregate)


@dataclass(frozen=True)
class Scores:
    """Per-query entries of the result object (decimal strings, in qrels order), whether each
    query enters the mean, and the mean's digits (None when undefined)."""

    per_query: Entries
    in_mean: Mapping[str, bool]
    mean: str | None

    @property
    def aggregate(self) -> mpmath.mpf | None:
        """The mean at the working precision."""
        if self.mean is None:
            return None
        with working_precision():
            return mpmath.mpf(self.mean)

    def results(self) -> dict[str, QueryResult]:
        """Each query's result, its values at the working precision."""
        with working_precision():
            return {
                q: QueryResult(
                    q,
                    *(None if e[v] is None else mpmath.mpf(e[v]) for v in ("ndcg", "dcg", "idcg")),
                    self.in_mean[q],
                    (),
                )
                for q, e in self.per_query.items()
            }

    def signature(self) -> tuple:
        """Equal for results that agree on every query's nDCG and on which queries enter
        the mean: configurations indistinguishable on this input."""
        return tuple((q, e["ndcg"], self.in_mean[q]) for q, e in self.per_query.items())


_LABEL_AXES = ("fractional", "negative", "gain")


class _Rejected:
    """The resolution of a label the configuration rejects (an input error)."""

    def __repr__(self) -> str:
        return "ERROR"


ERROR = _Rejected()
IRRATIONAL = _Rejected()


def _gain_map(config: Config) -> object:
    return config.param("gain_map") if config.choice("gain") == "map" else None


def label_values(qrels: Qrels) -> list[Decimal]:
    """The distinct labels of `qrels`, ascending."""
    return sorted({j.label for docs in qrels.values() for j in docs.values()})
