"""The names of refusals and failures (``survey/reasons.py``) and the departures matched by
them (``survey/prediction.py``): written out by hand here, never taken from the code."""

from __future__ import annotations

import tempfile

from ndcgspec.reference import Config
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.prediction import ERRORS_ID, MODELS, REFUSES_ID, Miss, ModelParams
from ndcgspec.survey.probes import ProbeInput
from ndcgspec.survey.reasons import failure_key, first_line, refusal_key


def test_a_refusal_is_named_by_its_first_line_without_the_query() -> None:
    text = "query q7: Computing NDCG needs 2 documents.\nTraceback (most recent call last):"
    assert refusal_key(text) == "Computing NDCG needs 2 documents."
    assert refusal_key("query: not a prefix") == "query: not a prefix"
    assert refusal_key("x" * 130) == "x" * 120
    assert first_line("") == refusal_key("") == ""


def test_a_failure_is_named_without_its_temporary_files() -> None:
    text = f"OSError: cannot read {tempfile.gettempdir()}/tmpab_12.run\nmore"
    assert failure_key(text) == "OSError: cannot read <temporary file>"
    assert failure_key("E" * 90) == "E" * 80


def test_an_answer_carries_the_names_departures_match() -> None:
    assert Answer({"rejected": "query a: too short\nusage"}).refusal == "too short"
    assert Answer({"rejected": "no"}).failure is None
    crashed = Answer({"error": "adapter crashed: killed by SIGSEGV", "process_failed": True})
    assert crashed.failure == "adapter crashed: killed by SIGSEGV" and crashed.refusal is None


PROBE = ProbeInput("p", (("q1", "d1", "1"),), (("q1", "d1", "1"),), Config.default())


def _miss(result: dict) -> Miss:
    config = Config.default()
    return Miss(PROBE, config, Answer(result), config, (64, None))


def test_a_refusal_departure_matches_the_same_reason_on_another_query() -> None:
    declared = ModelParams(reasons=("too short",))
    assert MODELS[REFUSES_ID](_miss({"rejected": "query q9: too short"}), declared)
    assert not MODELS[REFUSES_ID](_miss({"rejected": "query q9: too long"}), declared)
    assert not MODELS[REFUSES_ID](_miss({"error": "too short"}), declared)


def test_an_error_departure_matches_by_the_failure_name() -> None:
    declared = ModelParams(errors=("ValueError: max() arg is an empty sequence",))
    said = "ValueError: max() arg is an empty sequence\n  File ..."
    assert MODELS[ERRORS_ID](_miss({"error": said}), declared)
    assert not MODELS[ERRORS_ID](_miss({"error": "ValueError: other"}), declared)
    assert not MODELS[ERRORS_ID](_miss({"rejected": said}), declared)
