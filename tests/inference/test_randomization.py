"""The sign-flip test against p-values enumerated by hand, and the tie that float64 misses.

d = (0.1, 0.2, 0.4): the eight sign vectors give T = ±0.7, ±0.5, ±0.3, ±0.1, the observed 0.7
among them, so two-sided p = 2/8 (|T| ≥ 0.7: ±0.7), greater 1/8, less 8/8.

d = (0.1, −0.1, 0.3), observed 0.3: T over (s1, s2, s3) is
    +++ 0.3, −++ 0.1, +−+ 0.5, ++− −0.3, −−+ 0.3, −+− −0.5, +−− −0.1, −−− −0.3,
so |T| ≥ 0.3 six times (p = 6/8) and T ≥ 0.3 three times (3/8): −−+ ties the observed value,
since flipping the two cancelling differences changes nothing.
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from ndcgspec.inference.paired import Paired
from ndcgspec.inference.randomization import DrawnSigns, drawn_signs, sign_flip


def decimals(*texts: str) -> list[Decimal]:
    return [Decimal(t) for t in texts]


@pytest.mark.parametrize(
    ("alternative", "expected"),
    [("two-sided", Fraction(2, 8)), ("greater", Fraction(1, 8)), ("less", Fraction(8, 8))],
)
def test_three_distinct_differences_by_hand(alternative: str, expected: Fraction) -> None:
    result = sign_flip(decimals("0.1", "0.2", "0.4"), alternative)
    assert result.exact and result.total == 8
    assert result.p == expected


@pytest.mark.parametrize(
    ("alternative", "expected"),
    [("two-sided", Fraction(6, 8)), ("greater", Fraction(3, 8)), ("less", Fraction(7, 8))],
)
def test_cancelling_differences_tie_with_the_observed_value(
    alternative: str, expected: Fraction
) -> None:
    # less: T ≤ 0.3 for every vector but +−+ (0.5).
    assert sign_flip(decimals("0.1", "-0.1", "0.3"), alternative).p == expected


def naive_float_count(differences: list[float], alternative: str) -> int:
    """What a float64 implementation without a tolerance counts."""
    observed = sum(differences)
    count = 0
    for signs in itertools.product((1, -1), repeat=len(differences)):
        t = sum(s * d for s, d in zip(signs, differences, strict=True))
        count += abs(t) >= abs(observed) if alternative == "two-sided" else t <= observed
    return count


def test_exactly_opposite_differences_that_float64_fails_to_cancel() -> None:
    # a = (0.0, 0.3, 0.0), b = (0.1, 0.2, 0.2): exactly d = (−0.1, 0.1, −0.2), so flipping the
    # first two leaves T unchanged; in float64, 0.3 − 0.2 = 0.09999999999999998 ≠ 0.1.
    # Exactly, T over +++ ... as in the module docstring's order:
    #   −0.2, 0, −0.4, 0.2, −0.2, 0.4, 0, 0.2: |T| ≥ 0.2 six times, T ≤ −0.2 three times.
    a = {"q1": Decimal("0.0"), "q2": Decimal("0.3"), "q3": Decimal("0.0")}
    b = {"q1": Decimal("0.1"), "q2": Decimal("0.2"), "q3": Decimal("0.2")}
    paired = Paired.of(a, b)
    assert paired.differences == tuple(decimals("-0.1", "0.1", "-0.2"))
    floats = [float(a[q]) - float(b[q]) for q in a]
    assert floats[0] + floats[1] != 0
    assert sign_flip(paired.differences, "two-sided").p == Fraction(6, 8)
    assert sign_flip(paired.differences, "less").p == Fraction(3, 8)
    # The float64 counts differ: the exact handling of the tie is what gives 6/8 and 3/8.
    assert naive_float_count(floats, "two-sided") == 4
    assert naive_float_count(floats, "less") != 3


def test_all_zero_differences_are_never_significant() -> None:
    assert sign_flip(decimals("0", "0", "0", "0")).p == 1


def test_every_flip_of_forty_digit_values_is_counted_exactly() -> None:
    # Values of the output digits: any float view of 40 digits rounds, the integers do not.
    # d3 = −(d1 + d2), so the observed T is 0 and T = s1·d1 + s2·d2 − s3·(d1 + d2) is
    #   +++ 0, −−− 0, ++− 2(d1+d2), −−+ −2(d1+d2), +−+ −2·d2, −+− 2·d2, −++ −2·d1, +−− 2·d1:
    # |T| ≥ 0 always (p = 1), T ≥ 0 five times (p = 5/8).
    d1 = Decimal("0.1234567890123456789012345678901234567891")
    d2 = Decimal("0.0000000000000000000000000000000000000009")
    d3 = Decimal("-0.1234567890123456789012345678901234567900")
    assert Fraction(d1) + Fraction(d2) + Fraction(d3) == 0
    assert sign_flip([d1, d2, d3]).p == 1
    assert sign_flip([d1, d2, d3], "greater").p == Fraction(5, 8)


def test_monte_carlo_counts_the_observed_vector_once() -> None:
    # 25 equal positive differences: only the all-plus vector reaches T = 25·d, which a
    # draw of 10,000 from 2^25 vectors almost never holds: p = (0 + 1) / (10000 + 1).
    result = sign_flip([Decimal("0.01")] * 25, "two-sided", seed=1)
    assert not result.exact
    assert result.total == 10_001
    signs = drawn_signs(25, 10_000, 1)
    extreme = int((abs(signs.sum(axis=1)) == 25).sum())
    assert result.p == Fraction(extreme + 1, 10_001)


def test_monte_carlo_is_reproducible_for_a_seed_and_differs_between_seeds() -> None:
    differences = [Decimal(f"0.0{i % 7}") - Decimal("0.03") for i in range(30)]
    first = sign_flip(differences, seed=7)
    assert sign_flip(differences, seed=7) == first
    assert drawn_signs(30, 10_000, 7).tolist() != drawn_signs(30, 10_000, 8).tolist()


def test_an_unknown_alternative_is_refused() -> None:
    with pytest.raises(ValueError, match="alternative"):
        sign_flip(decimals("0.1", "0.2"), "sideways")


def test_a_larger_draw_begins_with_the_smaller_one() -> None:
    # What lets a test draw on and keep its earlier draws, and every test of a comparison
    # with as many queries share one draw.
    small, large = drawn_signs(30, 1_000, 3), drawn_signs(30, 5_000, 3)
    assert (large[:1_000] == small).all()
    shared = DrawnSigns(3)
    assert (shared.first(30, 5_000) == large).all()
    assert (shared.first(30, 1_000) == small).all()


def test_a_drawn_outcome_carries_its_monte_carlo_interval() -> None:
    result = sign_flip([Decimal("0.01")] * 25, "two-sided", seed=1)
    estimate = result.estimate()
    assert (estimate.p, estimate.draws) == (result.p, 10_000)
    assert estimate.low <= result.p <= estimate.high
    enumerated = sign_flip(decimals("0.1", "0.2", "0.4")).estimate()
    assert enumerated.low == enumerated.high == Fraction(2, 8) and enumerated.draws is None


def test_a_draw_beyond_the_bound_on_signs_is_refused_before_it_is_held() -> None:
    from ndcgspec.inference.randomization import MAX_SIGNS
    from ndcgspec.reference.errors import NdcgSpecError

    # 50 queries: one draw more than MAX_SIGNS / 50 would hold more than MAX_SIGNS signs.
    draws = MAX_SIGNS // 50 + 1
    with pytest.raises(NdcgSpecError, match=f"{draws} sign-flip draws of 50 queries"):
        drawn_signs(50, draws, 0)


def test_signs_drawn_in_blocks_are_the_rows_of_one_draw() -> None:
    # The documented draw, made here in one piece: rows shuffled by one generator.
    rng = np.random.default_rng(11)
    whole = rng.permuted(np.tile(np.arange(2), (3000, 700, 1)), axis=-1)
    expected = np.where(whole[..., 0] == 0, 1, -1)
    # 700 queries: blocks of 1498 rows (2^20 // 700), so 3000 draws take three blocks.
    assert (drawn_signs(700, 3000, 11) == expected).all()
