"""One query's DCG and IDCG between two integers each, at the scale 2^(2 FIXED_BITS), and its
entry of the result object, correctly rounded from them (``ndcg.precision``).

DCG (``ndcg.definition.dcg``) is, per credited gain, the exact integer sum of its ranks'
discounts, times the gain: one product per distinct gain of the query, between whose ends the
true DCG lies. IDCG (``ndcg.definition.idcg``) is the same over the ideal list, known from the
count of each gain (`ideal`), the discounts of a run of ranks read from prefix sums. nDCG lies
between the quotients of those ends. Each output is the correctly rounded value when both ends
of its bounds round alike (one exact decimal division each); otherwise, and when the sign of
IDCG is not settled, the reference evaluates the query (`fallback`), recomputing at higher
precision as it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ndcgspec.engine.discounts import Discounts
from ndcgspec.engine.fallback import reference_result
from ndcgspec.engine.fixed_point import FIXED_BITS, Bounds, product_bounds
from ndcgspec.engine.ideal import Runs
from ndcgspec.engine.mean import MeanPart
from ndcgspec.reference import empty
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import plain_digits, round_quotient
from ndcgspec.reference.evaluate import query_object
from ndcgspec.reference.inputs import Judgment, Posting


@dataclass(frozen=True)
class QueryBounds:
    """DCG and IDCG of one query between two integers each, at the scale 2^(2 FIXED_BITS)."""

    dcg: Bounds
    idcg: Bounds

    def ndcg(self) -> tuple[Bounds, Bounds]:
        """nDCG between two quotients (numerator, denominator); IDCG is known to be
        positive."""
        (a, b), (c, d) = self.dcg, self.idcg
        if a >= 0:
            return (a, d), (b, c)
        if b <= 0:
            return (a, c), (b, d)
        return (a, c), (b, c)


def _rounded(low: Bounds, high: Bounds) -> Decimal | None:
    """The correctly rounded value (``ndcg.precision``) of a number between the quotients
    `low` and `high`, when both round alike."""
    rounded = round_quotient(*low)
    return rounded if rounded == round_quotient(*high) else None


def _scaled(bounds: Bounds) -> tuple[Bounds, Bounds]:
    scale = 1 << (2 * FIXED_BITS)
    return (bounds[0], scale), (bounds[1], scale)


def dcg_bounds(
    qidx: np.ndarray,
    credit: np.ndarray,
    rank: np.ndarray,
    values: list[Bounds],
    discounts: Discounts,
) -> dict[int, Bounds]:
    """``ndcg.definition.dcg`` of each query between two integers at the scale
    2^(2 FIXED_BITS): per query and credit, the exact sum of its ranks' discounts (the low
    ends summed, the high ends as the low ones plus the summed widths), then one product."""
    if not len(qidx):
        return {}
    order = np.lexsort((credit, qidx))
    qidx, credit, rank = qidx[order], credit[order], rank[order]
    starts = np.flatnonzero(np.r_[True, (qidx[1:] != qidx[:-1]) | (credit[1:] != credit[:-1])])
    widths = np.add.reduceat(discounts.width[rank], starts)
    sums: dict[int, Bounds] = {}
    groups = zip(
        discounts.low_sums(rank, starts),
        widths.tolist(),
        qidx[starts].tolist(),
        credit[starts].tolist(),
        strict=True,
    )
    for low_sum, width, q, value in groups:
        term = product_bounds(values[value], (low_sum, low_sum + width))
        low, high = sums.get(q, (0, 0))
        sums[q] = (low + term[0], high + term[1])
    return sums


def ideal_sum(runs: Runs, values: list[Bounds], discounts: Discounts) -> Bounds:
    """``ndcg.definition.idcg`` between two integers at the scale 2^(2 FIXED_BITS): the ideal
    list given as runs of one value (`engine.ideal`), each run's value times the sum of its
    ranks' discounts."""
    low = high = filled = 0
    for value, count in runs:
        term = product_bounds(values[value], discounts.between(filled + 1, filled + count))
        low, high, filled = low + term[0], high + term[1], filled + count
    return low, high


QueryInputs = Callable[[], tuple[Mapping[str, Judgment], Sequence[Posting]]]


def _empty_value(config: Config, qid: str, ranked: int) -> tuple[int | None, bool]:
    """The nDCG of a query whose IDCG is 0, exactly (None: undefined), and whether it enters
    the mean (``ndcg.empty``)."""
    value, in_mean = empty.CHOICES[config.choice("empty")](qid, ranked)
    return None if value is None else int(value), in_mean


def query_result(
    config: Config, qid: str, bounds: QueryBounds, inputs: QueryInputs, ranked: int
) -> tuple[dict[str, str | None], MeanPart]:
    """One query's entry of the result object, correctly rounded, and its share of the mean;
    a query whose bounds cannot round a value goes to the reference, on the judgments and
    postings `inputs` gives (``ndcg.precision``). `ranked` is n, the length of its ranking
    (``ndcg.definition.dcg``), which the empty axis may read."""
    dcg, idcg = _rounded(*_scaled(bounds.dcg)), _rounded(*_scaled(bounds.idcg))
    low, high = bounds.idcg
    if dcg is not None and idcg is not None and (low > 0 or high <= 0):
        entry = {"dcg": plain_digits(dcg), "idcg": plain_digits(idcg)}
        if low > 0:
            ndcg_low, ndcg_high = bounds.ndcg()
            ndcg = _rounded(ndcg_low, ndcg_high)
            if ndcg is not None:
                return {"ndcg": plain_digits(ndcg), **entry}, MeanPart.between(ndcg_low, ndcg_high)
        else:
            exact, in_mean = _empty_value(config, qid, ranked)
            ndcg_text = None if exact is None else plain_digits(Decimal(exact))
            return {"ndcg": ndcg_text, **entry}, MeanPart.of(exact, in_mean)
    result = reference_result(config, qid, *inputs())
    return query_object(result), MeanPart.of_real(result.value, result.in_mean)


def query_share(
    config: Config, qid: str, bounds: QueryBounds, inputs: QueryInputs, ranked: int
) -> MeanPart:
    """`query_result`'s share of the mean without the entry: no value is rounded, the bounds
    enclose the true nDCG wherever IDCG's sign is settled (the mean is rounded once, from the
    shares: ``ndcg.precision``), and only a query whose IDCG may be 0 or positive goes to
    the reference."""
    low, high = bounds.idcg
    if low > 0:
        return MeanPart.between(*bounds.ndcg())
    if high <= 0:
        return MeanPart.of(*_empty_value(config, qid, ranked))
    result = reference_result(config, qid, *inputs())
    return MeanPart.of_real(result.value, result.in_mean)
