"""The fast engine's ideal lists (``ndcg.ideal``, ``ndcg.definition.idcg``), per query of one
configuration, as runs of equal gains: (value, count) pairs, values descending, already cut
at the depth the choice reads. The candidates and depths are those of the reference's
`reference.ideal.CHOICES`; here they are counted over the engine's columns instead of listed.

A value is an index into the configuration's credited values (`IdealInputs.values`): the gain
classes, ascending, then under ``ndcg.ties.average`` the mean gains of tie groups. Only
positive values enter, every value under ``ndcg.negative.keep-in-ideal``
(`reference.ideal.every_gain_enters`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import pairwise

import numpy as np

from ndcgspec.engine.rank import ConfigRanking

# A gain between two fractions, low and high; an exact gain is both.
Enclosure = tuple[Fraction, Fraction]
# Runs of one value: (index into the credited values, how many), values descending.
Runs = list[tuple[int, int]]
# Keys are counted in an array of one slot per possible key while it is at most this many
# times longer than the keys (many queries with few classes); sparser keys are sorted.
DENSE_KEYS = 4


@dataclass(frozen=True)
class IdealInputs:
    """What the ideal lists of one configuration are built from: each qrels row's query and
    gain class (a negative class is no judged gain: unjudged by ``ndcg.negative.unjudged``, or
    an error), the ranking (`rank.ConfigRanking`), the class of gain 0 and how many classes
    there are, the credited values
    and each ranking row's credit (an index into them), whether every gain enters the ideal,
    and the cutoff (None: the whole ranking)."""

    judged_qidx: np.ndarray
    judged_class: np.ndarray
    ranking: ConfigRanking
    zero: int
    classes: int
    values: list[Enclosure]
    credit: np.ndarray
    every_gain: bool
    cutoff: int | None

    @cached_property
    def ranked_lengths(self) -> dict[int, int]:
        """n of each ranked query: the length of its ranking after the duplicates and unjudged
        axes (``ndcg.definition.dcg``); a query absent from it ranks nothing. Made once: the
        ideal choice and the empty axis both read it."""
        ranking = self.ranking
        return dict(zip(ranking.queries.tolist(), ranking.lengths.tolist(), strict=True))

    def ranked_depth(self, n: int) -> int:
        """min(k, n), n when the cutoff is null."""
        return n if self.cutoff is None else min(self.cutoff, n)


def counted_runs(
    qidx: np.ndarray, values: np.ndarray, kept: np.ndarray, width: int
) -> dict[int, Runs]:
    """{query: runs of each value over the kept rows}, values (below `width`) descending."""
    # Taken by index: numpy takes the rows of a boolean mask of rows kept at random several
    # times slower than np.flatnonzero and a gather.
    rows = np.flatnonzero(kept)
    keys = qidx[rows].astype(np.int64) * width + values[rows]
    if keys.size and keys.max() <= DENSE_KEYS * keys.size:
        # A count per possible key is one pass, where np.unique sorts the keys: with 1,000
        # judgments per query, 5 M of them.
        counts = np.bincount(keys)
        distinct = np.flatnonzero(counts)
        counts = counts[distinct]
    else:
        distinct, counts = np.unique(keys, return_counts=True)
    out: dict[int, Runs] = {}
    for key, n in zip(distinct.tolist(), counts.tolist(), strict=True):
        out.setdefault(key // width, []).append((key % width, n))
    for runs in out.values():
        runs.reverse()
    return out


def _judged_runs(inputs: IdealInputs) -> dict[int, Runs]:
    """The gain classes of every judged document of each query; classes ascend with the gain,
    so the positive ones lie above the zero class."""
    row_class = inputs.judged_class
    kept = row_class >= 0 if inputs.every_gain else row_class > inputs.zero
    return counted_runs(inputs.judged_qidx, row_class, kept, inputs.classes)


def _retrieved_runs(inputs: IdealInputs) -> dict[int, Runs]:
    """The gain classes of each query's ranking. The ranking omits documents of gain 0 outside
    tie groups; under ``ndcg.negative.keep-in-ideal`` they are counted back, since the zeros
    rank the negative gains of the ideal list."""
    ranking, zero, width = inputs.ranking, inputs.zero, inputs.classes
    row_class = ranking.gain_class
    if not inputs.every_gain:
        return counted_runs(ranking.qidx, row_class, row_class > zero, width)
    runs = counted_runs(ranking.qidx, row_class, row_class != zero, width)
    for q, length in inputs.ranked_lengths.items():
        _put_zeros(runs, q, length - sum(n for _, n in runs.get(q, [])), lambda v: v > zero, zero)
    return runs


def _put_zeros(
    runs: dict[int, Runs], q: int, zeros: int, above: Callable[[int], bool], zero: int
) -> None:
    """Query `q`'s runs with `zeros` values of gain 0 placed after the values `above` it."""
    if zeros:
        found = runs.get(q, [])
        higher = [r for r in found if above(r[0])]
        runs[q] = [*higher, (zero, zeros), *found[len(higher) :]]


Cut = dict[int, tuple[Runs, int | None]]


def judged(inputs: IdealInputs) -> Cut:
    """``ndcg.ideal.judged``: every judged document, cut at k."""
    return {q: (runs, inputs.cutoff) for q, runs in _judged_runs(inputs).items()}


def retrieved(inputs: IdealInputs) -> Cut:
    """``ndcg.ideal.retrieved``: the documents of the ranking, cut at k."""
    return {q: (runs, inputs.cutoff) for q, runs in _retrieved_runs(inputs).items()}


def uncut(inputs: IdealInputs) -> Cut:
    """``ndcg.ideal.uncut``: every judged document, not cut."""
    return {q: (runs, None) for q, runs in _judged_runs(inputs).items()}


def cut_at_n(inputs: IdealInputs) -> Cut:
    """``ndcg.ideal.cut-at-n``: every judged document, cut at min(k, n)."""
    lengths = inputs.ranked_lengths
    return {
        q: (runs, inputs.ranked_depth(lengths.get(q, 0)))
        for q, runs in _judged_runs(inputs).items()
    }


def assumed_k(inputs: IdealInputs) -> Cut:
    """``ndcg.ideal.assumed-k``: k copies (n when the cutoff is null) of the top judged gain,
    the first run's class, if it enters the ideal at all."""
    lengths = inputs.ranked_lengths
    found: Cut = {}
    for q, runs in _judged_runs(inputs).items():
        depth = lengths.get(q, 0) if inputs.cutoff is None else inputs.cutoff
        found[q] = ([(runs[0][0], depth)], None)
    return found


def top_k(inputs: IdealInputs) -> Cut | None:
    """``ndcg.ideal.top-k``: the values credited at ranks 1 .. min(k, n), sorted; None when
    the order of two credited values is not known (their enclosures overlap)."""
    order = value_order(inputs.values)
    if order is None:
        return None
    ranking, values = inputs.ranking, inputs.values
    positive = [v[0] > 0 for v in values]
    # A value whose enclosure straddles 0 is neither known to enter nor to stay out.
    if not inputs.every_gain and any(v[0] <= 0 < v[1] for v in values):
        return None
    place = np.array(order, np.int64)
    top = (
        np.ones(len(ranking.rank), bool) if inputs.cutoff is None else ranking.rank <= inputs.cutoff
    )
    credited = top if inputs.every_gain else top & np.array(positive, np.bool_)[inputs.credit]
    # Counted by place in the order, so that runs come out by value descending.
    by_place = counted_runs(ranking.qidx, place[inputs.credit], credited, len(values))
    index_at = {p: i for i, p in enumerate(order)}
    runs = {q: [(index_at[p], n) for p, n in found] for q, found in by_place.items()}
    if inputs.every_gain:
        zero_place = order[inputs.zero]
        for q, length in inputs.ranked_lengths.items():
            depth = inputs.ranked_depth(length)
            listed = sum(n for _, n in runs.get(q, []))
            _put_zeros(runs, q, depth - listed, lambda v: order[v] > zero_place, inputs.zero)
    return {q: (found, None) for q, found in runs.items()}


def value_order(values: list[Enclosure]) -> list[int] | None:
    """Each value's place in ascending order, equal values sharing one; None when two
    enclosures overlap without being one exact value (no order is known)."""
    indices = sorted(range(len(values)), key=values.__getitem__)
    places = [0] * len(values)
    place = 0
    for below, above in pairwise(indices):
        low, high = values[below], values[above]
        if low != high or low[0] != low[1]:
            if low[1] >= high[0]:
                return None
            place += 1
        places[above] = place
    return places


CHOICES: dict[str, Callable[[IdealInputs], Cut | None]] = {
    "judged": judged,
    "retrieved": retrieved,
    "uncut": uncut,
    "cut-at-n": cut_at_n,
    "assumed-k": assumed_k,
    "top-k": top_k,
}


def cut_runs(found: Cut) -> dict[int, Runs]:
    """Each query's runs cut at its depth; a query left with none has no ideal list."""
    out: dict[int, Runs] = {}
    for q, (runs, depth) in found.items():
        kept: Runs = []
        room = depth
        for value, count in runs:
            n = count if room is None else min(count, room)
            if n <= 0:
                break
            kept.append((value, n))
            if room is not None:
                room -= n
        if kept:
            out[q] = kept
    return out
