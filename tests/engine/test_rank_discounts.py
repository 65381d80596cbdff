"""The discounts of a run of ranks at once (``engine/rank_discounts.py``): every pair of
fixed-point bounds holds the true discount, computed here independently at 2,000 digits by
mpmath's floating point (p^(i − 1) has 970 digits before its first at rank 10,000 for p =
0.8), and every table, the sieved logarithms' too, is the one made rank by rank from the
reference's own discount (``reference/discount.py``)."""

from __future__ import annotations

from decimal import Decimal

import mpmath
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_log_discounts import SIEVED

from ndcgspec.engine.discounts import RANKS_BLOCK, Discounts
from ndcgspec.engine.fixed_point import DISCOUNT_DPS, FIXED_BITS, fixed_enclosure
from ndcgspec.engine.rank_discounts import fixed_discounts
from ndcgspec.reference import Config
from ndcgspec.reference.arithmetic import computing_with, enclosing
from ndcgspec.reference.discount import discount

PERSISTENCE = st.decimals(Decimal("0.01"), Decimal("0.99"), places=4).map(str)
NOT_SIEVED = st.one_of(
    st.fixed_dictionaries({"discount": st.just("geometric"), "persistence": PERSISTENCE}),
    st.fixed_dictionaries({"discount": st.sampled_from(["reciprocal", "none"])}),
)


def scaled_true_discount(rank: int, mapping: dict[str, str]) -> mpmath.mpf:
    """The discount times 2^FIXED_BITS, at 2,000 digits: p^(i − 1), 1 / i or 1."""
    context = mpmath.mp.clone()
    context.dps = 2000
    if mapping["discount"] == "geometric":
        value = context.mpf(mapping["persistence"]) ** (rank - 1)
    elif mapping["discount"] == "reciprocal":
        value = 1 / context.mpf(rank)
    else:
        value = context.mpf(1)
    return value * context.mpf(2) ** FIXED_BITS


@settings(max_examples=examples(30), deadline=None)
@given(NOT_SIEVED, st.integers(1, 9000), st.integers(0, 1000))
def test_each_pair_of_bounds_holds_the_true_discount(mapping, first, count):
    found = fixed_discounts(Config.from_mapping(mapping), first, first + count)
    assert len(found) == count + 1
    for rank, (low, high) in enumerate(found, first):
        true = scaled_true_discount(rank, mapping)
        # At least as narrow as floor and ceiling of an enclosure narrower than one unit.
        assert low <= true <= high and high - low <= 2, rank


@settings(max_examples=examples(30), deadline=None)
@given(st.one_of(SIEVED, NOT_SIEVED), st.integers(1, 400))
def test_the_table_is_the_one_made_rank_by_rank(mapping, ranks):
    config = Config.from_mapping(mapping)
    table = Discounts(config).covering(ranks)
    with computing_with(enclosing(DISCOUNT_DPS)):
        one_by_one = [fixed_enclosure(discount(rank, config)) for rank in range(1, ranks + 1)]
    assert list(zip(table.low[1 : ranks + 1], table.high[1 : ranks + 1], strict=True)) == one_by_one


def test_a_table_covers_ranks_in_blocks_and_is_kept_for_a_slightly_longer_ranking():
    config = Config.from_mapping({"discount": "geometric"})
    table = Discounts(config).covering(9998)
    assert table.ranks == -(-9998 // RANKS_BLOCK) * RANKS_BLOCK >= 9998
    assert table.covering(10000) is table
