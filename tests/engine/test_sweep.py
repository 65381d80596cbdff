"""The sweep (`ndcgspec.engine.sweep`) gives the plain reference's digits for every
configuration, on random inputs that exercise every axis: ties, duplicates, unjudged,
negative and fractional labels, empty queries and queries missing from either side.

The expected values are `ndcgspec.reference.evaluate`'s, the definition; the sweep shares
work among configurations, so each example evaluates several configurations on one sweep,
in random order, to catch a shared step that leaks from one configuration into another.
"""

from __future__ import annotations

from typing import Any

from conftest import config_mappings
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference import Config, InputError, evaluate, qrels_from_labels, run_from_scores

labels = st.one_of(st.integers(-2, 4).map(str), st.sampled_from(["1.5", "2.7", "-0.5"]))
docids = st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d6", "http://x.org/a|7"])
scores = st.one_of(st.integers(0, 3).map(str), st.sampled_from(["0.5", "0.50", "2.25"]))
queries = st.sampled_from(["q1", "q2", "q3"])
CUTOFFS = st.sampled_from([None, 1, 2, 3, 5])


@st.composite
def inputs(draw: st.DrawFn) -> tuple[dict, dict]:
    qrels = draw(st.dictionaries(queries, st.dictionaries(docids, labels, max_size=6), max_size=3))
    run = draw(
        st.dictionaries(
            queries,
            st.lists(st.tuples(docids, scores), max_size=8),
            max_size=3,
        )
    )
    return qrels, run


def outcome(result: Any) -> Any:
    """What both must agree on: the JSON result object, or the error's message (which names
    the query, the document and the rejecting axis), axis and anchor."""
    if isinstance(result, InputError):
        return ("error", str(result), result.axis, result.anchor)
    return result.to_json()


def reference_outcome(config: Config, qrels: Any, run: Any) -> Any:
    try:
        return outcome(evaluate(config, qrels, run))
    except InputError as error:
        return outcome(error)


def assert_sweep_agrees(labels_by_query: dict, scores_by_query: dict, mappings: list) -> None:
    """Every configuration, evaluated in the order given on one sweep, has the reference's
    outcome."""
    qrels, run = qrels_from_labels(labels_by_query), run_from_scores(scores_by_query)
    configs = [Config.from_mapping(m) for m in mappings]
    sweep = Sweep(qrels, run, [c.cutoff for c in configs])
    for config in configs:
        assert outcome(sweep.evaluate(config)) == reference_outcome(config, qrels, run), config


@settings(max_examples=150, deadline=None)
@given(inputs(), st.lists(config_mappings(cutoffs=CUTOFFS), min_size=1, max_size=6))
def test_sweep_gives_the_reference_digits(given_inputs, mappings) -> None:
    assert_sweep_agrees(*given_inputs, mappings)


def test_a_cutoff_not_declared_is_refused() -> None:
    qrels = qrels_from_labels({"q": {"a": "1"}})
    sweep = Sweep(qrels, run_from_scores({"q": {"a": "1"}}), [5])
    try:
        sweep.evaluate(Config.from_mapping({"cutoff": 3}))
    except ValueError as error:
        assert "cutoff 3" in str(error)
    else:
        raise AssertionError("an undeclared cutoff was evaluated")
