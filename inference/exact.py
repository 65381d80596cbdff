"""Exact decimals as integers numpy can sum without error.

The per-query values are decimals of at most the spec's output digits (``ndcg.precision``):
scaled to a common power of ten they are integers of some forty digits, too wide for int64.
Each is split into limbs of a base 10^k, small enough that a signed sum of n limbs stays inside
int64, so a matrix of signs or of resampling counts times the limbs gives every signed sum
exactly; carrying between limbs then puts each sum in a normal form whose rows compare, and
sort, lexicographically in the order of the numbers they stand for."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

INT64_HEADROOM = 2**62
"""A bound on any limb sum: half of int64's range, so carries cannot overflow either."""


def scaled(values: Sequence[Decimal]) -> tuple[list[int], int]:
    """`values` as integers times 10**exponent, one exponent for all: read from the digits
    themselves, so no decimal context rounds them."""
    exponent = min((int(v.as_tuple().exponent) for v in values if v), default=0)
    integers = []
    for value in values:
        sign, digits, own = value.as_tuple()
        if not value:
            # A zero's own exponent may lie below the common one (0E-40 beside 1.0): it is 0
            # at any exponent, where a negative power of ten would make it a float.
            integers.append(0)
            continue
        magnitude = int("".join(map(str, digits))) * 10 ** (int(own) - exponent)
        integers.append(-magnitude if sign else magnitude)
    return integers, exponent


@dataclass(frozen=True)
class Limbs:
    """Integers v_i split as v_i = sum_j limbs[j, i] · base^(m−1−j), every limb of v_i's sign
    and below base in magnitude; base is chosen so that n terms of ±1 or of counts summing to
    at most n times a limb stay below `INT64_HEADROOM`."""

    limbs: np.ndarray
    base: int

    @classmethod
    def of(cls, integers: Sequence[int], weight: int | None = None) -> Limbs:
        """The limbs of `integers`; `weight` bounds the sum of the absolute multipliers a row
        applies (the number of values by default)."""
        bound = max(weight or len(integers), 1)
        digits = max(1, int(math.log10(INT64_HEADROOM // (bound + 1))))
        base = 10**digits
        widest = max((abs(v) for v in integers), default=0)
        count = 1
        while base**count <= widest:
            count += 1
        limbs = np.zeros((count, len(integers)), dtype=np.int64)
        for i, value in enumerate(integers):
            magnitude, sign = abs(value), -1 if value < 0 else 1
            for j in range(count - 1, -1, -1):
                magnitude, limbs[j, i] = divmod(magnitude, base)
                limbs[j, i] *= sign
        return cls(limbs, base)

    def combined(self, multipliers: np.ndarray) -> np.ndarray:
        """Rows of `multipliers` (one multiplier per value) times the values, exactly, in
        normal form (`normal`)."""
        return self.normal(multipliers.astype(np.int64) @ self.limbs.T)

    def normal(self, rows: np.ndarray) -> np.ndarray:
        """Rows of limb sums carried so that every limb but the first lies in [0, base): one
        form per number, ordered lexicographically as the numbers are."""
        rows = np.array(rows, dtype=np.int64)
        for j in range(rows.shape[1] - 1, 0, -1):
            carry = np.floor_divide(rows[:, j], self.base)
            rows[:, j] -= carry * self.base
            rows[:, j - 1] += carry
        return rows

    def row_of(self, value: int) -> np.ndarray:
        """One integer in normal form, to compare rows with."""
        count = self.limbs.shape[0]
        row = []
        for _ in range(count - 1):
            value, limb = divmod(value, self.base)
            row.append(limb)
        row.append(value)
        return np.array(row[::-1], dtype=np.int64)

    def value_of(self, row: np.ndarray) -> int:
        """The integer a row in normal form stands for."""
        total = 0
        for limb in row:
            total = total * self.base + int(limb)
        return total


def compared(rows: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per row in normal form: −1, 0 or 1 as it is below, equal to or above `target`."""
    order = np.zeros(len(rows), dtype=np.int8)
    undecided = np.ones(len(rows), dtype=bool)
    for j in range(rows.shape[1]):
        sign = np.sign(rows[:, j] - target[j]).astype(np.int8)
        order = np.where(undecided, sign, order)
        undecided &= sign == 0
    return order


def sorted_rows(rows: np.ndarray) -> np.ndarray:
    """Rows in normal form in ascending order of the numbers they stand for."""
    return rows[np.lexsort(rows.T[::-1])]


def mean(values: Sequence[Decimal]) -> Fraction:
    """The exact mean of `values`."""
    return sum((Fraction(v) for v in values), Fraction(0)) / len(values)
