"""`reference.decimals.exact_decimal`, the one rule by which every reader given numbers rather
than text reads them (``ndcg.input.number``, ``ndcg.input.table``): checked against Python's
exact fractions of the binary values and against values worked by hand."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcgspec.reference.errors import NdcgSpecError


@given(st.floats(allow_nan=False, allow_infinity=False, width=64) | st.integers(-(10**30), 10**30))
def test_exact_decimal_of_a_number_is_its_exact_value(value: float | int) -> None:
    from ndcgspec.reference.decimals import exact_decimal

    # Fraction of a float is its exact binary value: the decimal must be that very number.
    assert Fraction(exact_decimal(value)) == Fraction(value)


def test_exact_decimal_of_each_kind() -> None:
    import numpy as np

    from ndcgspec.reference.decimals import exact_decimal

    # float16 0.1 is 1638/16384 = 0.0999755859375 exactly; float32 2^-30 is exact.
    assert exact_decimal(np.float16(0.1)) == Decimal("0.0999755859375")
    assert exact_decimal(np.float32(2.0**-30)) == Decimal("9.31322574615478515625E-10")
    assert exact_decimal(np.int64(-7)) == Decimal(-7)
    assert exact_decimal("1.50") == Decimal("1.50")
    for value in (float("nan"), np.float64("inf"), -math.inf):
        with pytest.raises(NdcgSpecError, match="not a finite decimal"):
            exact_decimal(value)
    for value in (True, np.bool_(False), None, [1]):
        with pytest.raises(TypeError, match="is not a number"):
            exact_decimal(value)
