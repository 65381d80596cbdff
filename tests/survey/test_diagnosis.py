"""`run` explains its failures with identify's findings on the failing cases.

The expected causes are reasoned by hand from inputs and answers built for them, or are the
departures the fixture adapters of ``tests/fakes.py`` are written with (``negative`` kept in
the ideal, ``np.argsort`` ties, the ideal from the retrieved documents), never read from a
run:

- q1 ranks b (label -1) above a (label 1), no tie. Under ``negative=keep-in-ideal`` DCG is
  -1 + 1/log2(3) and the ideal list (1, -1) gives IDCG 1 - 1/log2(3), so nDCG is exactly -1;
  ``zero`` gives 1/log2(3), ``keep`` (ideal without the negative label) -1 + 1/log2(3).
- q1 ranks x, y and q2 ranks y, x, every score tied, y relevant in both: an answer of 1 on q1
  and 1/log2(3) on q2 ranks y first in q1 and last in q2, which no tie rule of the spec does
  (docid-desc and optimistic give 1 on both, docid-asc and pessimistic 1/log2(3) on both,
  input order 1/log2(3) then 1, average the mean on both), yet each value is a tie order.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.diagnosis import Failure, diagnosis_lines
from ndcgspec.harness.execution import Execution, execute
from ndcgspec.harness.plan import Selection
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.render import render_junit, render_markdown, render_text
from ndcgspec.harness.report import read_report
from ndcgspec.harness.runner import load_cases
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import Config
from ndcgspec.suite.result import CaseResult
from ndcgspec.survey.diagnosis import diagnose

ADAPTER = Declaration.from_json({"name": "hand", "version": "1", "float_width": 64})
DEFAULTS = Config.default().to_mapping()


def failure(qrels: list[list[str]], run: list[list[str]], per_query: dict[str, Any]) -> Failure:
    case = {"id": "hand/case", "input": {"qrels": qrels, "run": run}}
    record = {"id": "hand/case", "outcome": "fail", "config": DEFAULTS}
    return Failure(CaseResult.from_json(record), case, {"per_query": per_query})


def test_a_negative_label_kept_in_the_ideal_is_named():
    found = diagnose(
        ADAPTER,
        [
            failure(
                [["q1", "a", "1"], ["q1", "b", "-1"]],
                [["q1", "b", "2"], ["q1", "a", "1"]],
                {"q1": -1.0},
            )
        ],
    )
    assert found.entries == [
        {
            "axis": "negative",
            "computes": "keep-in-ideal",
            "asked": "zero",
            "explains": 1,
            "example": "hand/case",
        }
    ]
    assert (found.examined, found.explained) == (1, 1)


def test_a_tie_order_of_no_rule_is_named_as_the_tie_order():
    qrels = [["q1", "x", "0"], ["q1", "y", "1"], ["q2", "x", "0"], ["q2", "y", "1"]]
    run = [["q1", "x", "1"], ["q1", "y", "1"], ["q2", "y", "1"], ["q2", "x", "1"]]
    found = diagnose(ADAPTER, [failure(qrels, run, {"q1": 1.0, "q2": 1 / math.log2(3)})])
    [entry] = found.entries
    assert (entry["axis"], entry["computes"], entry["asked"]) == ("ties", "none", "docid-desc")
    assert "rankings of 2 documents" in entry["description"]


def test_an_answer_no_cause_explains_is_left_unexplained():
    # a (label 1) is ranked alone: every choice of every axis gives 1, so no axis tells its
    # choices apart and 0.3 has no cause the diagnosis can name.
    found = diagnose(ADAPTER, [failure([["q1", "a", "1"]], [["q1", "a", "1"]], {"q1": 0.3})])
    assert (found.entries, found.examined, found.explained) == ([], 1, 0)


def run_report(target: str, glob: str | None, path: Path | None = None):
    chosen = Selection(load_cases(glob, None, None))
    return execute(
        Execution(
            chosen.cases_for,
            adapter_command(target, None),
            PoolOptions(jobs=1),
            report_path=path,
            diagnose=diagnose,
        )
    )


def causes(report) -> set[tuple[str, str, str]]:
    return {(e["axis"], e["computes"], e["asked"]) for e in report.footer["diagnosis"]}


def test_the_run_footer_names_the_numpy_users_departures_and_shows_them_first(tmp_path):
    report = run_report("fakes:numpy_user", "negative/zero.json", tmp_path / "run.jsonl")
    # The footer, diagnosis included, is valid against report.schema.json as it is read back.
    assert read_report(tmp_path / "run.jsonl").footer["diagnosis"] == report.footer["diagnosis"]
    assert ("negative", "keep-in-ideal", "zero") in causes(report)
    summary = report.footer["diagnosed"]
    assert summary["failures"] == report.footer["counts"]["fail"] > 0
    text = render_text(report)
    assert text.index("diagnosis:") < text.index("axis choice")
    assert "negative: computes keep-in-ideal (asked zero)" in text
    assert render_markdown(report).index("diagnosis:") < render_markdown(report).index(
        "axis choice"
    )
    assert '<property name="diagnosis"' in render_junit(report)
    assert diagnosis_lines(report.footer)[0] in text.splitlines()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "named"),
    [
        (
            "fakes:numpy_user",
            {("negative", "keep-in-ideal", "zero"), ("ties", "none", "docid-desc")},
        ),
        (
            "fakes:numpy_user_retrieved_ideal",
            {
                ("negative", "keep-in-ideal", "zero"),
                ("ties", "none", "docid-desc"),
                ("ideal", "retrieved", "judged"),
            },
        ),
    ],
)
def test_the_whole_suite_is_explained_for_the_numpy_users(target, named):
    report = run_report(target, None)
    assert named <= causes(report)
    summary = report.footer["diagnosed"]
    assert summary["explained"] >= 0.95 * summary["failures"]


def test_refused_valid_inputs_are_grouped_by_reason():
    refused = [
        Failure(CaseResult(f"hand/{n}", "fail", config=DEFAULTS), {}, {"rejected": why})
        for n, why in enumerate(["query q1: bad label", "query q2: bad label", "exit 4"])
    ]
    found = diagnose(ADAPTER, refused)
    assert [(e["axis"], e["explains"], e["description"]) for e in found.entries] == [
        ("rejections", 2, "refuses: bad label"),
        ("rejections", 1, "refuses: exit 4"),
    ]
    assert (found.examined, found.explained) == (3, 3)


def test_the_diagnosis_lists_each_departing_axis_once_with_counts_that_add_up():
    # Written by hand: two causes on the negative axis, one that computes what it was asked
    # (no departure), and a case that the ties and negative causes explain together, so the
    # rows add to 3 + 2 + 2 = 7 where 6 cases are explained.
    entry = {"example": "e/1", "description": "d"}
    footer = {
        "diagnosis": [
            {**entry, "axis": "negative", "computes": "keep", "asked": "zero", "explains": 3},
            {**entry, "axis": "ties", "computes": "input", "asked": "docid-desc", "explains": 2},
            {**entry, "axis": "negative", "computes": "unjudged", "asked": "error", "explains": 2},
            {**entry, "axis": "gain", "computes": "linear", "asked": "linear", "explains": 4},
        ],
        "diagnosed": {"failures": 6, "examined": 6, "explained": 6},
    }
    assert diagnosis_lines(footer) == [
        "diagnosis: 6 of 6 failing cases explained; the counts below add to 7, a case that "
        "causes explain together counted under each",
        "  5  negative: computes keep (asked zero); negative: computes unjudged (asked error)"
        "  e.g. e/1",
        "  2  ties: computes input (asked docid-desc)  e.g. e/1",
    ]
