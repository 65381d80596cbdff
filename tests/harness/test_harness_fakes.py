"""Each deliberately wrong adapter gets exactly the outcome its fault deserves.

The expected outcomes are reasoned from the fixture inputs, not read from a run:

- fx/exp-graded ranks grades 1 then 2 under exponential gain: gains 1, 3 differ from the linear
  gains 1, 2, so linear gain changes nDCG; fx/exp-binary has grades 0 and 1, where 2^1 − 1 = 1.
- fx/rank2, fx/tie-docid (dB, grade 0, comes first under docid-desc) and fx/reversed put a
  relevant document below rank 1 with another document above it, where 1/log2(i + 1) and
  1/log2(i + 2) give different ratios; fx/perfect is in ideal order, so DCG = IDCG whatever the
  discount, and fx/geometric does not use the log discount.
- fx/tie-docid is the only fixture whose tie order changes the value (fx/open-ties allows both).
- fx/ideal-unretrieved and the q2 of pub/four-places miss a relevant judged document, so an
  ideal list from the retrieved documents scores them 1.
- fx/empty-run is the only case whose run has no row: the faulty fakes fail only there.
- fx/empty-nan, fx/geometric and fx/aggregate-run leave the spec defaults the float32 fake
  declares, and so does fx/trec-eval-at-2 (the trec_eval preset); float32 rounding (2^-24) is far
  above the width-64 bound but within the width-32 one, and only the exact ops of fx/perfect
  (DCG and IDCG summed identically) give exactly 1.
"""

from __future__ import annotations

import sys

import pytest
from conftest import TESTS_DIR

from ndcgspec.harness.execution import Execution, execute
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.runner import fixed_cases, load_cases
from ndcgspec.harness.worker import adapter_command

FIXTURES = TESTS_DIR / "fixtures"
SUITE = FIXTURES / "harness_cases"
DATA = FIXTURES / "harness_data"
FAKES = "fakes"


def outcomes(target: str | None = None, exec_line: str | None = None, **options: float) -> dict:
    """{case id: (outcome, message)} of one run against the fixture suite."""
    report = execute(
        Execution(
            fixed_cases(load_cases(root=SUITE, data=DATA)),
            adapter_command(target, exec_line),
            PoolOptions(**options),
            data=DATA,
        )
    )
    return {r.id: (r.outcome, r.message or "") for r in report.results}


def only(found: dict) -> dict:
    """The outcome of every case, without messages."""
    return {case_id: outcome for case_id, (outcome, _) in found.items()}


ALL_IDS = [
    "fx/perfect",
    "fx/reversed",
    "fx/exp-graded",
    "fx/exp-binary",
    "fx/rank2",
    "fx/tie-docid",
    "fx/ideal-unretrieved",
    "fx/empty-run",
    "fx/duplicates-error",
    "fx/empty-nan",
    "fx/many-fractional",
    "fx/geometric",
    "fx/open-ties",
    "fx/aggregate-run",
    "fx/trec-eval-at-2",
    "pub/four-places",
    "pub/absent",
]


def passing_except(**others: str) -> dict:
    """Every fixture passes except those named (ids with "/" written as "__")."""
    expected = dict.fromkeys(ALL_IDS, "pass")
    expected["pub/absent"] = "skip"
    expected.update({k.replace("__", "/").replace("_", "-"): v for k, v in others.items()})
    return expected


def test_reference_passes_every_fixture() -> None:
    assert only(outcomes("reference")) == passing_except()


def test_always_zero_passes_only_the_empty_run() -> None:
    expected = dict.fromkeys(ALL_IDS, "fail")
    expected.update({"fx/empty-run": "pass", "pub/absent": "skip"})
    assert only(outcomes(f"{FAKES}:always_zero")) == expected


def test_linear_gain_fails_only_graded_exponential() -> None:
    assert only(outcomes(f"{FAKES}:linear_gain")) == passing_except(fx__exp_graded="fail")


def test_discount_off_by_one_fails_where_rank_matters() -> None:
    found = only(outcomes(f"{FAKES}:discount_off_by_one"))
    for case_id in ["fx/rank2", "fx/tie-docid", "fx/reversed", "fx/ideal-unretrieved"]:
        assert found[case_id] == "fail", case_id
    for case_id in ["fx/perfect", "fx/geometric", "fx/empty-run", "fx/empty-nan"]:
        assert found[case_id] == "pass", case_id


def test_reversed_ties_fail_only_the_tie_case() -> None:
    assert only(outcomes(f"{FAKES}:ties_reversed")) == passing_except(fx__tie_docid="fail")


def test_ideal_from_retrieved_fails_where_a_relevant_document_is_missed() -> None:
    assert only(outcomes(f"{FAKES}:ideal_retrieved")) == passing_except(
        fx__ideal_unretrieved="fail", pub__four_places="fail"
    )


UNSUPPORTED_BY_FLOAT32 = {
    "fx/empty-nan": "unsupported",
    "fx/geometric": "unsupported",
    "fx/aggregate-run": "unsupported",
    "fx/trec-eval-at-2": "unsupported",
}


def test_float32_passes_as_width_32() -> None:
    expected = passing_except()
    expected.update(UNSUPPORTED_BY_FLOAT32)
    assert only(outcomes(f"{FAKES}:float32_as32")) == expected


def test_float32_fails_as_width_64_on_inexact_values() -> None:
    found = only(outcomes(f"{FAKES}:float32_as64"))
    assert found["fx/many-fractional"] == "fail"
    assert found["fx/rank2"] == "fail"
    for case_id in ["fx/perfect", "fx/empty-run", "fx/duplicates-error", "pub/four-places"]:
        assert found[case_id] == "pass", case_id
    assert {k: found[k] for k in UNSUPPORTED_BY_FLOAT32} == UNSUPPORTED_BY_FLOAT32


# Only the hang waits for its timeout; the other faults get a long one, so that a loaded
# machine cannot turn them into timeouts.
@pytest.mark.parametrize(
    ("target", "exec_fake", "timeout", "message"),
    [
        (f"{FAKES}:segfault", None, 30.0, "killed by SIGSEGV"),
        (f"{FAKES}:abort", None, 30.0, "killed by SIGABRT"),
        (f"{FAKES}:raises", None, 30.0, "RuntimeError: fake failure on an empty run"),
        (f"{FAKES}:infinite_loop", None, 1.0, "timed out after 1 s"),
        (None, "malformed_json", 30.0, "not JSON"),
        (None, "wrong_seq", 30.0, "reply carries seq"),
        (None, "huge_output", 30.0, "exceeds the 16 MB cap"),
    ],
)
def test_faults_are_errors_on_the_faulty_case_only(
    target: str | None, exec_fake: str | None, timeout: float, message: str
) -> None:
    exec_line = f"{sys.executable} -m {FAKES} {exec_fake}" if exec_fake else None
    found = outcomes(target, exec_line, timeout=timeout, jobs=2)
    assert only(found) == passing_except(fx__empty_run="error")
    assert message in found["fx/empty-run"][1]
