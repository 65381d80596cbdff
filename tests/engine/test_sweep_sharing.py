"""The sweep's shortcuts keep the plain reference's digits and errors.

The sweep (`ndcgspec.engine.sweep`) shares work wherever the result cannot differ:
each query's score order once for every ties choice; the ties axis asked only about tie groups
whose gains differ; the unjudged axis asked about one unjudged document; each DCG, IDCG and
query result once per list of gains (trailing zeros dropped: they add nothing), cutoff (a
cutoff at or past the end of both lists cuts nothing) and discount, among queries and
configurations alike; and one mean per list of per-query results. Each test evaluates many
configurations that differ on few axes, so that they share those steps, on one sweep, in
random order, and compares every one with `ndcgspec.reference.evaluate`, the definition: a
step shared where the results differ gives a wrong digit or a wrong error for some
configuration.
"""

from __future__ import annotations

from typing import Any

from conftest import choice_axes, config_mappings
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sweep import CUTOFFS, assert_sweep_agrees, inputs


@st.composite
def neighbours(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Configuration objects that each take most axes from one base configuration and the
    rest (choice and parameters) from another drawn one; cutoffs drawn freely."""
    base = draw(config_mappings(cutoffs=CUTOFFS))
    out = [base]
    for other in draw(st.lists(config_mappings(cutoffs=CUTOFFS), min_size=1, max_size=8)):
        mixed = dict(base)
        for axis in choice_axes():
            if draw(st.integers(0, 3)) == 0:
                keys = {axis["id"], *(p["id"] for p in axis.get("params", []))}
                mixed = {k: v for k, v in mixed.items() if k not in keys}
                mixed.update({k: v for k, v in other.items() if k in keys})
        mixed["cutoff"] = other["cutoff"] if draw(st.booleans()) else base["cutoff"]
        out.append(mixed)
    return draw(st.permutations(out))


@st.composite
def inputs_with_copies(draw: st.DrawFn) -> tuple[dict, dict]:
    """`inputs`, sometimes with one query copied under another id: equal gain lists in two
    queries, whose results the sweep shares."""
    labels_by_query, scores_by_query = draw(inputs())
    if labels_by_query and draw(st.booleans()):
        source = draw(st.sampled_from(sorted(labels_by_query)))
        labels_by_query["q0"] = dict(labels_by_query[source])
        if source in scores_by_query:
            scores_by_query["q0"] = list(scores_by_query[source])
    return labels_by_query, scores_by_query


@settings(max_examples=200, deadline=None)
@given(inputs_with_copies(), neighbours())
def test_neighbouring_configurations_share_steps_and_keep_the_reference_outcome(
    given_inputs, mappings
) -> None:
    assert_sweep_agrees(*given_inputs, mappings)


@settings(max_examples=100, deadline=None)
@given(inputs_with_copies(), config_mappings(cutoffs=CUTOFFS), st.data())
def test_every_ties_choice_on_one_sweep_keeps_the_reference_outcome(
    given_inputs, mapping, data
) -> None:
    # The ties axis alone varies: the score order, the kept documents and the ideal lists are
    # shared among the choices, and only tie groups whose gains differ are reordered.
    ties = next(a for a in choice_axes() if a["id"] == "ties")
    choices = data.draw(st.permutations([c["id"] for c in ties["choices"]]))
    assert_sweep_agrees(*given_inputs, [{**mapping, "ties": choice} for choice in choices])


def test_a_label_rejected_by_two_axes_gets_each_axis_error() -> None:
    # Both configurations reject label -0.5, one for its sign and one for its fraction: equal
    # resolutions of the labels, but not the same error.
    assert_sweep_agrees(
        {"q1": {"d1": "-0.5"}},
        {"q1": [("d1", "1")]},
        [{"negative": "error"}, {"fractional": "error"}],
    )


def test_irrational_gains_of_different_label_axes_are_not_shared() -> None:
    # 2^1.5 - 1 is irrational under both: the engine scores each configuration whole, and the
    # negative axis gives b gain 0 in one and 2^-0.5 - 1 in the other.
    assert_sweep_agrees(
        {"q": {"a": "1.5", "b": "-0.5"}},
        {"q": [("a", "1"), ("b", "2")]},
        [
            {"gain": "exponential", "fractional": "keep", "negative": "zero"},
            {"gain": "exponential", "fractional": "keep", "negative": "keep"},
        ],
    )
