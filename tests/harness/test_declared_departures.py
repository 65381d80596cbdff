"""A built-in peer passes its own convention under `run`: a result that departs as its preset
declares (``spec/presets.yaml``, ``departures``) is marked so, and is no failure of the run.

The records are written by hand: trec_eval's preset declares that it refuses the input of
``aggregate.qrels/query-missing-from-run`` (trec_eval 10.0 stops at a qrels query the run does
not contain) under its configuration (negative=unjudged, fractional=truncate, aggregate=run).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ndcgspec.harness.departures import declared_departures
from ndcgspec.harness.render import render_badge, render_text
from ndcgspec.harness.report import Report, exit_status, failed, tally
from ndcgspec.reference import Config
from ndcgspec.suite.result import CaseResult, DeclaredDeparture

TREC_EVAL = Config.from_mapping(
    {"negative": "unjudged", "fractional": "truncate", "aggregate": "run"}
).to_mapping()
REFUSAL = "adapter rejected a valid input: trec_eval exit 4"
# An input on which trec_eval 10.0 evaluates every query: no condition of its presets holds.
NO_ROWS = lambda: {"qrels": [["q1", "d1", "1"]], "run": [["q1", "d1", "1"]]}  # noqa: E731


def record(
    outcome: str, message: str, config: dict[str, Any] = TREC_EVAL, at: str = ""
) -> CaseResult:
    return CaseResult(
        f"aggregate.qrels/query-missing-from-run{at}", outcome, config=config, message=message
    )


REFUSES = DeclaredDeparture("trec_eval", "refuses", "b")
PASSED = CaseResult("x", "pass")
HEADER = {"adapter": {"name": "a", "version": "1", "float_width": 64}}


def test_a_declared_refusal_is_a_declared_departure_at_any_cutoff_and_fingerprint():
    departures = declared_departures("trec_eval")
    found = departures.of(
        record("fail", REFUSAL, {**TREC_EVAL, "cutoff": 10}, "@0123abcd"), NO_ROWS
    )
    assert found is not None
    assert (found.preset, found.outcome) == ("trec_eval", "refuses")
    assert "trec_eval 10.0" in found.behaviour


def test_another_outcome_configuration_or_adapter_is_no_declared_departure():
    departures = declared_departures("trec_eval")
    assert departures.of(record("fail", "q1: expected 1, got 0.5"), NO_ROWS) is None
    assert departures.of(record("fail", REFUSAL, Config.default().to_mapping()), NO_ROWS) is None
    assert departures.of(record("pass", ""), NO_ROWS) is None
    assert declared_departures("sklearn").of(record("fail", REFUSAL), NO_ROWS) is None
    assert declared_departures(None).of(record("fail", REFUSAL), NO_ROWS) is None


def test_a_preset_file_case_is_matched_by_the_input_it_judges():
    judged = replace(
        record("fail", REFUSAL),
        id="presets.trec_eval/aggregate.qrels.query-missing-from-run",
        input_of="aggregate.qrels/query-missing-from-run",
    )
    assert declared_departures("trec_eval").of(judged, NO_ROWS) is not None


def test_a_run_whose_only_failure_is_declared_has_not_failed():
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    assert not failed(tally([declared, PASSED]))
    assert failed(tally([declared, record("fail", "q1: expected 1, got 0.5")]))


def test_strict_fails_a_run_on_its_declared_departures_too():
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    assert exit_status([declared, PASSED]) == 0
    assert exit_status([declared, PASSED], strict=True) == 1
    assert exit_status([PASSED], strict=True) == 0


def test_the_summary_lists_declared_departures_apart_from_the_failures():
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    failing = replace(record("fail", "q1: expected 1, got 0.5"), id="other/case")
    text = render_text(Report(HEADER, [declared, failing], None, Path("-")))
    failures, _, departures = text.partition("declared departures, which fail the run only")
    assert "other/case" in failures and "query-missing-from-run" not in failures
    assert "query-missing-from-run" in departures and "other/case" not in departures


def headline_of(report: Report) -> str:
    return next(line for line in render_text(report).splitlines() if " pass, " in line)


def test_the_headline_and_badge_count_declared_departures_apart_as_the_page_does():
    # One declared departure, two passes and one undeclared failure: the page's "2 of 3
    # (+1 declared departures)", so 66.67 % and a run that failed on its one undeclared fail.
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    failing = replace(record("fail", "q1: expected 1, got 0.5"), id="other/case")
    report = Report(HEADER, [declared, PASSED, PASSED, failing], {"type": "footer"}, Path("-"))
    headline = headline_of(report)
    assert headline.startswith(
        "2 pass, 1 fail, 0 error, 0 unsupported, 0 skip, 1 declared departures;"
        " 66.67% of 3 supported cases pass (declared departures apart)"
    )
    badge = json.loads(render_badge(report))
    assert badge["message"] == "66.7% (2/3) +1 declared departures"
    assert tally(report.results).to_json()["conformance_percent"] == 66.67


def test_the_by_axis_table_counts_declared_departures_in_a_column_of_their_own():
    # The departure and the undeclared failure share aggregate=run, the pass is the default's
    # aggregate=qrels: that row reads 0 pass, 1 fail and 1 declared departure, not 2 fails.
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    failing = replace(record("fail", "q1: expected 1, got 0.5"), id="other/case")
    passed = replace(PASSED, config=Config.default().to_mapping())
    lines = render_text(Report(HEADER, [declared, failing, passed], None, Path("-"))).splitlines()
    header = next(line for line in lines if line.startswith("axis choice"))
    assert header.split() == [
        *("axis", "choice", "pass", "fail", "error", "unsupported", "skip"),
        *("declared", "departures"),
    ]
    assert next(line for line in lines if line.startswith("aggregate=run ")).split() == [
        *("aggregate=run", "0", "1", "0", "0", "0", "1"),
    ]
    assert next(line for line in lines if line.startswith("aggregate=qrels ")).split() == [
        *("aggregate=qrels", "1", "0", "0", "0", "0", "0"),
    ]


def test_a_run_without_declared_departures_has_no_column_for_them():
    lines = render_text(Report(HEADER, [PASSED], None, Path("-"))).splitlines()
    assert "declared departures" not in next(line for line in lines if "axis choice" in line)


def test_a_run_of_declared_departures_alone_says_so():
    declared = replace(record("fail", REFUSAL), declared_departure=REFUSES)
    headline = headline_of(Report(HEADER, [declared], None, Path("-")))
    assert headline == (
        "0 pass, 0 fail, 0 error, 0 unsupported, 0 skip, 1 declared departures;"
        " every case that ran is a declared departure"
    )


SKLEARN = Config.from_mapping(
    {"ideal": "retrieved", "ties": "average", "negative": "error", "aggregate": "run"}
).to_mapping()
ONE_DOCUMENT = (
    "adapter rejected a valid input: query q2: Computing NDCG is only meaningful when there is "
    "more than 1 document. Got 1 instead."
)


def test_sklearn_refusing_a_one_document_query_is_its_declared_departure_at_any_case():
    refusal = CaseResult(
        "generated.seed-0009/042@0123abcd",
        "fail",
        config={**SKLEARN, "cutoff": 5},
        message=ONE_DOCUMENT,
    )
    # aggregate=run scores the queries of both the run and the qrels: q2 of `one`, with its
    # one document; q2 of `two` is not judged, so not scored, and q1 has two documents.
    run = [["q1", "a", "2"], ["q1", "b", "1"], ["q2", "c", "1"]]
    one = {"qrels": [["q1", "a", "1"], ["q2", "c", "1"]], "run": run}
    two = {"qrels": [["q1", "a", "1"]], "run": run}
    found = declared_departures("sklearn").of(refusal, lambda: one)
    assert found is not None and found.preset == "sklearn"
    # No scored query has one document: that refusal is a failure.
    assert declared_departures("sklearn").of(refusal, lambda: two) is None
