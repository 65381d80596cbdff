"""Many configurations over one qrels file and one run, each per-query step done once.

The plain reference (`ndcgspec.reference.evaluate`) recomputes everything for every
configuration. A sweep evaluates the same steps, in the order of ``ndcg.definition.order``,
with the reference's own axis functions, and shares each step's result among every
configuration that agrees on the axes the step depends on:

- labels: the fractional, negative and gain axes resolve each distinct label once
  (`ndcgspec.reference.query.judged_gain`); configurations whose resolved gains are the same
  (a rejected label rejected for the same reason) share everything downstream;
- ranking: each query's postings after the duplicates axis are put in score order once
  (groups of equal scores in run order, ``ndcg.ties``); the unjudged axis is applied as the
  reference applies it to one unjudged document, once per resolved gains and choice; the
  ties axis (`ndcgspec.reference.ties.CHOICES`) reorders only the tie groups whose gains
  differ, since every choice credits a group of equal gains with those gains;
- each query's credited gains, and at each cutoff its ideal list cut at the depth its choice
  reads (``ndcg.ideal``), get a small id, equal for equal lists: the running sums
  (``ndcg.definition.dcg``, ``ndcg.definition.idcg``) are computed once per list and
  discount; every cutoff reads its DCG@k from the credited gains' sums, since a sum@k is the
  sum of the first min(k, n) terms, and its IDCG is the whole sum of its ideal list;
- a query's result (nDCG, DCG, IDCG) once per pair of lists, discount and cutoff, shared
  by queries and configurations with equal lists; a cutoff at or past the end of the
  credited gains cuts nothing (``ndcg.cutoff``). The empty axis enters only where IDCG is
  not known to be positive; the aggregate axis picks the queries, and equal results of the
  same queries share one mean.

The arithmetic is the fast engine's (`fixed_point`, `query_bounds`): gains are exact fractions
(the axes computed with rationals) or, irrational (2^l − 1 for a fractional l), an
`IrrationalGain` known exactly by its label and held by an enclosure, which is all ranking and
summing read of it; each rank's discount is held between two fixed-point integers, so each
running sum is a pair of integers between which the true sum lies; each output is then rounded
once from those bounds (``ndcg.precision``), a query whose bounds do not settle its digits is
evaluated by the reference, and the mean is an exact `mean.MeanPart`. A configuration that
would add an irrational gain (the mean of a tie group, ``ndcg.ties.average``), or whose mean
the parts cannot round, is scored by the engine on the whole input (`ndcgspec.engine.memory`).
The digits are therefore the reference's, correctly rounded; the tests check them, and each
shared step, against `ndcgspec.reference.evaluate` on random inputs
(tests/engine/test_equals_reference.py).

The sweep computes what the engine declares (`ndcgspec.engine.support`), with the engine's
arithmetic and the reference's axis functions; a configuration using any other anchor (a
choice added to the spec later) is evaluated by the plain reference (`route.routed`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache, lru_cache, partial, reduce
from itertools import groupby, pairwise
from typing import Any, NamedTuple, TypeGuard, TypeVar

import mpmath

from ndcgspec.engine.choice_keys import ChoiceKey, discount_key, label_key
from ndcgspec.engine.discounts import Discounts, discounts_of
from ndcgspec.engine.fixed_point import Bounds, fixed_point, product_bounds
from ndcgspec.engine.irrational_gain import IrrationalGain, Unordered
from ndcgspec.engine.label_gains import shared_label_gain
from ndcgspec.engine.mean import MeanPart, NeedsMoreDigits
from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.query_bounds import QueryBounds, query_result
from ndcgspec.engine.result_digits import Entries, ResultDigits
from ndcgspec.engine.route import routed
from ndcgspec.reference import aggregate, duplicates, ties, unjudged
from ndcgspec.reference import ideal as ideal_axis
from ndcgspec.reference.arithmetic import EXACT, NotRational, computing_with
from ndcgspec.reference.config import Config
from ndcgspec.reference.contexts import held
from ndcgspec.reference.decimals import plain_digits
from ndcgspec.reference.document import ScoredDocument
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.evaluate import Evaluation, evaluate
from ndcgspec.reference.ideal import every_gain_enters
from ndcgspec.reference.inputs import Judgment, Posting, Qrels, Run
from ndcgspec.reference.precision import working_precision
from ndcgspec.reference.query import QueryResult, judged_gain

T = TypeVar("T")
# A query's entry of the result object and its share of the mean (`query_bounds.query_result`).
Outcome = tuple[dict[str, str | None], MeanPart]
# A gain: an exact fraction (an int when integral) or an irrational one.
Gain = Fraction | int | IrrationalGain
# A list of gains (`Sweep._intern`).
Gains = tuple[Gain, ...]
# By ``ndcg.ideal`` choice the engine declares (`support`), how many of the ranking's axes
# (duplicates, unjudged, ties, in that order) its ideal list depends on: none for the judged
# documents alone; two for the documents kept (their gains, or only their number n); three
# for the gains credited in the top k. The lists themselves are the reference's
# (`reference.ideal.CHOICES`). Another choice is scored by the reference (`route.routed`); its
# keys, still asked for, assume it reads all three.
IDEAL_READS = {"judged": 0, "retrieved": 2, "uncut": 0, "cut-at-n": 2, "assumed-k": 2, "top-k": 3}


class _Choices(NamedTuple):
    """What `Sweep.keys` reads of a configuration, the same in every sweep."""

    label_axes: tuple[Hashable, ...]
    duplicates: str
    ranking: tuple[str, str]
    ideal: str
    ideal_reads: int
    every_gain: bool
    discount: ChoiceKey


# Identify reads a few thousand configurations over hundreds of inputs: their choices are read
# once each. lru_cache serialises its own bookkeeping, and what it keeps never changes.
@lru_cache(maxsize=1 << 14)
def _choices(config: Config) -> _Choices:
    ranking = (config.choice("unjudged"), config.choice("ties"))
    return _Choices(
        ("labels", *label_key(config)),
        config.choice("duplicates"),
        ranking,
        config.choice("ideal"),
        IDEAL_READS.get(config.choice("ideal"), 1 + len(ranking)),
        every_gain_enters(config),
        discount_key(config),
    )


@dataclass(frozen=True)
class _Kept:
    """One query's ranked documents after the duplicates and unjudged axes, in score order
    with run order among equal scores: their postings and gains (exact fractions or ints),
    the spans [start, end) of the tie groups whose gains differ (only there does the ties
    axis change what a rank is credited with), and the id of the gains as credited in this
    order (`Sweep._intern`), which every ties choice gives when no group is mixed. The gains
    are the ideal list's candidates under ``ndcg.ideal.retrieved``."""

    postings: tuple[Posting, ...]
    gains: Gains
    mixed: tuple[tuple[int, int], ...]
    credits: int


@dataclass(frozen=True)
class _Ranking:
    """One query's ranking under one configuration: the id of its credited gains in rank
    order (`Sweep._intern`), those gains, and its kept documents."""

    credits: int
    credited: Gains
    kept: _Kept


@dataclass(frozen=True)
class _ByEmpty:
    """A query whose IDCG is not known to be positive: its result depends on the empty axis
    (``ndcg.empty``), and is computed per choice. `content` says what its DCG and IDCG are
    sums of (`Sweep._result`); `ranked` is n, the length of its ranking, which the empty
    axis may read."""

    content: tuple[int, int, ChoiceKey, int | None]
    bounds: QueryBounds
    ranked: int


@dataclass(frozen=True)
class _RunningSums:
    """Σ gain × discount over the ranks of one list of gains (``ndcg.definition.dcg``), as two
    integers at the scale 2^(2 FIXED_BITS) between which the true sum lies
    (`query_bounds.QueryBounds`): kept at the start of each run of equal gains, so that the
    sum at any cutoff is one product away, whatever cutoffs are asked and in what order."""

    length: int
    starts: tuple[int, ...]
    """The index of each run's first gain."""
    before: tuple[Bounds, ...]
    """The sum over the ranks before each run."""
    fixed: tuple[Bounds | None, ...]
    """Each run's gain in fixed point; None for a gain of 0."""
    whole: Bounds
    discounts: Discounts

    def at(self, cutoff: int | None) -> Bounds:
        """The sum over ranks 1 .. min(cutoff, n); the whole list's for None."""
        if cutoff is None or cutoff >= self.length:
            return self.whole
        run = bisect_right(self.starts, cutoff - 1) - 1
        low, high = self.before[run]
        fixed = self.fixed[run]
        if fixed is not None:
            term = product_bounds(fixed, self.discounts.between(self.starts[run] + 1, cutoff))
            low, high = low + term[0], high + term[1]
        return low, high


@dataclass(frozen=True)
class _Keys:
    """What each step of one configuration depends on; equal keys share the step."""

    labels: int
    ranking: tuple[int, str | None, str, str]
    ideal: tuple[int, str, bool, tuple[str | None, ...]]
    discount: ChoiceKey


class Sweep:
    """Evaluates configurations over fixed qrels and run, sharing the per-query work.

    `cutoffs` lists the cutoffs that will be asked for (None, the whole ranking, is always
    available), and `declare` adds more; a cutoff not declared is a caller's mistake.
    """

    def __init__(self, qrels: Qrels, run: Run, cutoffs: Iterable[int | None] = ()) -> None:
        self.qrels, self.run = qrels, run
        self.qids = list(qrels)
        self.checkpoints: frozenset[int] = frozenset()
        self._sums_memo: dict[tuple[int, ChoiceKey], _RunningSums] = {}
        self.declare(cutoffs)
        self.labels = label_values(qrels)
        self._duplicated = any(
            len({p.docid for p in postings}) < len(postings) for postings in run.values()
        )
        self._position = {q: i for i, q in enumerate(self.qids)}
        self._memo: dict[Hashable, Any] = {}
        self._ids: dict[Gains, int] = {}
        self._lists: list[Gains] = []
        self._fixed: dict[Fraction | int, Bounds] = {}
        self._inputs: Inputs | None = None

    def declare(self, cutoffs: Iterable[int | None]) -> None:
        """Make `cutoffs` available to `scores` as well as those declared before. Every step
        is keyed by the cutoff it reads; the running sums are read at any (`_RunningSums`)."""
        self.checkpoints = self.checkpoints.union(k for k in cutoffs if k is not None)

    def _cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self._memo:
            self._memo[key] = compute()
        value: T = self._memo[key]
        return value

    def keys(self, config: Config) -> _Keys:
        """The steps `config` shares with other configurations."""
        chosen = _choices(config)
        resolved = self._cached(chosen.label_axes, lambda: self._resolve(config))
        # Equal resolutions share one small id, so later keys hash quickly.
        labels = self._cached(("label id", resolved), lambda: len(self._memo))
        axes = (chosen.duplicates if self._duplicated else None, *chosen.ranking)
        ranking = (labels, *axes)
        ideal = (labels, chosen.ideal, chosen.every_gain, axes[: chosen.ideal_reads])
        return _Keys(labels, ranking, ideal, chosen.discount)

    # -- labels: fractional, negative, gain ------------------------------------------------

    def _resolve(self, config: Config) -> tuple[Resolved, ...]:
        """The gain of every distinct label, as an exact fraction (an int when integral), an
        IrrationalGain, None (``ndcg.negative.unjudged``) or a _Rejection (the configuration
        rejects the label, for the reason it gives: configurations rejecting for other reasons
        share no result)."""
        resolved: list[Resolved] = []
        with computing_with(EXACT):
            for label in self.labels:
                try:
                    value = judged_gain(Judgment(label), config)[1]
                except InputError as error:
                    resolved.append(_Rejection(str(error), error.axis))
                    continue
                except NotRational:
                    resolved.append(_irrational_gain(label, config))
                    continue
                # An integral gain as an int: the same number, and ranking compares ints fast.
                if value is not None and value.denominator == 1:
                    value = int(value)
                resolved.append(value)
        return tuple(resolved)

    def _gains(self, labels: int, config: Config) -> dict[str, dict[str, Resolved]]:
        """Per query, each judged document's gain: an exact fraction, None or a _Rejection."""

        def compute() -> dict[str, dict[str, Resolved]]:
            resolved = self._resolve(config)
            by_label = dict(zip(self.labels, resolved, strict=True))
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

    def _intern(self, values: Sequence[Gain]) -> int:
        """A small id for a list of gains, equal for lists equal but for trailing zeros,
        which add nothing to a sum at any cutoff: every sum over the list (DCG, IDCG) and
        every result built from those sums is computed once per id."""
        end = len(values)
        while end and not values[end - 1]:
            end -= 1
        values = tuple(values[:end])
        found = self._ids.get(values)
        if found is None:
            found = self._ids[values] = len(self._lists)
            self._lists.append(values)
        return found

    def _score_order(
        self, qid: str, config: Config
    ) -> tuple[list[Posting], list[list[Posting]]] | InputError:
        """The postings of `qid` after the duplicates axis, in run order and in groups of
        equal scores, highest first, run order within a group (``ndcg.ties``: the order
        every ties choice starts from)."""

        def compute() -> tuple[list[Posting], list[list[Posting]]] | InputError:
            postings: Sequence[Posting] = self.run.get(qid, ())
            try:
                kept = duplicates.CHOICES[config.choice("duplicates")](postings, qid)
            except InputError as error:
                return error
            by_score = sorted(kept, key=lambda p: p.score, reverse=True)
            return kept, [list(group) for _, group in groupby(by_score, key=lambda p: p.score)]

        return self._cached(("order", qid, config.choice("duplicates")), compute)

    def _kept(self, qid: str, labels: int, config: Config) -> _Kept | InputError:
        """The documents of `qid` the duplicates and unjudged axes leave ranked."""
        gains = self._gains(labels, config).get(qid, {})
        if not _accepted(gains):
            return self._label_error(qid, config)
        order = self._score_order(qid, config)
        if isinstance(order, InputError):
            return order
        in_run_order, groups = order
        choice = config.choice("unjudged")
        unjudged_gain = _unjudged_gain(choice)
        if unjudged_gain is ERROR:
            first = next((p for p in in_run_order if gains.get(p.docid) is None), None)
            if first is not None:
                # The reference's error names the first unjudged document in run order.
                document = ScoredDocument(first.docid, first.score, None, None, where=first.where)
                try:
                    unjudged.CHOICES[choice]([document], qid)
                except InputError as error:
                    return error
                raise AssertionError(f"query {qid!r}: no unjudged document is rejected")
        postings: list[Posting] = []
        kept: list[Gain] = []
        mixed: list[tuple[int, int]] = []
        for group in groups:
            start = len(kept)
            for posting in group:
                gain = gains.get(posting.docid)
                if gain is None:
                    if unjudged_gain is CONDENSED:
                        continue
                    # Not ERROR either: a query with an unjudged document has returned above.
                    assert not isinstance(unjudged_gain, _Marker)
                    gain = unjudged_gain
                postings.append(posting)
                kept.append(gain)
            if len(set(kept[start:])) > 1:
                mixed.append((start, len(kept)))
        return _Kept(tuple(postings), tuple(kept), tuple(mixed), self._intern(kept))

    def _ranking(self, qid: str, keys: _Keys, config: Config) -> _Ranking | InputError | _Marker:
        """The credited gains of `qid` in rank order, and its kept documents; WHOLE where a
        tie group's mean gain would sum an irrational gain (``ndcg.ties.average``)."""
        return self._cached(("ranking", qid, keys.ranking), lambda: self._rank(qid, keys, config))

    def _rank(self, qid: str, keys: _Keys, config: Config) -> _Ranking | InputError | _Marker:
        kept = self._cached(
            ("kept", qid, keys.ranking[:3]), lambda: self._kept(qid, keys.labels, config)
        )
        if isinstance(kept, InputError):
            return kept
        if not kept.mixed:
            # Every ties choice credits a group of equal gains with those gains.
            return _Ranking(kept.credits, kept.gains, kept)
        credits = list(kept.gains)
        order = ties.CHOICES[config.choice("ties")]
        if order is ties.average and any(
            isinstance(gain, IrrationalGain)
            for start, end in kept.mixed
            for gain in credits[start:end]
        ):
            return WHOLE
        with computing_with(EXACT):
            for start, end in kept.mixed:
                group = [
                    ScoredDocument(p.docid, p.score, None, gain, where=p.where)
                    for p, gain in zip(kept.postings[start:end], credits[start:end], strict=True)
                ]
                credits[start:end] = [credit for _, credit in order(group)]
        return _Ranking(self._intern(credits), tuple(credits), kept)

    # -- DCG and IDCG: running sums read at each cutoff --------------------------------------

    def _running_sums(self, content: int, config: Config) -> _RunningSums:
        """The running sums of the gains `content` names under the discount of `config`, at
        the start of each run of equal gains (`_RunningSums`). A run is one product with the
        exact sum of its ranks' discounts, as the engine's IDCG (`query_bounds.ideal_sum`)."""
        gains = self._lists[content]
        n = len(gains)
        discounts = discounts_of(config, n)
        starts = [i for i in range(n) if i == 0 or gains[i] != gains[i - 1]]
        before: list[Bounds] = []
        points: list[Bounds | None] = []
        low = high = 0
        for start, end in pairwise([*starts, n]):
            before.append((low, high))
            value = gains[start]
            fixed = None
            if isinstance(value, IrrationalGain):
                fixed = value.fixed
            elif value:
                fixed = self._fixed.get(value) or self._fixed.setdefault(value, fixed_point(value))
            if fixed is not None:
                term = product_bounds(fixed, discounts.between(start + 1, end))
                low, high = low + term[0], high + term[1]
            points.append(fixed)
        return _RunningSums(n, tuple(starts), tuple(before), tuple(points), (low, high), discounts)

    def _sum(self, content: int, keys: _Keys, config: Config, at: int | None) -> Bounds:
        """The running sum of the gains `content` names at cutoff `at` (None: whole)."""
        key = (content, keys.discount)
        sums = self._sums_memo.get(key)
        if sums is None:
            sums = self._sums_memo[key] = self._running_sums(content, config)
        return sums.at(at)

    def _ideal(
        self, qid: str, ranking: _Ranking, keys: _Keys, config: Config, cutoff: int | None
    ) -> int:
        """The id of the ideal list of `qid` at `cutoff`, cut at the depth its choice reads
        (``ndcg.ideal``, ``ndcg.definition.idcg``): IDCG is the sum of the whole list."""

        def compute() -> int:
            gains = self._gains(keys.labels, config)[qid]
            sources = ideal_axis.IdealSources(
                judged=[g for g in gains.values() if g is not None],
                retrieved=ranking.kept.gains,
                top_k=ranking.credited[:cutoff],
            )
            choice = ideal_axis.CHOICES[config.choice("ideal")]
            candidates, depth = choice(sources, _at(config, cutoff))
            if not every_gain_enters(config):
                candidates = [g for g in candidates if g > 0]
            return self._intern(sorted(candidates, reverse=True)[:depth])

        return self._cached(("ideal", qid, keys.ideal, cutoff), compute)

    # -- nDCG, empty, aggregate ----------------------------------------------------------------

    def _query_lists(
        self, keys: _Keys, config: Config, cutoff: int | None
    ) -> tuple[int, list[tuple[int, int, int] | InputError], int] | _Marker:
        """Per qrels query (in `qids` order), the ids of its credited gains and of its ideal
        list at `cutoff`, and n, the length of its ranking; or its InputError; and the length
        of the longest list of credited gains; or WHOLE where a query's ranking is (`_rank`).
        Equal outcomes have one id (first), so configurations that rank and judge every query
        alike share all that follows."""

        def compute() -> tuple[int, list[tuple[int, int, int] | InputError], int] | _Marker:
            lists: list[tuple[int, int, int] | InputError] = []
            longest = 0
            for qid in self.qids:
                ranking = self._ranking(qid, keys, config)
                if isinstance(ranking, _Marker):
                    return ranking
                if isinstance(ranking, InputError):
                    lists.append(ranking)
                    continue
                ideal = self._ideal(qid, ranking, keys, config, cutoff)
                lists.append((ranking.credits, ideal, len(ranking.kept.postings)))
                longest = max(longest, len(self._lists[ranking.credits]))
            return self._cached(("query lists", *lists), lambda: (len(self._memo), lists, longest))

        return self._cached(("lists", keys.ranking, keys.ideal, cutoff), compute)

    def _per_query(
        self, keys: _Keys, config: Config, cutoff: int | None
    ) -> list[Outcome | _ByEmpty | InputError] | _Marker:
        """Per qrels query (in `qids` order), its result object entry and share of the mean,
        the same under every empty and aggregate choice; or _ByEmpty; or its InputError; or
        WHOLE (`_query_lists`)."""
        found = self._query_lists(keys, config, cutoff)
        if isinstance(found, _Marker):
            return found
        lists_id, lists, longest = found
        at = None if cutoff is None or cutoff >= longest else cutoff

        def compute() -> list[Outcome | _ByEmpty | InputError]:
            # The configuration with its cutoff, made only if a result is not known yet.
            measure = cache(lambda: _at(config, cutoff))
            return [
                found
                if isinstance(found, InputError)
                else self._result(qid, *found, keys, config, measure, at)
                for qid, found in zip(self.qids, lists, strict=True)
            ]

        return self._cached(("per query", lists_id, keys.discount, at), compute)

    def _result(
        self,
        qid: str,
        credits: int,
        ideal: int,
        ranked: int,
        keys: _Keys,
        config: Config,
        measure: Callable[[], Config],
        cutoff: int | None,
    ) -> Outcome | _ByEmpty:
        """The result of a query whose DCG sums the gains `credits` names cut at `cutoff`,
        and whose IDCG sums the ideal list `ideal` names (cut already), its ranking `ranked`
        documents long. A cutoff at or past the end of the credited gains cuts nothing
        (``ndcg.cutoff``), and the values depend on nothing else: queries and configurations
        with equal lists share one result. `config` gives the discount; `measure` makes the
        configuration with its cutoff, for `query_result`."""
        at = None if cutoff is None or cutoff >= len(self._lists[credits]) else cutoff
        content = (credits, ideal, keys.discount, at)
        found: Outcome | None = self._memo.get(("result", content))
        if found is None:
            bounds = QueryBounds(
                self._sum(credits, keys, config, at), self._sum(ideal, keys, config, None)
            )
            if bounds.idcg[0] <= 0:
                return _ByEmpty(content, bounds, ranked)
            found = query_result(measure(), qid, bounds, partial(self._query, qid), ranked)
            self._memo["result", content] = found
        return found

    def scores(
        self, config: Config, cutoff: int | None, keys: _Keys | None = None
    ) -> Scores | InputError:
        """The per-query results and their mean under `config` at `cutoff` (the config's own
        cutoff is not read), or an InputError the reference raises for it. `keys` may be
        given when already computed for `config`."""
        if cutoff is not None and cutoff not in self.checkpoints:
            raise ValueError(f"cutoff {cutoff} was not declared to this sweep")
        return routed(
            [config],
            partial(self._swept, config, cutoff, keys),
            lambda: self._by_reference(_at(config, cutoff)),
        )

    def _swept(self, config: Config, cutoff: int | None, keys: _Keys | None) -> Scores | InputError:
        keys = keys or self.keys(config)
        tail = (config.choice("empty"), config.choice("aggregate"))
        key = ("scores", keys.ranking, keys.ideal, keys.discount, cutoff, *tail)
        return self._cached(key, lambda: self._score(config, keys, cutoff))

    def _score(self, config: Config, keys: _Keys, cutoff: int | None) -> Scores | InputError:
        try:
            per_query = self._per_query(keys, config, cutoff)
        except Unordered:
            # Two gains whose order the enclosures do not settle: the engine falls back to
            # the reference where it meets them.
            return self._by_engine(_at(config, cutoff))
        if isinstance(per_query, _Marker):
            return self._by_engine(_at(config, cutoff))
        aggregated = config.choice("aggregate")
        queries = aggregate.CHOICES[aggregated](self.qids, self.run.keys())
        results: list[Outcome] = []
        for qid in queries:
            result = per_query[self._position[qid]]
            if isinstance(result, _ByEmpty):
                try:
                    result = self._by_empty(qid, result, config, cutoff)
                except InputError as error:
                    return error
            if isinstance(result, InputError):
                return result
            results.append(result)
        # Equal results for the same queries: one Scores object, one mean.
        key = ("mean", aggregated, *map(id, results))
        return self._cached(key, lambda: self._scores_of(queries, results, config, cutoff))

    def _by_empty(self, qid: str, pending: _ByEmpty, config: Config, cutoff: int | None) -> Outcome:
        """The result of a query whose IDCG is not known to be positive (``ndcg.empty``)."""
        key = ("by empty", qid, pending.content, pending.ranked, config.choice("empty"))
        return self._cached(
            key,
            lambda: query_result(
                _at(config, cutoff),
                qid,
                pending.bounds,
                partial(self._query, qid),
                pending.ranked,
            ),
        )

    def _scores_of(
        self,
        queries: Sequence[str],
        results: Sequence[Outcome],
        config: Config,
        cutoff: int | None,
    ) -> Scores | InputError:
        total = reduce(MeanPart.combine, (part for _, part in results), MeanPart())
        try:
            mean = total.rounded_mean()
        except NeedsMoreDigits:
            return self._by_engine(_at(config, cutoff))
        return Scores(
            {q: entry for q, (entry, _) in zip(queries, results, strict=True)},
            {q: part.count > 0 for q, (_, part) in zip(queries, results, strict=True)},
            None if mean is None else plain_digits(mean),
        )

    def _query(self, qid: str) -> tuple[Mapping[str, Judgment], Sequence[Posting]]:
        return self.qrels[qid], self.run.get(qid, ())

    def _by_engine(self, measure: Config) -> Scores | InputError:
        """`measure` scored by the engine on the whole input."""
        if self._inputs is None:
            self._inputs = Inputs(self.qrels, self.run)
        return _scores(measure, partial(self._inputs.result, measure))

    def _by_reference(self, measure: Config) -> Scores | InputError:
        """`measure` scored by the plain reference: a configuration the engine does not
        declare."""
        return _scores(measure, lambda: ResultDigits.of(evaluate(measure, self.qrels, self.run)))

    def evaluate(self, config: Config) -> Evaluation | InputError:
        """What `ndcgspec.reference.evaluate` gives for `config` (per-query results without
        traces), or an InputError it raises when the configuration rejects the input."""
        result = self.scores(config, config.cutoff)
        if isinstance(result, InputError):
            return result
        return Evaluation(config, result.results(), result.aggregate)


def _at(config: Config, cutoff: int | None) -> Config:
    """`config` at `cutoff`: itself when it has that cutoff already, as the configurations asked
    of a sweep at their own cutoff do (a copy is validated again, which costs more than the
    step it is made for)."""
    return config if config.cutoff == cutoff else config.replace(cutoff=cutoff)


def _scores(measure: Config, result: Callable[[], ResultDigits]) -> Scores | InputError:
    """The result `result()` gives for `measure` as Scores, or its InputError."""
    try:
        found = result()
    except InputError as error:
        return error
    skipped = measure.choice("empty") == "skip"
    in_mean = {q: not (skipped and e["ndcg"] is None) for q, e in found.per_query.items()}
    return Scores(found.per_query, in_mean, found.aggregate)


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
            return held(self.mean)

    def results(self) -> dict[str, QueryResult]:
        """Each query's result, its values at the working precision."""
        with working_precision():
            return {
                q: QueryResult(
                    q, _held(e["ndcg"]), _held(e["dcg"]), _held(e["idcg"]), self.in_mean[q], ()
                )
                for q, e in self.per_query.items()
            }

    def signature(self) -> Signature:
        """Equal for results that agree on every query's nDCG and on which queries enter
        the mean: configurations indistinguishable on this input."""
        return tuple((q, e["ndcg"], self.in_mean[q]) for q, e in self.per_query.items())


def _held(text: str | None) -> mpmath.mpf | None:
    return None if text is None else held(text)


# Each query's nDCG digits and whether it enters the mean, in qrels order (`Scores.signature`).
Signature = tuple[tuple[str, str | None, bool], ...]


@dataclass(frozen=True)
class _Rejection:
    """The resolution of a label the configuration rejects (an input error): the reference's
    message and axis."""

    message: str
    axis: str | None


# What a label resolves to (`Sweep._resolve`): its gain, None (unjudged) or a rejection.
Resolved = Gain | _Rejection | None


def _accepted(gains: dict[str, Resolved]) -> TypeGuard[dict[str, Gain | None]]:
    """Whether the configuration rejects no label of a query's judgments."""
    return not any(isinstance(g, _Rejection) for g in gains.values())


class _Marker:
    """An outcome that is not a gain: rejected (ERROR), condensed away, or a mean of tied gains
    one of which is irrational (WHOLE: the engine scores the configuration whole)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ERROR = _Marker("ERROR")
WHOLE = _Marker("WHOLE")
CONDENSED = _Marker("CONDENSED")


@cache
def _unjudged_gain(choice: str) -> Fraction | int | _Marker:
    """What the ``ndcg.unjudged`` choice does to one unjudged document, asked of the
    reference: the gain it is ranked with, CONDENSED when it leaves the ranking, ERROR when
    it is rejected. Each choice treats each document alone, so this is what it does to
    every one (and the tests compare the sweep with the reference on whole queries)."""
    probe = ScoredDocument("", Decimal(0), None, None)
    with computing_with(EXACT):
        try:
            ranked = unjudged.CHOICES[choice]([probe], "")
        except InputError:
            return ERROR
    if not ranked:
        return CONDENSED
    gain = ranked[0].gain
    assert gain is not None, "the unjudged axis ranks a document with a gain"
    # An integral gain as an int, as `Sweep._resolve` gives it: equal lists hash alike, fast.
    return int(gain) if gain.denominator == 1 else gain


def _irrational_gain(label: Decimal, config: Config) -> IrrationalGain:
    """The label's gain under `config` where it is not a fraction: the reference's, enclosed
    at DISCOUNT_DPS digits, and known by the label after the fractional and negative axes
    under the choices of the label axes (``engine/irrational_gain.py``); each computed once
    for every sweep and thread (`label_gains.shared_label_gain`)."""
    axes = label_key(config)
    found = shared_label_gain(str(label), config, axes)
    assert isinstance(found, tuple), f"label {label}: no irrational gain"
    return IrrationalGain((axes, found[0]), found[1])


def label_values(qrels: Qrels) -> list[Decimal]:
    """The distinct labels of `qrels`, ascending."""
    return sorted({j.label for docs in qrels.values() for j in docs.values()})
