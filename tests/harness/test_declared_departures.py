"""A built-in peer passes its own convention under `run`: a result that departs as its preset
declares (``spec/presets.yaml``, ``departures``) is marked so, and is no failure of the run.

The records are written by hand: trec_eval's preset declares that it refuses the input of
``aggregate.qrels/query-missing-from-run`` (trec_eval 10.0 stops at a qrels query the run does
not contain) under its configuration (negative=unjudged, fractional=truncate, aggregate=run).
"""

from __future__ import annotations

from typing import Any

from ndcgspec.harness.departures import declared_departures
from ndcgspec.harness.report import failed, tally
from ndcgspec.reference import Config

TREC_EVAL = Config.from_mapping(
    {"negative": "unjudged", "fractional": "truncate", "aggregate": "run"}
).to_mapping()
REFUSAL = "adapter rejected a valid input: trec_eval exit 4"
# An input on which trec_eval 10.0 evaluates every query: no condition of its presets holds.
NO_ROWS = lambda: {"qrels": [["q1", "d1", "1"]], "run": [["q1", "d1", "1"]]}  # noqa: E731


def record(outcome: str, message: str, config: dict[str, Any] = TREC_EVAL, at: str = "") -> dict:
    return {
        "id": f"aggregate.qrels/query-missing-from-run{at}",
        "outcome": outcome,
        "message": message,
        "config": config,
    }


def test_a_declared_refusal_is_a_declared_departure_at_any_cutoff_and_fingerprint():
    departures = declared_departures("trec_eval")
    found = departures.of(
        record("fail", REFUSAL, {**TREC_EVAL, "cutoff": 10}, "@0123abcd"), NO_ROWS
    )
    assert found is not None
    assert (found["preset"], found["outcome"]) == ("trec_eval", "refuses")
    assert "trec_eval 10.0" in found["behaviour"]


def test_another_outcome_configuration_or_adapter_is_no_declared_departure():
    departures = declared_departures("trec_eval")
    assert departures.of(record("fail", "q1: expected 1, got 0.5"), NO_ROWS) is None
    assert departures.of(record("fail", REFUSAL, Config.default().to_mapping()), NO_ROWS) is None
    assert departures.of(record("pass", ""), NO_ROWS) is None
    assert declared_departures("sklearn").of(record("fail", REFUSAL), NO_ROWS) is None
    assert declared_departures(None).of(record("fail", REFUSAL), NO_ROWS) is None


def test_a_preset_file_case_is_matched_by_the_input_it_judges():
    judged = {
        **record("fail", REFUSAL),
        "id": "presets.trec_eval/aggregate.qrels.query-missing-from-run",
        "input_of": "aggregate.qrels/query-missing-from-run",
    }
    assert declared_departures("trec_eval").of(judged, NO_ROWS) is not None


def test_a_run_whose_only_failure_is_declared_has_not_failed():
    declared = {**record("fail", REFUSAL), "declared_departure": {"preset": "trec_eval"}}
    assert not failed(tally([declared, {"id": "x", "outcome": "pass"}]))
    assert failed(tally([declared, record("fail", "q1: expected 1, got 0.5")]))
