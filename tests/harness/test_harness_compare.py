"""The comparison rule of spec/comparison.yaml, tested at its boundary with exact binary values.

Bounds are worked out by hand: c = 8, u_64 = 2^-53, u_32 = 2^-24, so for instance n = 3 at
width 64 and expected 0.5 allows 8 · 3 · 2^-53 = 24 · 2^-53, which is 24 units in the last place
of 0.5 (its ulp is 2^-53).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.outcome import (
    Expectation,
    implied_aggregate,
    judge,
    partial_comparison,
    summed_terms,
)
from ndcgspec.harness.protocol import message_validator
from ndcgspec.reference import Config
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.tolerance import (
    Tolerance,
    compare_value,
    error_constant,
    float_widths,
    ulp,
    unit_roundoff,
)

NUMPY_FLOATS = {64: np.float64, 32: np.float32}


def answered(per_query: dict[str, float | None]) -> CaseAnswer:
    return CaseAnswer(per_query=per_query)


def test_constants_are_those_the_spec_file_states() -> None:
    assert error_constant() == 8
    assert unit_roundoff(64) == Fraction(1, 2**53)
    assert unit_roundoff(32) == Fraction(1, 2**24)


def test_float_rule_passes_at_the_bound_and_fails_one_ulp_past_it() -> None:
    rule = Tolerance(width=64, terms=3)
    at_bound = 0.5 + 24 * 2.0**-53
    past_bound = 0.5 + 25 * 2.0**-53
    assert compare_value("q1", "0.5", at_bound, rule) is None
    miss = compare_value("q1", "0.5", past_bound, rule)
    assert miss is not None
    assert miss.abs_error == Fraction(25, 2**53)
    assert miss.ulps == 25
    assert miss.rel_error == Fraction(50, 2**53)
    assert miss.tolerance == Fraction(24, 2**53)


def test_float_rule_scales_with_expected_above_one() -> None:
    # 8 · 1 · 2^-53 · 2.5 = 20 · 2^-53 = 5 · 2^-51, i.e. 5 ulps of 2.5 (ulp 2^-51).
    rule = Tolerance(width=64, terms=1)
    assert compare_value("dcg", "2.5", 2.5 + 5 * 2.0**-51, rule) is None
    assert compare_value("dcg", "2.5", 2.5 + 6 * 2.0**-51, rule) is not None


def test_float32_width_allows_its_own_roundoff() -> None:
    # n = 1 at width 32: 8 · 2^-24 = 2^-21 absolute for expected ≤ 1.
    assert compare_value("q1", "0.75", 0.75 - 2.0**-21, Tolerance(width=32)) is None
    assert compare_value("q1", "0.75", 0.75 - 2.0**-21 - 2.0**-40, Tolerance(width=32)) is not None
    assert compare_value("q1", "0.75", 0.75 - 2.0**-21, Tolerance(width=64)) is not None


def test_golden_decimal_is_read_exactly() -> None:
    # The double nearest 0.1 is 0.1000000000000000055511151231257827…, 5.55e-18 away.
    assert compare_value("q1", "0.1", 0.1, Tolerance(width=64)) is None
    miss = compare_value("q1", "0.1", 0.1, Tolerance(width=64, decimal_places=40))
    assert miss is not None and miss.abs_error == Fraction(0.1) - Fraction(1, 10)


def test_published_precision_boundary() -> None:
    # 0 places allow exactly 0.5.
    assert compare_value("all", "1", 1.5, Tolerance(width=64, decimal_places=0)) is None
    assert compare_value("all", "1", math.nextafter(1.5, 2), Tolerance(64, decimal_places=0))
    assert compare_value("all", "0.6414", 0.64144999, Tolerance(64, decimal_places=4)) is None
    assert compare_value("all", "0.6414", 0.64145001, Tolerance(64, decimal_places=4))


def test_the_protocol_allows_exactly_the_float_widths_of_the_spec() -> None:
    schema = message_validator("start-reply").schema["properties"]["adapter"]["properties"]
    assert float_widths() == (64, 32)
    assert tuple(schema["float_width"]["enum"]) == float_widths()


@pytest.mark.parametrize("width", [64, 32])
@pytest.mark.parametrize("value", [0.0, 1e-300, 2.0**-130, 0.3, 0.75, 1.0, 2.5, 1e30])
def test_ulp_is_numpys_spacing(width: int, value: float) -> None:
    number = NUMPY_FLOATS[width](value)
    assert ulp(Fraction(float(number)), width) == Fraction(float(np.spacing(number)))
    assert unit_roundoff(width) == Fraction(float(np.finfo(NUMPY_FLOATS[width]).epsneg))


def test_ulp_of_powers_of_two_and_zero() -> None:
    assert ulp(Fraction(1), 64) == Fraction(1, 2**52)
    assert ulp(Fraction(1), 32) == Fraction(1, 2**23)
    assert ulp(Fraction(3, 4), 64) == Fraction(1, 2**53)
    assert ulp(Fraction(0), 64) == Fraction(1, 2**1074)


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        (None, None, True),
        (None, float("nan"), True),
        (None, 0.5, False),
        ("0.5", None, False),
        ("0.5", float("nan"), False),
        ("1", float("inf"), False),
        ("1", "1", False),
        ("1", True, False),
    ],
)
def test_undefined_and_non_numbers(expected: str | None, actual: object, matches: bool) -> None:
    assert (compare_value("q1", expected, actual, Tolerance(64)) is None) is matches


def test_summed_terms_count_dcg_idcg_and_tie_groups() -> None:
    qrels = [["q1", "a", "1"], ["q1", "b", "0"], ["q1", "c", "2"], ["q2", "a", "1"]]
    run = [["q1", "a", "1"], ["q1", "x", "1"], ["q3", "a", "1"]]
    whole = summed_terms(qrels, run, Config.from_mapping({"ties": "docid-desc"}))
    # q1: 2 retrieved + 3 judged; q2: 0 + 1; q3: 1 + 0.
    assert whole == {"q1": 5, "q2": 1, "q3": 1}
    cut = summed_terms(qrels, run, Config.from_mapping({"cutoff": 1, "ties": "average"}))
    # q1 at k=1: 1 + 1, plus its 2 retrieved rows averaged in tie groups.
    assert cut["q1"] == 4


DEFAULT_EMPTY = Config.default().choice("empty")


def test_implied_aggregate_follows_the_empty_axis() -> None:
    assert implied_aggregate({"a": 0.5, "b": 1.0}, "zero") == 0.75
    assert implied_aggregate({"a": 0.5, "b": None}, "nan") is None
    assert implied_aggregate({"a": 0.5, "b": None}, "skip") == 0.5
    assert implied_aggregate({}, "zero") is None
    # empty=error rejects an input with an empty query, so nothing has a mean.
    assert implied_aggregate({"a": 0.5, "b": None}, "error") is None


def test_implied_aggregate_is_the_exact_mean_rounded_once() -> None:
    # The three doubles sum exactly to 2^53 + 2; its third rounds to ...331.5, while summing
    # left to right in doubles loses both ones (2^53 + 1 rounds to 2^53, twice): ...330.5.
    values = {"a": 2.0**53, "b": 1.0, "c": 1.0}
    assert implied_aggregate(values, DEFAULT_EMPTY) == (2.0**53 + 2) / 3
    assert sum(values.values()) / 3 != (2.0**53 + 2) / 3


CONFIG = {"cutoff": None, "ties": "docid-desc", "empty": "zero", "aggregate": "qrels"}


def _case(**fields: object) -> Case:
    """A hand case under CONFIG, with the case format's `fields` (its expected values)."""
    case = {"id": "c", "description": "", "config": CONFIG, "spec": [], "sources": []}
    return Case.from_json({**case, "origin": "hand", **fields})


def _judged(**fields: object) -> Expectation:
    """What an answer to `_case(**fields)` is judged against."""
    return Expectation.of_case(_case(**fields))


def test_a_required_rejection_passes_only_when_rejected() -> None:
    case = _judged(expected={"error": {"anchor": "ndcg.duplicates.error"}})
    assert judge(case, CaseAnswer(rejected="dup"), {}, 64).outcome == "pass"
    verdict = judge(case, answered({"q1": 1.0}), {}, 64)
    assert verdict.outcome == "fail" and "ndcg.duplicates.error" in verdict.message


def test_rejecting_a_valid_input_fails_and_errors_are_errors() -> None:
    case = _judged(expected={"per_query": {"q1": {"ndcg": "1"}}, "aggregate": "1"})
    assert judge(case, CaseAnswer(rejected="no"), {}, 64).outcome == "fail"
    assert judge(case, CaseAnswer(error="boom"), {}, 64).outcome == "error"


def test_missing_and_extra_queries_fail() -> None:
    case = _judged(expected={"per_query": {"q1": {"ndcg": "1"}}, "aggregate": "1"})
    assert judge(case, answered({"q1": 1.0}), {"q1": 1}, 64).outcome == "pass"
    missing = judge(case, answered({}), {}, 64)
    assert missing.outcome == "fail" and "missing" in missing.message
    extra = judge(case, answered({"q1": 1.0, "q2": 0.0}), {"q1": 1}, 64)
    assert extra.outcome == "fail"


def test_a_query_left_out_meets_an_undefined_value_and_the_mean_tells_skip_from_nan() -> None:
    skipped = {"q1": {"ndcg": "0.5"}, "q2": {"ndcg": None}}
    skip = Expectation(
        _judged(expected={"per_query": skipped, "aggregate": "0.5"}).allowed,
        Config.from_mapping({**CONFIG, "empty": "skip"}),
    )
    nan = Expectation(
        _judged(expected={"per_query": skipped, "aggregate": None}).allowed,
        Config.from_mapping({**CONFIG, "empty": "nan"}),
    )
    left_out = answered({"q1": 0.5})
    assert judge(skip, left_out, {"q1": 1}, 64).outcome == "pass"
    # Under nan the mean is null; the left-out query implies the mean 0.5 of q1 alone.
    verdict = judge(nan, left_out, {"q1": 1}, 64)
    assert verdict.outcome == "fail" and verdict.mismatches[0].what == "aggregate"
    # A defined value is still missed when the query is left out.
    assert judge(skip, answered({"q2": None}), {"q1": 1}, 64).outcome == "fail"


def test_an_undefined_value_of_a_query_not_scored_meets_its_absence() -> None:
    # Under aggregate=run a qrels query missing from the run is not scored: an answer that
    # lists it as undefined gives it no value, as one that leaves it out does.
    case = _judged(expected={"per_query": {"q1": {"ndcg": "1"}}, "aggregate": "1"})
    assert judge(case, answered({"q1": 1.0, "q2": None}), {"q1": 1}, 64).outcome == "pass"
    assert judge(case, answered({"q1": 1.0, "q2": math.nan}), {"q1": 1}, 64).outcome == "pass"
    assert judge(case, answered({"q1": 1.0, "q2": 0.0}), {"q1": 1}, 64).outcome == "fail"


def test_a_partial_comparison_leaves_unlisted_queries_alone() -> None:
    case = _judged(expected={"per_query": {"q1": {"ndcg": "1"}}})
    answer = {"per_query": {"q1": 1.0, "q2": 0.0}}
    assert judge(case, CaseAnswer.from_json(answer), {"q1": 1}, 64, partial=True).outcome == "pass"
    # A listed query is still compared: 0.5 misses 1 by far more than the float rule allows.
    assert judge(case, answered({"q1": 0.5}), {"q1": 1}, 64, partial=True).outcome == "fail"


def test_origin_is_provenance_and_the_caller_asks_for_a_partial_comparison() -> None:
    published = _case(expected={"per_query": {"q1": {"ndcg": "1"}}}, origin="published")
    answer = {"per_query": {"q1": 1.0, "q2": 0.0}}
    assert (
        judge(Expectation.of_case(published), CaseAnswer.from_json(answer), {"q1": 1}, 64).outcome
        == "fail"
    )
    assert partial_comparison(published) and not partial_comparison(_case())
    verdict = judge(
        Expectation.of_case(published),
        CaseAnswer.from_json(answer),
        {"q1": 1},
        64,
        partial=partial_comparison(published),
    )
    assert verdict.outcome == "pass"


def test_adapter_aggregate_is_compared_when_given() -> None:
    case = _judged(expected={"per_query": {"q1": {"ndcg": "1"}}, "aggregate": "1"})
    answer = {"per_query": {"q1": 1.0}, "aggregate": 0.5}
    verdict = judge(case, CaseAnswer.from_json(answer), {"q1": 1}, 64)
    assert verdict.outcome == "fail" and verdict.mismatches[0].what == "aggregate"


def test_any_allowed_answer_passes() -> None:
    case = _judged(
        expected_any=[
            {"per_query": {"q1": {"ndcg": "1"}}, "aggregate": "1"},
            {"per_query": {"q1": {"ndcg": "0.5"}}, "aggregate": "0.5"},
        ]
    )
    assert judge(case, answered({"q1": 0.5}), {"q1": 1}, 64).outcome == "pass"
    assert judge(case, answered({"q1": 0.25}), {"q1": 1}, 64).outcome == "fail"


# 1/log2(3) = 0.63092975357145743709952711434276085429958...; printed to 5 places, 0.63093.
ONE_OVER_LOG2_3 = "0.6309297535714574370995271143427608542996"


def test_an_adapter_that_prints_five_decimals_is_compared_at_five_decimals() -> None:
    case = _judged(expected={"per_query": {"q1": {"ndcg": ONE_OVER_LOG2_3}}})
    assert judge(case, answered({"q1": 0.63093}), {"q1": 2}, 64).outcome == "fail"
    assert judge(case, answered({"q1": 0.63093}), {"q1": 2}, 64, 5).outcome == "pass"
    # Half a unit in the fifth place is the bound: 0.63094 is off by 1.02e-5.
    assert judge(case, answered({"q1": 0.63094}), {"q1": 2}, 64, 5).outcome == "fail"


def test_the_coarser_of_the_case_and_adapter_precisions_applies() -> None:
    case = _judged(
        expected={"per_query": {"q1": {"ndcg": ONE_OVER_LOG2_3}}},
        precision={"decimal_places": 5},
    )
    # 0.6309 is 2.98e-5 off: within 0.5e-4, outside 0.5e-5.
    assert judge(case, answered({"q1": 0.6309}), {"q1": 2}, 64).outcome == "fail"
    assert judge(case, answered({"q1": 0.6309}), {"q1": 2}, 64, 4).outcome == "pass"
    assert judge(case, answered({"q1": 0.6309}), {"q1": 2}, 64, 6).outcome == "fail"


@pytest.mark.parametrize("infinite", [float("inf"), float("-inf")])
def test_an_infinite_value_implies_no_mean_and_is_its_own_mismatch(infinite: float) -> None:
    # The mean of 0.5 and an infinity has no exact value: the implied aggregate is none (a
    # mismatch of the case), never an OverflowError that stops the whole run.
    assert implied_aggregate({"a": 0.5, "b": infinite}, DEFAULT_EMPTY) is None
    assert implied_aggregate({"a": 0.5, "b": 1.0}, DEFAULT_EMPTY) == 0.75


@settings(max_examples=examples(400), deadline=None)
@given(
    st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
        lambda d: abs(d) < Decimal("1e300")
    ),
    st.sampled_from(float_widths()),
    st.integers(1, 5),
)
def test_the_double_nearest_the_expected_value_is_within_every_float_bound(
    value: Decimal, width: int, terms: int
) -> None:
    # compare_value passes the double nearest the expected value without exact arithmetic;
    # worked exactly here, its error is within the bound of the rule at every width and n.
    expected = str(value)
    nearest = float(expected)
    error = abs(Fraction(nearest) - Fraction(Decimal(expected)))
    bound = error_constant() * terms * unit_roundoff(width) * max(Fraction(1), abs(Fraction(value)))
    assert error <= bound
    assert compare_value("v", expected, nearest, Tolerance(width, terms)) is None
