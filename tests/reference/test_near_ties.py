"""Near ties of irrational gains under every mpmath the dependency range admits
(``ndcg.precision``): an interval comparison that overlaps has no answer, which mpmath 1.3
gives as None and mpmath 1.4 as a ValueError; either is an undecided comparison, decided
again at more digits. Expected values are closed forms evaluated here at 120 digits."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal

import mpmath
import pytest

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.arithmetic import Undecided, computing_with, enclosing, less, positive
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import qrels_from_labels, run_from_scores

NEAR = "1.5000000000000000000000000000001"


def _forty_digits(value: mpmath.mpf) -> str:
    """`value` correctly rounded to 40 significant digits, as the result objects write it."""
    exact = Decimal(mpmath.nstr(value, 110, strip_zeros=False))
    step = Decimal(1).scaleb(exact.adjusted() - 39)
    return format(exact.quantize(step, ROUND_HALF_EVEN, Context(prec=120)), "f")


def _ndcg(measure: str, labels: dict[str, str], scores: dict[str, str]) -> str:
    config = parse_measure(measure)
    result = evaluate(config, qrels_from_labels({"q": labels}), run_from_scores({"q": scores}))
    return result.to_json()["per_query"]["q"]["ndcg"]


def test_a_gain_of_a_tiny_label_beside_a_large_one() -> None:
    # Gains 2^(1e-100) − 1 and 1 at ranks 1 and 2; the ideal list puts 1 first.
    with mpmath.workdps(120):
        tiny = mpmath.power(2, mpmath.mpf("1e-100")) - 1
        second = 1 / mpmath.log(3, 2)
        expected = (tiny + second) / (1 + tiny * second)
    got = _ndcg("nDCG(gain=exponential)", {"a": "1E-100", "b": "1"}, {"a": "2", "b": "1"})
    assert got == _forty_digits(expected)


def test_tied_documents_with_labels_1e31_apart_under_ties_average() -> None:
    # Two tied documents share their mean gain at ranks 1 and 2; the ideal list orders the
    # gains 2^l − 1, which differ by about 1e-31.
    with mpmath.workdps(120):
        low, high = (mpmath.power(2, mpmath.mpf(v)) - 1 for v in ("1.5", NEAR))
        second = 1 / mpmath.log(3, 2)
        expected = ((low + high) / 2 * (1 + second)) / (high + low * second)
    got = _ndcg(
        "nDCG(gain=exponential,ties=average)", {"a": "1.5", "b": NEAR}, {"a": "1", "b": "1"}
    )
    assert got == _forty_digits(expected)


class _Overlapping:
    """A number whose comparisons have no answer, as mpmath 1.4 answers for overlapping
    intervals: by raising ValueError."""

    def __lt__(self, other: object) -> bool:
        raise ValueError

    __gt__ = __lt__


def test_a_comparison_that_raises_is_undecided_below_the_cap() -> None:
    with computing_with(enclosing(50)), pytest.raises(Undecided):
        less(_Overlapping(), _Overlapping())
    with computing_with(enclosing(50)), pytest.raises(Undecided):
        positive(_Overlapping())


def test_a_comparison_that_raises_counts_as_equality_at_the_cap() -> None:
    with computing_with(enclosing(50, at_cap=True)):
        assert less(_Overlapping(), _Overlapping()) is False
        assert positive(_Overlapping()) is False
