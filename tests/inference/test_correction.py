"""Holm's and Bonferroni's adjustments against a family worked by hand.

p = (0.01, 0.04, 0.03, 0.005), m = 4. Ascending: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06,
0.04·1 = 0.04, whose running maximum is 0.02, 0.03, 0.06, 0.06; back in the given order Holm
gives (0.03, 0.06, 0.06, 0.02). Bonferroni: (0.04, 0.16, 0.12, 0.02).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ndcgspec.inference.correction import adjusted

FAMILY = [Fraction(1, 100), Fraction(4, 100), Fraction(3, 100), Fraction(5, 1000)]


def test_holm_by_hand() -> None:
    assert adjusted(FAMILY, "holm") == [
        Fraction(3, 100),
        Fraction(6, 100),
        Fraction(6, 100),
        Fraction(2, 100),
    ]


def test_bonferroni_by_hand_capped_at_one() -> None:
    assert adjusted(FAMILY, "bonferroni") == [
        Fraction(4, 100),
        Fraction(16, 100),
        Fraction(12, 100),
        Fraction(2, 100),
    ]
    assert adjusted([Fraction(1, 2), Fraction(1, 3)], "bonferroni") == [1, Fraction(2, 3)]


def test_none_leaves_the_p_values() -> None:
    assert adjusted(FAMILY, "none") == FAMILY


def test_an_unknown_correction_is_refused() -> None:
    with pytest.raises(ValueError, match="correction"):
        adjusted(FAMILY, "sidak")
