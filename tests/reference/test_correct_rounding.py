"""Spec 2.0 output digits (``ndcg.precision``): every output is its true value correctly rounded
to 40 significant digits, ties to even; no order of summation changes a digit; the reference's
rule at its precision cap; the engine's `MeanPart`; fingerprints of the major version.

Expected values come from exact fractions (Python's `fractions`) rounded by Python's `decimal`
module, or from hand arithmetic, never from the code under test.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import pytest
import yaml
from conftest import REPO_ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.engine.evaluate import evaluate_queries
from ndcgspec.engine.mean import MeanPart, NeedsMoreDigits
from ndcgspec.engine.prepared import prepare
from ndcgspec.engine.read import read_qrels_columns, read_run_columns, run_pieces
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import arithmetic, qrels_from_labels, run_from_scores
from ndcgspec.reference.arithmetic import (
    EXACT,
    Real,
    computing_with,
    correctly_rounded,
    enclosing,
    enclosure,
    number,
    numbers,
)
from ndcgspec.reference.decimals import plain_digits
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.precision import mpf_fraction, working_precision
from ndcgspec.reference.trec_io import opened

DIGITS = 40
SPEC = REPO_ROOT / "spec" / "ndcg.yaml"
HALF_EVEN = Context(prec=DIGITS, rounding=ROUND_HALF_EVEN)


def rounded(value: Fraction) -> str:
    """`value` to 40 significant digits, ties to even, written with all 40 (Python's decimal
    division is correctly rounded)."""
    if value == 0:
        return "0"
    digits = HALF_EVEN.divide(Decimal(value.numerator), Decimal(value.denominator))
    return format(
        digits.quantize(Decimal(1).scaleb(digits.adjusted() - DIGITS + 1), context=HALF_EVEN), "f"
    )


def per_addition(labels: list[str]) -> str:
    """The spec 1.x digits: reciprocal-discounted labels added one by one with mpmath at 50
    digits, then written with 40."""
    with mpmath.workdps(50):
        total = mpmath.mpf(0)
        for rank, label in enumerate(labels, 1):
            total += mpmath.mpf(label) * (mpmath.mpf(1) / rank)
        return mpmath.nstr(
            total, DIGITS, strip_zeros=False, min_fixed=-mpmath.inf, max_fixed=mpmath.inf
        )


def scored(measure: str, labels: dict[str, dict[str, str]], scores: dict[str, Any]) -> dict:
    return evaluate(
        parse_measure(measure), qrels_from_labels(labels), run_from_scores(scores)
    ).to_json()


def test_halfway_value_rounds_to_even_where_per_addition_rounding_did_not() -> None:
    """Labels 0.5, 0, 4.5e-40 at ranks 1–3 under discount=reciprocal: DCG = 1/2 + 1.5e-40,
    41 significant digits ending in 5, halfway between ...0001 and ...0002; the even one
    wins. Spec 1.x's per-addition digits gave ...0001."""
    labels = ["0.5", "0", "0.00000000000000000000000000000000000000045"]
    true_dcg = sum(Fraction(label) / rank for rank, label in enumerate(labels, 1))
    assert true_dcg == Fraction(1, 2) + Fraction(15, 10**41)
    expected = rounded(true_dcg)
    assert expected == "0.5000000000000000000000000000000000000002"
    assert per_addition(labels) == "0.5000000000000000000000000000000000000001"
    docs = {f"d{rank}": label for rank, label in enumerate(labels, 1)}
    run = {f"d{rank}": 10 - rank for rank in range(1, 4)}
    result = scored("nDCG(discount=reciprocal)", {"q": docs}, {"q": run})
    assert result["per_query"]["q"]["dcg"] == expected


LABELS = st.sampled_from(
    ["0", "1", "2", "3", "0.5", "1.25", "0.1", "7", "0.0000000000000000000000000000000000000001"]
)
EXACT_DISCOUNTS = {
    "reciprocal": lambda rank: Fraction(1, rank),
    "none": lambda rank: Fraction(1),
    "geometric": lambda rank: Fraction(4, 5) ** (rank - 1),
}


@settings(max_examples=examples(40), deadline=None)
@given(
    queries=st.lists(st.lists(LABELS, min_size=1, max_size=8), min_size=1, max_size=5),
    discount=st.sampled_from(sorted(EXACT_DISCOUNTS)),
)
def test_rational_values_are_the_exact_values_rounded(
    queries: list[list[str]], discount: str
) -> None:
    """With rational discounts every value is a fraction: DCG, IDCG, nDCG and the mean equal
    the exact fractions correctly rounded (the mean of the exact nDCGs, not of rounded ones)."""
    weight = EXACT_DISCOUNTS[discount]
    labels = {f"q{i}": {f"d{r}": lab for r, lab in enumerate(q, 1)} for i, q in enumerate(queries)}
    run = {f"q{i}": {f"d{r}": 100 - r for r in range(1, len(q) + 1)} for i, q in enumerate(queries)}
    result = scored(f"nDCG(discount={discount},empty=zero)", labels, run)
    ndcgs = []
    for i, q in enumerate(queries):
        gains = [Fraction(lab) for lab in q]
        dcg = sum(g * weight(r) for r, g in enumerate(gains, 1))
        idcg = sum(
            g * weight(r)
            for r, g in enumerate(sorted((g for g in gains if g > 0), reverse=True), 1)
        )
        ndcg = dcg / idcg if idcg > 0 else Fraction(0)
        ndcgs.append(ndcg)
        assert result["per_query"][f"q{i}"] == {
            "ndcg": rounded(ndcg),
            "dcg": rounded(dcg),
            "idcg": rounded(idcg),
        }
    assert result["aggregate"] == rounded(sum(ndcgs) / len(ndcgs))


@settings(max_examples=examples(25), deadline=None)
@given(
    queries=st.lists(
        st.lists(st.sampled_from(["0", "1", "2", "3", "0.1", "0.3"]), min_size=1, max_size=6),
        min_size=2,
        max_size=6,
    ),
    measure=st.sampled_from(
        ["nDCG", "nDCG(gain=exponential)@3", "nDCG(discount=reciprocal)", "nDCG(ties=average)"]
    ),
    seed=st.integers(0, 2**32),
)
def test_summation_order_changes_no_digit(
    queries: list[list[str]], measure: str, seed: int
) -> None:
    """The same judgments and run, queries and lines shuffled (scores distinct, so the
    ranking is the same): every digit, per query and of the mean, is unchanged."""
    shuffle = random.Random(seed)
    labels = {f"q{i}": {f"d{r}": lab for r, lab in enumerate(q, 1)} for i, q in enumerate(queries)}
    run = {
        f"q{i}": [(f"d{r}", 100 - r) for r in range(1, len(q) + 1)] for i, q in enumerate(queries)
    }
    first = scored(measure, labels, run)
    order = list(labels)
    shuffle.shuffle(order)
    shuffled_labels = {
        q: dict(shuffle.sample(list(labels[q].items()), len(labels[q]))) for q in order
    }
    shuffled_run = {q: shuffle.sample(run[q], len(run[q])) for q in order}
    second = scored(measure, shuffled_labels, shuffled_run)
    assert second["aggregate"] == first["aggregate"]
    assert second["per_query"] == first["per_query"]


def test_value_on_a_halfway_point_with_irrational_discounts_stops_at_the_cap() -> None:
    """Judged 2, 2, a, a; the run finds the two a's; @2 under the log discount. DCG =
    a·(1 + 1/log2 3) and IDCG = 2·(1 + 1/log2 3), so nDCG = a/2 exactly, though no number in
    either is rational. a = 1.0000000000000000000000000000000000000005 puts a/2 halfway
    between ...0002 and ...0003: no enclosure decides it, the cap takes it to be the halfway
    value, and it rounds to even, ...0002."""
    a = "1.0000000000000000000000000000000000000005"
    assert Fraction(a) / 2 == Fraction(5, 10) + Fraction(25, 10**41)
    labels = {"q": {"x": "2", "y": "2", "d1": a, "d2": a}}
    run = {"q": {"d1": 2, "d2": 1}}
    result = scored("nDCG@2", labels, run)
    assert result["per_query"]["q"]["ndcg"] == "0.5000000000000000000000000000000000000002"
    assert result["aggregate"] == "0.5000000000000000000000000000000000000002"


def test_sign_the_cap_cannot_decide_is_zero() -> None:
    """Under keep-in-ideal with the natural log, labels 1, 0, −2 give IDCG = 1/ln 2 + 0 −
    2/ln 4 = 0 exactly, from irrational terms: the query is empty (``ndcg.empty``), here
    scored 1, and IDCG is written 0."""
    labels = {"q": {"a": "1", "b": "0", "c": "-2"}}
    run = {"q": {"a": 3, "b": 2, "c": 1}}
    result = scored("nDCG(log_base=e,negative=keep-in-ideal,empty=one)", labels, run)
    assert result["per_query"]["q"] == {
        "ndcg": "1.000000000000000000000000000000000000000",
        "dcg": "0",
        "idcg": "0",
    }


def test_cap_rule_on_a_computation_no_enclosure_decides() -> None:
    """h·log 2 / log 2 with h halfway at 40 digits: every enclosure straddles h, there is no
    exact value (log 2 is irrational), so the value is h, rounded to even."""
    h = Fraction(5, 10) + Fraction(25, 10**41)
    value = Real(
        lambda: (
            numbers().mpf(h.numerator)
            / h.denominator
            * numbers().log(2, numbers().e)
            / numbers().log(2, numbers().e)
        )
    )
    assert str(correctly_rounded(value)) == "0.5000000000000000000000000000000000000002"


def test_exact_value_decides_what_enclosures_cannot() -> None:
    """(1/3)·3 + 5e-40 = 1.0000000000000000000000000000000000000005, halfway: every enclosure
    of 1/3 straddles it, the rationals give it exactly, and it rounds to even."""
    h = Fraction(1) + Fraction(5, 10**40)
    calls: list[Any] = []

    def compute() -> Any:
        calls.append(numbers())
        return numbers().mpf(1) / 3 * 3 + numbers().mpf(5) / 10**40

    assert str(correctly_rounded(Real(compute))) == "1.000000000000000000000000000000000000000"
    assert rounded(h) == "1.000000000000000000000000000000000000000"
    assert any(isinstance(c, arithmetic.Rationals) for c in calls)


def test_fingerprint_hashes_the_major_version() -> None:
    """``ndcg.definition.versions``: the first 16 hex digits of SHA-256 of "ndcgspec <major>
    <full form>", the major version read from the spec file."""
    major = yaml.safe_load(SPEC.read_text())["spec_version"].split(".")[0]
    assert major == "2"
    config = parse_measure("nDCG@10")
    text = f"ndcgspec {major} {config.full()}"
    assert config.fingerprint() == hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --- The engine: MeanPart, and values near a boundary -------------------------------------

FRACTIONS = st.fractions(min_value=-2, max_value=2, max_denominator=10**6)


def exact_part(value: Fraction | None, in_mean: bool = True) -> MeanPart:
    return MeanPart.of(value, in_mean)


@settings(max_examples=examples(60), deadline=None)
@given(values=st.lists(FRACTIONS, min_size=1, max_size=12), seed=st.integers(0, 2**32))
def test_mean_parts_combine_in_any_order_and_grouping(values: list[Fraction], seed: int) -> None:
    """Parts of single queries, combined in two random orders and groupings, are the same
    part; its mean is the exact mean correctly rounded."""
    shuffle = random.Random(seed)
    parts = [exact_part(v) for v in values]
    left = MeanPart()
    for part in parts:
        left = left.combine(part)
    shuffled = shuffle.sample(parts, len(parts))
    cut = shuffle.randrange(len(parts) + 1)
    first, second = MeanPart(), MeanPart()
    for part in shuffled[:cut]:
        first = first.combine(part)
    for part in shuffled[cut:]:
        second = second.combine(part)
    assert second.combine(first) == left
    mean = left.rounded_mean()
    assert mean is not None
    assert rounded(sum(values, Fraction(0)) / len(values)) == (
        "0"
        if mean == 0
        else format(
            mean.quantize(Decimal(1).scaleb(mean.adjusted() - DIGITS + 1), context=HALF_EVEN), "f"
        )
    )
    assert MeanPart.from_json(left.to_json()) == left


def test_mean_part_undefined_skipped_and_undecided() -> None:
    """An undefined query makes the mean undefined; a skipped one adds nothing; bounds that
    straddle a rounding boundary ask for more digits; a part at another scale is refused."""
    one = exact_part(Fraction(1))
    assert one.combine(exact_part(None)).rounded_mean() is None
    assert one.combine(exact_part(None, in_mean=False)) == one
    assert MeanPart().rounded_mean() is None
    with pytest.raises(NeedsMoreDigits):
        MeanPart.between((1, 3), (2, 3)).rounded_mean()
    with pytest.raises(ValueError):
        MeanPart.from_json({**one.to_json(), "bits": 1})


def block_part(folder: Path, name: str, lines: tuple[str, str], measure: str) -> MeanPart:
    qrels, run = folder / f"{name}.qrels", folder / f"{name}.run"
    qrels.write_text(lines[0])
    run.write_text(lines[1])
    with opened(qrels) as qrels_source, opened(run) as run_source:
        columns = read_qrels_columns(qrels_source)
        run_columns = read_run_columns(
            run_pieces(run_source, columns.qids), str(run), len(columns.qids)
        )
        prep = prepare(columns, run_columns)
    return evaluate_queries(prep, parse_measure(measure))[1]


@settings(max_examples=examples(15), deadline=None)
@given(
    queries=st.lists(
        st.lists(st.sampled_from(["0", "1", "2", "3", "0.5"]), min_size=1, max_size=5),
        min_size=2,
        max_size=6,
    ),
    cut=st.integers(1, 5),
    measure=st.sampled_from(["nDCG", "nDCG(discount=reciprocal)@3", "nDCG(empty=skip)"]),
)
def test_mean_parts_of_blocks_give_the_mean_of_the_whole(
    queries: list[list[str]], cut: int, measure: str
) -> None:
    """Queries scored in two blocks (two files), their parts combined either way round: the
    mean the reference gives for all of them at once."""
    cut = min(cut, len(queries) - 1)
    qrels = [
        "".join(f"q{i} 0 d{r} {lab}\n" for r, lab in enumerate(q, 1)) for i, q in enumerate(queries)
    ]
    run = [
        "".join(f"q{i} Q0 d{r} {r} {100 - r} t\n" for r in range(1, len(q) + 1))
        for i, q in enumerate(queries)
    ]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        first = block_part(folder, "a", ("".join(qrels[:cut]), "".join(run[:cut])), measure)
        second = block_part(folder, "b", ("".join(qrels[cut:]), "".join(run[cut:])), measure)
    labels = {f"q{i}": {f"d{r}": lab for r, lab in enumerate(q, 1)} for i, q in enumerate(queries)}
    scores = {
        f"q{i}": {f"d{r}": 100 - r for r in range(1, len(q) + 1)} for i, q in enumerate(queries)
    }
    whole = scored(measure, labels, scores)["aggregate"]
    for part in (first.combine(second), second.combine(first)):
        mean = part.rounded_mean()
        assert (None if mean is None else plain_digits(mean)) == whole


def test_a_converted_number_is_kept_per_precision_and_never_across_them() -> None:
    # `number` keeps what it converts: 0.1 enclosed at 80 digits is inside its enclosure at
    # 40, and rounded at 60 digits it is nearer 1/10 than rounded at 20, whichever comes first.
    tenth = Fraction(1, 10)
    with computing_with(enclosing(40)):
        coarse = enclosure(number(Decimal("0.1")))
    with computing_with(enclosing(80)):
        fine = enclosure(number(Decimal("0.1")))
    assert coarse[0] < fine[0] <= tenth <= fine[1] < coarse[1]
    with working_precision(60):
        close = abs(mpf_fraction(number(Decimal("0.1"))) - tenth)
    with working_precision(20):
        far = abs(mpf_fraction(number(Decimal("0.1"))) - tenth)
    assert 0 < close < Fraction(1, 10**58) and far > Fraction(1, 10**25)


@given(st.integers(-(10**60), 10**60), st.sampled_from(["int", "decimal", "decimal-exponent"]))
def test_an_integer_converts_to_itself_or_its_tightest_enclosure(value: int, form: str) -> None:
    # 10^60 needs 200 bits: at 20 digits (70 bits) it is enclosed, at 80 digits held exactly.
    given_as = {
        "int": value,
        "decimal": Decimal(value),
        # The same integer written with three decimal places, as 4.000 (Decimal keeps them).
        "decimal-exponent": Decimal(f"{value}000E-3"),
    }[form]
    assert given_as == value
    with computing_with(enclosing(80)):
        assert enclosure(number(given_as)) == (Fraction(value), Fraction(value))
    with computing_with(enclosing(20)):
        low, high = enclosure(number(given_as))
    bits = mpmath.libmp.dps_to_prec(20)
    assert low <= value <= high and high - low <= max(abs(value), 1) * Fraction(2, 2**bits)
    with working_precision(20):
        near = mpf_fraction(number(given_as))
    assert abs(near - value) <= max(abs(value), 1) * Fraction(1, 2**bits)
    with computing_with(EXACT):
        assert number(given_as) == value
