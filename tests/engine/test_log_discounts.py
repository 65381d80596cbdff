"""The logarithmic discounts of many ranks at once (``engine/log_discounts.py``): each encloses
the true discount, computed here independently at 120 digits by mpmath's floating point (the
fixed-point table made from them: ``test_rank_discounts.py``)."""

from __future__ import annotations

import mpmath
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.engine.discounts import Discounts
from ndcgspec.engine.fixed_point import DISCOUNT_DPS
from ndcgspec.engine.log_discounts import sieved_discounts
from ndcgspec.reference import Config
from ndcgspec.reference.arithmetic import computing_with, enclosing

BASES = st.one_of(st.just("e"), st.integers(2, 12).map(str))
SIEVED = st.one_of(
    st.fixed_dictionaries(
        {"discount": st.just("log"), "log_base": BASES, "log_offset": st.integers(1, 4).map(str)}
    ),
    st.fixed_dictionaries({"discount": st.just("jarvelin2002"), "log_base": BASES}),
)


def true_discount(rank: int, mapping: dict[str, str]) -> mpmath.mpf:
    """1 / log_b(i + o), or Järvelin and Kekäläinen's 1 below the base, at 120 digits."""
    context = mpmath.mp.clone()
    context.dps = 120
    base = context.e if mapping["log_base"] == "e" else context.mpf(mapping["log_base"])
    if mapping["discount"] == "jarvelin2002":
        return context.mpf(1) if rank < base else 1 / context.log(rank, base)
    return 1 / context.log(rank + int(mapping["log_offset"]), base)


@settings(max_examples=examples(40), deadline=None)
@given(SIEVED, st.integers(1, 60), st.integers(0, 300))
def test_each_sieved_discount_encloses_the_true_one(mapping, first, count):
    config = Config.from_mapping(mapping)
    with computing_with(enclosing(DISCOUNT_DPS)):
        found = sieved_discounts(config, first, first + count)
        assert found is not None and len(found) == count + 1
        for rank, weight in enumerate(found, first):
            assert weight.a <= true_discount(rank, mapping) <= weight.b, rank


def test_a_longer_table_extends_a_shorter_one_with_the_same_numbers():
    config = Config.from_mapping({"discount": "log", "log_base": "10", "log_offset": "2"})
    short = Discounts(config).covering(97)
    longer = short.covering(1000)
    whole = Discounts(config).covering(1000)
    assert (longer.low, longer.high) == (whole.low, whole.high)
    assert longer.low[: short.ranks + 1] == short.low


def test_other_discounts_and_fractional_parameters_are_not_sieved():
    for mapping in [
        {"discount": "reciprocal"},
        {"discount": "geometric"},
        {"discount": "none"},
        {"discount": "log", "log_base": "1.5"},
        {"discount": "log", "log_offset": "0.5"},
        {"discount": "jarvelin2002", "log_base": "2.5"},
    ]:
        with computing_with(enclosing(DISCOUNT_DPS)):
            assert sieved_discounts(Config.from_mapping(mapping), 1, 10) is None, mapping


def test_a_rank_below_the_base_weighs_one_under_jarvelin2002():
    # Base 10: ranks 1 .. 9 weigh 1 (§2.2), rank 10 weighs 1 / log10(10) = 1 exactly.
    config = Config.from_mapping({"discount": "jarvelin2002", "log_base": "10"})
    with computing_with(enclosing(DISCOUNT_DPS)):
        found = sieved_discounts(config, 1, 11)
    assert found is not None
    assert all(weight.a == weight.b == 1 for weight in found[:9])
    assert found[9].a <= 1 <= found[9].b
    assert found[10].b < 1
