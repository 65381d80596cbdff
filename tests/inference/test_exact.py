"""Limb arithmetic against Python's integers: every signed or weighted sum exact, and the
normal form ordered as the numbers are."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ndcgspec.inference.exact import Limbs, compared, scaled, sorted_rows
from ndcgspec.inference.randomization import sign_flip

wide = st.integers(min_value=-(10**45), max_value=10**45)


def test_scaled_reads_the_digits_exactly() -> None:
    values = [Decimal("0.1234567890123456789012345678901234567891"), Decimal("-2.5"), Decimal(0)]
    integers, exponent = scaled(values)
    assert exponent == -40
    assert integers == [1234567890123456789012345678901234567891, -25 * 10**39, 0]


def test_a_zero_written_finer_than_the_other_values_is_the_integer_zero() -> None:
    # 1.0 − 1.0 at 40 digits is 0E-40, one place finer than -1.000…0 (exponent -39): read at
    # the common exponent -39 it is the integer 0, not 0 times 10^-1 (a float, which made the
    # sign-flip test of (-1, 0) count 2 of 4 vectors where all 4 give |T| = 1).
    values = [Decimal("-1." + "0" * 39), Decimal("0E-40")]
    integers, exponent = scaled(values)
    assert (integers, exponent) == ([-(10**39), 0], -39)
    assert all(type(i) is int for i in integers)
    assert sign_flip(values).p == 1


@given(st.lists(wide, min_size=1, max_size=60), st.data())
def test_signed_sums_equal_python_sums(values: list[int], data: st.DataObject) -> None:
    limbs = Limbs.of(values)
    rows = data.draw(
        st.lists(
            st.lists(st.sampled_from((-1, 1)), min_size=len(values), max_size=len(values)),
            min_size=1,
            max_size=8,
        )
    )
    sums = limbs.combined(np.array(rows))
    expected = [sum(s * v for s, v in zip(row, values, strict=True)) for row in rows]
    assert [limbs.value_of(r) for r in sums] == expected
    for row, value in zip(sums, expected, strict=True):
        for target in (value - 1, value, value + 1):
            got = int(compared(row[None, :], limbs.row_of(target))[0])
            assert got == (value > target) - (value < target)
    ordered = [limbs.value_of(r) for r in sorted_rows(sums)]
    assert ordered == sorted(expected)


@given(st.lists(wide, min_size=1, max_size=40), st.data())
def test_resampling_counts_give_exact_sums(values: list[int], data: st.DataObject) -> None:
    n = len(values)
    picks = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    counts = np.bincount(picks, minlength=n)[None, :]
    limbs = Limbs.of(values)
    assert limbs.value_of(limbs.combined(counts)[0]) == sum(values[i] for i in picks)
