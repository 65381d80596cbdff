"""Worked examples from the literature and from hand arithmetic (spec anchor ``ndcg.definition``).

Each expected number is a literal printed to 3 (or 4) decimals. The reference's exact value,
rounded half-even to that many places, must equal the literal; where the example allows it, the
value is also compared with an independent float computation (`float_dcg`).

Error model of the independent computation: with u = 2^-53, each term g/w(i) carries the error
of one logarithm (≤ 1 ulp, 2u) and one division (u); summing n non-negative terms adds at most
(n − 1)u, so a DCG is within (n + 2)u ≤ 3nu relative, and the ratio nDCG within 2·3nu + u ≤ 7nu.
The tests allow relative error c·n·u with c = 8.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from itertools import permutations
from typing import Any

import mpmath
import pytest

from ndcgspec.reference import (
    Config,
    QueryResult,
    qrels_from_labels,
    run_from_scores,
)
from ndcgspec.reference.evaluate import evaluate

UNIT_ROUNDOFF = 2.0**-53
ERROR_FACTOR = 8
Weight = Callable[[int], float]

WIKI = [3, 2, 3, 0, 1, 2]
SECOND = [2, 3, 1, 0, 2]


def log2_weight(rank: int) -> float:
    return 1 / math.log2(rank + 1)


def jarvelin_weight(base: float) -> Weight:
    return lambda rank: 1.0 if rank < base else 1 / math.log(rank, base)


def linear(grade: int) -> int:
    return grade


def exponential(grade: int) -> int:
    return 2**grade - 1


def float_dcg(gains: Sequence[int], weight: Weight, k: int | None = None) -> float:
    """Σ g_i · w(i) over ranks 1..k in binary floating point, independent of the reference."""
    total = 0.0
    for index, g in enumerate(gains[:k] if k else gains):
        total += g * weight(index + 1)
    return total


def float_ndcg(
    ranked: Sequence[int],
    ideal_from: Sequence[int],
    gain: Callable[[int], int],
    weight: Weight = log2_weight,
    k: int | None = None,
) -> float:
    ideal = sorted((gain(g) for g in ideal_from if gain(g) > 0), reverse=True)
    return float_dcg([gain(g) for g in ranked], weight, k) / float_dcg(ideal, weight, k)


def score(
    ranked: Sequence[int | None],
    judged_only: Sequence[int] = (),
    k: int | None = None,
    **axes: Any,
) -> QueryResult:
    """The reference's result for one query whose run lists documents with these grades in
    rank order (None: a document absent from the qrels); `judged_only` adds judged documents
    the run does not retrieve."""
    labels = {f"r{i}": str(g) for i, g in enumerate(ranked) if g is not None}
    labels.update({f"j{i}": str(g) for i, g in enumerate(judged_only)})
    run = [(f"r{i}", str(len(ranked) - i)) for i in range(len(ranked))]
    config = Config.from_mapping({**axes, "cutoff": k})
    evaluation = evaluate(config, qrels_from_labels({"q": labels}), run_from_scores({"q": run}))
    return evaluation.per_query["q"]


def rounded(value: mpmath.mpf | None, places: int = 3) -> Decimal:
    assert value is not None
    return Decimal(mpmath.nstr(value, 40, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN
    )


def assert_close(value: mpmath.mpf | None, independent: float, terms: int) -> None:
    assert value is not None
    bound = ERROR_FACTOR * terms * UNIT_ROUNDOFF * abs(independent)
    assert abs(float(value) - independent) <= bound, (mpmath.nstr(value, 20), independent)


# --- Grades 3,2,3,0,1,2 in rank order, all six judged --------------------------------------


@pytest.mark.parametrize(
    ("gain", "ndcg", "dcg", "idcg"),
    [(linear, "0.961", "6.861", "7.141"), (exponential, "0.949", "13.848", "14.595")],
)
def test_six_graded_documents(gain: Callable[[int], int], ndcg: str, dcg: str, idcg: str) -> None:
    result = score(WIKI, gain=gain.__name__, k=6)
    assert (rounded(result.ndcg), rounded(result.dcg), rounded(result.idcg)) == (
        Decimal(ndcg),
        Decimal(dcg),
        Decimal(idcg),
    )
    assert_close(result.ndcg, float_ndcg(WIKI, WIKI, gain), 6)
    assert_close(result.dcg, float_dcg([gain(g) for g in WIKI], log2_weight), 6)


@pytest.mark.parametrize(
    ("gain", "by_cutoff"),
    [
        (linear, ["1.000", "0.871", "0.978", "0.853", "0.861", "0.961"]),
        (exponential, ["1.000", "0.779", "0.959", "0.872", "0.876", "0.949"]),
    ],
)
def test_six_graded_documents_at_every_cutoff(
    gain: Callable[[int], int], by_cutoff: list[str]
) -> None:
    for k, expected in enumerate(by_cutoff, start=1):
        result = score(WIKI, gain=gain.__name__, k=k)
        assert rounded(result.ndcg) == Decimal(expected), k
        assert_close(result.ndcg, float_ndcg(WIKI, WIKI, gain, k=k), k)


@pytest.mark.parametrize(
    ("base", "weight", "linear_dcg"),
    [
        ("e", lambda r: 1 / math.log(r + 1), "9.899"),
        ("10", lambda r: 1 / math.log10(r + 1), "22.792"),
    ],
)
def test_log_base_changes_dcg_but_cancels_in_ndcg(
    base: str, weight: Weight, linear_dcg: str
) -> None:
    result = score(WIKI, gain="linear", log_base=base, k=6)
    assert rounded(result.dcg) == Decimal(linear_dcg)
    assert_close(result.dcg, float_dcg(WIKI, weight), 6)
    for gain, expected in (("linear", "0.961"), ("exponential", "0.949")):
        ndcg = score(WIKI, gain=gain, log_base=base, k=6).ndcg
        assert rounded(ndcg) == Decimal(expected)


def test_jarvelin_kekalainen_discount_base_2() -> None:
    result = score(WIKI, discount="jarvelin2002", log_base="2", k=6)
    assert (rounded(result.dcg), rounded(result.idcg), rounded(result.ndcg)) == (
        Decimal("8.097"),
        Decimal("8.693"),
        Decimal("0.932"),
    )
    assert_close(result.ndcg, float_ndcg(WIKI, WIKI, linear, jarvelin_weight(2)), 6)
    exp = score(WIKI, gain="exponential", discount="jarvelin2002", log_base="2", k=6)
    assert rounded(exp.ndcg) == Decimal("0.898")
    assert_close(exp.ndcg, float_ndcg(WIKI, WIKI, exponential, jarvelin_weight(2)), 6)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_jarvelin_kekalainen_base_10_leaves_six_ranks_undiscounted(gain: str) -> None:
    assert score(WIKI, gain=gain, discount="jarvelin2002", log_base="10", k=6).ndcg == 1
    for ordering in sorted(set(permutations(WIKI))):
        result = score(ordering, gain=gain, discount="jarvelin2002", log_base="10", k=6)
        assert result.ndcg == 1, ordering


# --- Grades 2,3,1,0,2 in rank order, all five judged ---------------------------------------


def test_five_graded_documents_exponential() -> None:
    result = score(SECOND, gain="exponential", k=5)
    assert rounded(result.ndcg) == Decimal("0.839")
    assert rounded(result.dcg) == Decimal("9.077")
    # IDCG = 7 + 3/log2(3) + 3/2 + 1/log2(5) = 7 + 1.892789 + 1.5 + 0.430677 = 10.823466.
    # A figure of 10.824 is the sum of the terms each rounded to 3 places first.
    assert rounded(result.idcg) == Decimal("10.823")
    assert_close(result.ndcg, float_ndcg(SECOND, SECOND, exponential), 5)
    assert_close(result.idcg, 7 + 3 / math.log2(3) + 1.5 + 1 / math.log2(5), 5)


def test_five_graded_documents_linear() -> None:
    result = score(SECOND, gain="linear", k=5)
    assert rounded(result.ndcg) == Decimal("0.908")
    assert_close(result.ndcg, float_ndcg(SECOND, SECOND, linear), 5)


def test_worst_ordering_of_the_five_is_0_5664() -> None:
    worst = [0, 1, 2, 2, 3]
    result = score(worst, gain="exponential", k=5)
    dcg = 1 / math.log2(3) + 3 / math.log2(4) + 3 / math.log2(5) + 7 / math.log2(6)
    idcg = 7 + 3 / math.log2(3) + 3 / math.log2(4) + 1 / math.log2(5)
    assert_close(result.ndcg, dcg / idcg, 5)
    assert mpmath.nstr(result.ndcg, 6) == "0.566448"
    assert rounded(result.ndcg, 4) == Decimal("0.5664")
    # Printed as 0.567 in a widely read tutorial: 0.566448 rounds to 0.566.
    assert rounded(result.ndcg) == Decimal("0.566")


# --- X and Y: ideal from judged grades 3,3,2,2,1,0; zeros of the runs are unjudged ---------

JUDGED_XY = [3, 3, 2, 2, 1, 0]
X_RUN: list[int | None] = [3, None, None, 2, 2, 1]
Y_RUN: list[int | None] = [2, 2, 1, 3, None, None]


def judged_not_retrieved(ranked: Sequence[int | None]) -> list[int]:
    """The judged grades the run does not retrieve (each grade used once)."""
    rest = list(JUDGED_XY)
    for grade in ranked:
        if grade is not None:
            rest.remove(grade)
    return rest


@pytest.mark.parametrize(
    ("k", "gain", "x", "y"),
    [
        (3, linear, "0.509", "0.638"),
        (3, exponential, "0.542", "0.418"),
        (6, linear, "0.699", "0.708"),
        (6, exponential, "0.672", "0.576"),
    ],
)
def test_runs_x_and_y(k: int, gain: Callable[[int], int], x: str, y: str) -> None:
    for ranked, expected in ((X_RUN, x), (Y_RUN, y)):
        result = score(ranked, judged_not_retrieved(ranked), k=k, gain=gain.__name__)
        assert rounded(result.ndcg) == Decimal(expected)
        grades = [0 if g is None else g for g in ranked]
        assert_close(result.ndcg, float_ndcg(grades, JUDGED_XY, gain, k=k), k)


# --- U and V: grades 3,1,1,1,0,0, all judged -----------------------------------------------


@pytest.mark.parametrize(
    ("ranked", "linear_ndcg", "exponential_ndcg"),
    [([1, 1, 1, 3, 0, 0], "0.750", "0.601"), ([3, 0, 1, 1, 1, 0], "0.946", "0.971")],
)
def test_runs_u_and_v(ranked: list[int], linear_ndcg: str, exponential_ndcg: str) -> None:
    for gain, expected in ((linear, linear_ndcg), (exponential, exponential_ndcg)):
        result = score(ranked, gain=gain.__name__, k=6)
        assert rounded(result.ndcg) == Decimal(expected)
        assert_close(result.ndcg, float_ndcg(ranked, ranked, gain), 6)


# --- One relevant document -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "expected"),
    [(1, "1.000"), (2, "0.631"), (3, "0.500"), (10, "0.289"), (11, "0.000"), (15, "0.000")],
)
def test_single_relevant_document_at_rank(rank: int, expected: str) -> None:
    ranked = [1 if r == rank else 0 for r in range(1, 16)]
    result = score(ranked, k=10)
    assert rounded(result.ndcg) == Decimal(expected)
    if rank <= 10:
        assert_close(result.ndcg, 1 / math.log2(1 + rank), 2)
    else:
        assert result.ndcg == 0


# --- The ideal list: judged or retrieved only ----------------------------------------------


def test_ideal_from_judged_or_retrieved_documents() -> None:
    judged = score([1, 0], judged_only=[3, 3, 2, 0], k=2, ideal="judged")
    assert rounded(judged.ndcg) == Decimal("0.204")
    assert_close(judged.ndcg, 1 / (3 + 3 / math.log2(3)), 2)
    retrieved = score([1, 0], judged_only=[3, 3, 2, 0], k=2, ideal="retrieved")
    assert retrieved.ndcg == 1


# --- Negative gains in the ideal list (``ndcg.negative.keep-in-ideal``) ----------------------
# Closed forms derived by hand; mpmath evaluates them at the reference's 50 digits, and the two
# must agree to 40 significant digits, the precision the spec reports.


def log2(n: int) -> mpmath.mpf:
    return mpmath.log(n, 2)


def assert_exact(value: mpmath.mpf | None, closed_form: mpmath.mpf) -> None:
    assert value is not None
    assert mpmath.almosteq(value, closed_form, rel_eps=mpmath.mpf(10) ** -40), (value, closed_form)


@mpmath.workdps(50)
def test_negative_gain_lowers_the_ideal_dcg() -> None:
    """0, −1, 1 in rank order: DCG = −1/log2 3 + 1/2; the ideal list 1, 0, −1 gives
    IDCG = 1 − 1/2, so nDCG = 1 − 2/log2 3. Under `keep` the ideal list is 1 alone."""
    kept = score([0, -1, 1], negative="keep-in-ideal")
    assert_exact(kept.idcg, mpmath.mpf(1) / 2)
    assert_exact(kept.ndcg, 1 - 2 / log2(3))
    assert rounded(kept.ndcg) == Decimal("-0.262")
    assert_exact(score([0, -1, 1], negative="keep").ndcg, mpmath.mpf(1) / 2 - 1 / log2(3))


@mpmath.workdps(50)
def test_zero_gains_come_before_negative_ones_in_the_ideal_list() -> None:
    """2, −1 retrieved and two unretrieved 0s: the ideal list 2, 0, 0, −1 puts −1 at rank 4."""
    result = score([2, -1], judged_only=[0, 0], negative="keep-in-ideal")
    assert_exact(result.ndcg, (2 - 1 / log2(3)) / (2 - 1 / log2(5)))


@mpmath.workdps(50)
def test_ideal_dcg_below_zero_is_an_empty_query() -> None:
    """−3, 1: IDCG = 1 − 3/log2 3 < 0, so the query is empty (``ndcg.definition.ndcg``)."""
    result = score([-3, 1], negative="keep-in-ideal", empty="nan")
    assert_exact(result.idcg, 1 - 3 / log2(3))
    assert result.ndcg is None


@mpmath.workdps(50)
def test_negative_exponential_gain_in_the_ideal_list() -> None:
    """0, −1, 2 under exponential gain: gains 0, −1/2, 3; DCG = −(1/2)/log2 3 + 3/2 and the
    ideal list 3, 0, −1/2 gives IDCG = 3 − 1/4."""
    result = score([0, -1, 2], gain="exponential", negative="keep-in-ideal")
    assert_exact(result.ndcg, (mpmath.mpf(3) / 2 - 1 / (2 * log2(3))) / (mpmath.mpf(11) / 4))


def assert_forty_digits(value: mpmath.mpf | None, closed_form: mpmath.mpf) -> None:
    """The output, correctly rounded to 40 digits (``ndcg.precision``), is the closed form's
    50-digit value rounded to 40 digits."""
    assert value is not None
    assert mpmath.nstr(value, 40) == mpmath.nstr(closed_form, 40), (value, closed_form)


@mpmath.workdps(50)
def test_binary_gain_counts_every_positive_label_once() -> None:
    """3, 0, 0.5, −1, 1 in rank order under gain=binary (``ndcg.gain.binary``), the label
    taken after the fractional and negative axes: kept, 0.5 gains 1 and −1 (negative=keep)
    gains 0, so DCG = 1 + 1/log2 4 + 1/log2 6 over the three positive labels' IDCG =
    1 + 1/log2 3 + 1/log2 4; truncated, 0.5 becomes 0 and gains 0, so DCG = 1 + 1/log2 6 over
    IDCG = 1 + 1/log2 3. Linear gain would count 3 for the first document."""
    ranked: list[Any] = [3, 0, "0.5", -1, 1]
    kept = score(ranked, gain="binary", negative="keep")
    assert_forty_digits(kept.dcg, 1 + mpmath.mpf(1) / 2 + 1 / log2(6))
    assert_forty_digits(kept.idcg, 1 + 1 / log2(3) + mpmath.mpf(1) / 2)
    assert rounded(kept.ndcg) == Decimal("0.885")
    truncated = score(ranked, gain="binary", negative="keep", fractional="truncate")
    assert_forty_digits(truncated.ndcg, (1 + 1 / log2(6)) / (1 + 1 / log2(3)))
    assert rounded(truncated.ndcg) == Decimal("0.850")
