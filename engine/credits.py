"""Each ranked row's credited gain (``ndcg.ties``): its class's gain, or under
``ndcg.ties.average`` the mean gain of its tie group, enclosed between the means of its
members' low and high ends, so that a tie group's credit is held in fixed point as a gain is.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ndcgspec.engine.fixed_point import Bounds, fixed_gain
from ndcgspec.engine.ideal import Enclosure
from ndcgspec.engine.label_gains import GainClasses
from ndcgspec.engine.rank import ConfigRanking


@dataclass(frozen=True)
class Credits:
    """The gains a configuration credits: `values[credit[i]]` is kept row i's, `fixed` each
    value in fixed point, `nonzero` whether each is not exactly 0 (only those meet a
    discount)."""

    values: list[Enclosure]
    fixed: list[Bounds]
    nonzero: np.ndarray
    credit: np.ndarray


def credited_gains(classes: GainClasses, ranking: ConfigRanking, average: bool) -> Credits:
    """Each kept row's credited gain as an index into a list of enclosures: the class gain,
    or under ``ndcg.ties.average`` the mean gain of its tie group (``ndcg.ties.average``), for
    every group of two or more, between the means of its members' low and high ends."""
    assert classes.gains is not None
    values, fixed = list(classes.gains), list(classes.fixed)
    # The classes' gains are distinct: only the zero class is exactly 0.
    nonzero = np.arange(len(values)) != classes.zero
    credit = ranking.gain_class.copy()
    grouped = np.flatnonzero(ranking.tie_size > 1) if average else np.zeros(0, np.intp)
    if grouped.size == 0:
        return Credits(values, fixed, nonzero, credit)
    tie_group = ranking.tie_group[grouped]
    group_of = np.cumsum(np.r_[True, tie_group[1:] != tie_group[:-1]]) - 1
    # A group's mean depends only on how many members each gain class has.
    width = len(values)
    keys = group_of * width + ranking.gain_class[grouped]
    counts = np.bincount(keys, minlength=(int(group_of[-1]) + 1) * width).reshape(-1, width)
    distinct, inverse = _distinct_rows(counts)
    means = []
    for row in distinct.tolist():
        members = [(n, values[c]) for c, n in enumerate(row) if n]
        low = sum((n * gain[0] for n, gain in members), Fraction(0))
        high = sum((n * gain[1] for n, gain in members), Fraction(0))
        means.append((low / sum(row), high / sum(row)))
    values += means
    fixed += [fixed_gain(mean) for mean in means]
    nonzero = np.r_[nonzero, [mean != (0, 0) for mean in means]].astype(bool)
    credit[grouped] = width + inverse[group_of]
    return Credits(values, fixed, nonzero, credit)


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
