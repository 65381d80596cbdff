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
- DCG: the running sum of gain × discount in rank order, as the reference adds it
  (``ndcg.definition.dcg``), once per ranking and discount; every cutoff reads its DCG@k
  from that one running sum, since DCG@k is the sum of the first min(k, n) terms;
- IDCG the same way over the ideal list (``ndcg.definition.idcg``);
- nDCG, the empty and aggregate axes last.

Every addition, product and division is done at the spec's working precision, rounded at each
step (spec 1.x's digits): a value within about 10^-50 of a rounding boundary of spec 2.0's
correctly rounded digits (``ndcg.precision``) may differ from the reference in its 40th digit,
far below the published precision `which` compares at; the tests check the numbers against
`ndcgspec.reference.evaluate` on random inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import mpmath
from mpmath.libmp import fzero, mpf_add, mpf_div, mpf_mul, round_nearest

from ndcgspec.reference import aggregate, duplicates, empty, ties, unjudged
from ndcgspec.reference.config import Config, axis
from ndcgspec.reference.decimals import working_precision
from ndcgspec.reference.discount import discount
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting, Qrels, Run
from ndcgspec.reference.query import QueryResult, judged_gain

Raw = tuple[int, int, int, int]


@dataclass(frozen=True)
class _Ranked:
    """One query's ranking: credited gains in rank order, and the gains of the ranked
    documents (after duplicates and unjudged, before ties) for ``ndcg.ideal.retrieved``."""

    credits: tuple[mpmath.mpf, ...]
    gains: tuple[mpmath.mpf, ...]


@dataclass(frozen=True)
class _Keys:
    """What each step of one configuration depends on; equal keys share the step."""

    labels: int
    ranking: tuple
    ideal: tuple
    discount: tuple


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
        return _Keys(labels, ranking, ideal, _discount_key(config))

    # -- labels: fractional, negative, gain ------------------------------------------------

    def _resolve(self, config: Config) -> tuple:
        """The gain of every distinct label, as raw mpf, None (``ndcg.negative.unjudged``) or
        ERROR (the configuration rejects the label)."""
        resolved: list[Raw | _Rejected | None] = []
        with working_precision():
            for label in self.labels:
                try:
                    value = judged_gain(Judgment(label), config)[1]
                except InputError:
                    resolved.append(ERROR)
                    continue
                resolved.append(None if value is None else value._mpf_)
        return tuple(resolved)

    def _gains(self, labels: int, config: Config) -> dict[str, dict[str, Any]]:
        """Per query, each judged document's gain: an mpf, None or ERROR."""

        def compute() -> dict[str, dict[str, Any]]:
            resolved = self._resolve(config)
            by_label = {
                label: value if value is None or value is ERROR else mpmath.mp.make_mpf(value)
                for label, value in zip(self.labels, resolved, strict=True)
            }
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
            return unjudged.CHOICES[config.choice("unjudged")](documents, qid)
        except InputError as error:
            return error

    # -- DCG and IDCG: running sums read at each cutoff --------------------------------------

    def _weights(self, keys: _Keys, config: Config, length: int) -> list[Raw]:
        weights: list[Raw] = self._cached(("weights", keys.discount), list)
        for rank in range(len(weights) + 1, length + 1):
            weights.append(discount(rank, config)._mpf_)
        return weights

    def _running_sums(
        self, gains: Sequence[mpmath.mpf], keys: _Keys, config: Config
    ) -> dict[int | None, Raw]:
        """Σ gain × discount over ranks 1 .. min(k, n) for every checkpoint k, and over the
        whole list (key None), each term added in rank order as the reference adds it; a
        zero term adds nothing there either."""
        weights = self._weights(keys, config, len(gains))
        prec = mpmath.mp.prec
        sums: dict[int | None, Raw] = {}
        total, marks, at = fzero, self.checkpoints, 0
        for index, value in enumerate(gains):
            while at < len(marks) and marks[at] <= index:
                sums[marks[at]] = total
                at += 1
            if value:
                term = mpf_mul(value._mpf_, weights[index], prec, round_nearest)
                total = mpf_add(total, term, prec, round_nearest)
        for mark in marks[at:]:
            sums[mark] = total
        sums[None] = total
        return sums

    def _sums(self, qid: str, keys: _Keys, config: Config) -> tuple[dict, dict] | InputError:
        """(DCG, IDCG) of one query at every checkpoint (``ndcg.definition``)."""
        ranking = self._ranking(qid, keys, config)
        if isinstance(ranking, InputError):
            return ranking
        dcg = self._cached(
            ("dcg", qid, keys.ranking, keys.discount),
            lambda: self._running_sums(ranking.credits, keys, config),
        )
        idcg = self._cached(
            ("idcg", qid, keys.ideal, keys.discount),
            lambda: self._running_sums(self._ideal(qid, ranking, keys, config), keys, config),
        )
        return dcg, idcg

    def _ideal(self, qid: str, ranking: _Ranked, keys: _Keys, config: Config) -> list[mpmath.mpf]:
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
    ) -> dict[str, tuple[Raw, Raw] | InputError]:
        """Per qrels query, (DCG@k, IDCG@k) or its InputError."""

        def compute() -> dict[str, tuple[Raw, Raw] | InputError]:
            out: dict[str, tuple[Raw, Raw] | InputError] = {}
            for qid in self.qids:
                sums = self._sums(qid, keys, config)
                out[qid] = (
                    sums if isinstance(sums, InputError) else (sums[0][cutoff], sums[1][cutoff])
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
        with working_precision():
            keys = keys or self.keys(config)
            tail = (config.choice("empty"), config.choice("aggregate"))
            key = ("scores", keys.ranking, keys.ideal, keys.discount, cutoff, *tail)
            return self._cached(key, lambda: self._score(config, keys, cutoff))

    def _score(self, config: Config, keys: _Keys, cutoff: int | None) -> Scores | InputError:
        pairs = self._pairs(keys, config, cutoff)
        queries = aggregate.CHOICES[config.choice("aggregate")](self.qids, self.run.keys())
        make, prec = mpmath.mp.make_mpf, mpmath.mp.prec
        per_query: dict[str, QueryResult] = {}
        for qid in queries:
            pair = pairs[qid]
            if isinstance(pair, InputError):
                return pair
            dcg, idcg = pair
            if idcg[1] and not idcg[0]:
                ndcg, in_mean = make(mpf_div(dcg, idcg, prec, round_nearest)), True
            else:
                try:
                    ndcg, in_mean = empty.CHOICES[config.choice("empty")](qid)
                except InputError as error:
                    return error
            per_query[qid] = QueryResult(qid, ndcg, make(dcg), make(idcg), in_mean, ())
        mean = aggregate.mean({q: (r.ndcg, r.in_mean) for q, r in per_query.items()})
        return Scores(per_query, mean)

    def evaluate(self, config: Config) -> Evaluation | InputError:
        """What `ndcgspec.reference.evaluate` gives for `config` (per-query results without
        traces), or an InputError it raises when the configuration rejects the input."""
        result = self.scores(config, config.cutoff)
        if isinstance(result, InputError):
            return result
        return Evaluation(config, result.per_query, result.aggregate)


@dataclass(frozen=True)
class Scores:
    """Per-query results (in qrels order) and their mean, None when undefined."""

    per_query: dict[str, QueryResult]
    aggregate: mpmath.mpf | None

    def signature(self) -> tuple:
        """Equal for results that agree on every query's nDCG and on which queries enter
        the mean: configurations indistinguishable on this input."""
        return tuple(
            (q, None if r.ndcg is None else r.ndcg._mpf_, r.in_mean)
            for q, r in self.per_query.items()
        )


_LABEL_AXES = ("fractional", "negative", "gain")


class _Rejected:
    """The resolution of a label the configuration rejects (an input error)."""

    def __repr__(self) -> str:
        return "ERROR"


ERROR = _Rejected()


def _gain_map(config: Config) -> object:
    return config.param("gain_map") if config.choice("gain") == "map" else None


def _discount_key(config: Config) -> tuple:
    """The discount choice with its parameters: what the weights depend on."""
    chosen = config.choice("discount")
    params = next(c for c in axis("discount")["choices"] if c["id"] == chosen).get("params", [])
    return (chosen, *(config.param(name) for name in params))


def label_values(qrels: Qrels) -> list[Decimal]:
    """The distinct labels of `qrels`, ascending."""
    return sorted({j.label for docs in qrels.values() for j in docs.values()})
