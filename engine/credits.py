"""Each ranked row's credited gain (``ndcg.ties``): its class's gain, or under
``ndcg.ties.average`` the mean gain of its tie group, enclosed between the means of its
members' low and high ends, so that a tie group's credit is held in fixed point as a gain is.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ndcgspec.engine.ideal import Enclosure
from ndcgspec.engine.label_gains import GainClasses
from ndcgspec.engine.rank import ConfigRanking


def credited_gains(
    classes: GainClasses, ranking: ConfigRanking, average: bool
) -> tuple[list[Enclosure], np.ndarray]:
    """Each kept row's credited gain as an index into a list of enclosures: the class gain,
    or under ``ndcg.ties.average`` the mean gain of its tie group (``ndcg.ties.average``), for
    every group of two or more, between the means of its members' low and high ends."""
    assert classes.gains is not None
    values = list(classes.gains)
    credit = ranking.gain_class.copy()
    if not average:
        return values, credit
    grouped = np.flatnonzero(ranking.tie_size > 1)
    if grouped.size == 0:
        return values, credit
    tie_group = ranking.tie_group[grouped]
    group_of = np.cumsum(np.r_[True, tie_group[1:] != tie_group[:-1]]) - 1
    # A group's mean depends only on how many members each gain class has.
    width = len(values)
    keys = group_of * width + ranking.gain_class[grouped]
    counts = np.bincount(keys, minlength=(int(group_of[-1]) + 1) * width).reshape(-1, width)
    distinct, inverse = _distinct_rows(counts)
    for row in distinct.tolist():
        members = [(n, values[c]) for c, n in enumerate(row) if n]
        low = sum((n * gain[0] for n, gain in members), Fraction(0))
        high = sum((n * gain[1] for n, gain in members), Fraction(0))
        values.append((low / sum(row), high / sum(row)))
    credit[grouped] = width + inverse[group_of]
    return values, credit


def _distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix of counts and each row's index among them; rows are
    read as numbers in base (largest count + 1) when those fit 63 bits (a fast 1-D sort)."""
    base = int(counts.max()) + 1
    if base ** counts.shape[1] >= 1 << 63:
        distinct, inverse = np.unique(counts, axis=0, return_inverse=True)
        return distinct, inverse.reshape(-1)
    keys = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return counts[first], inverse.reshape(-1)
