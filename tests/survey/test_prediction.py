"""The prediction check (``survey/prediction.py``): fresh seeded queries scored by a
library and by the reference under the configuration the page publishes for it; every miss is
a declared departure or is shown. Expected values come from the reference or from hand
arithmetic, never from the library under test."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT

from ndcgspec.harness.registry import PEER_ADAPTERS
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.prediction import (
    CUTOFFS,
    ERRORS_ID,
    IDEAL_FIRST_K,
    IDEAL_NONZERO,
    MODELS,
    NEIGHBOURS_TIE,
    PAGE_QUERIES,
    PAGE_SEED,
    PREDICTIONS_FILE,
    TIE_ORDER_ID,
    UNDEFINED_WHERE_SCORED_ID,
    Declared,
    Miss,
    ModelParams,
    fresh_inputs,
    predict,
)
from ndcgspec.survey.probes import ProbeInput, meets

DOCS = REPO_ROOT / "docs"
FLOAT64 = (64, None)
# The tests' own fresh queries: not the page's seed, few enough for the fakes.
CI_SEED, CI_QUERIES = 5, 24


def _scores_by_query(probe: ProbeInput) -> list[float]:
    return [float(s) for _, _, s in probe.run]


def _near_ties(probe: ProbeInput) -> set[str]:
    """Which near ties the query holds, measured on its decimals: relative gaps of 1e-9 and
    1e-12 (one or two steps), and adjacent doubles."""
    found = set()
    values = sorted({Decimal(s) for _, _, s in probe.run})
    for low, high in pairwise(values):
        if low == 0:
            continue
        relative = (high - low) / abs(low)
        if relative in (Decimal("1e-9"), Decimal("2e-9")):
            found.add("1e-9")
        elif relative in (Decimal("1e-12"), Decimal("2e-12")):
            found.add("1e-12")
        if math.nextafter(float(low), math.inf) == float(high):
            found.add("ulp")
    return found


def test_fresh_inputs_are_seeded_and_hold_every_kind_of_query_asked_for() -> None:
    queries = fresh_inputs(3, 300)
    assert queries == fresh_inputs(3, 300)
    assert queries != fresh_inputs(4, 300)
    labels = [[Decimal(v) for _, _, v in p.qrels] for p in queries]
    retrieved = [{d for _, d, _ in p.run} for p in queries]
    judged = [{d for _, d, _ in p.qrels} for p in queries]
    assert {p.config.cutoff for p in queries} == set(CUTOFFS)
    assert any(len(p.run) == 1 for p in queries)
    assert any(len(p.run) > 100 for p in queries)
    assert any(all(v <= 0 for v in ls) for ls in labels)
    assert any(Decimal(-1) in ls for ls in labels) and any(Decimal(-2) in ls for ls in labels)
    assert any(v != v.to_integral_value() for ls in labels for v in ls)
    assert any(set(range(5)) <= set(ls) for ls in labels)
    assert any(r - j for r, j in zip(retrieved, judged, strict=True))
    assert any(j - r for r, j in zip(retrieved, judged, strict=True))
    assert any(len(set(_scores_by_query(p))) < len(p.run) for p in queries)
    assert set().union(*map(_near_ties, queries)) == {"1e-9", "1e-12", "ulp"}
    assert any(d.startswith("https://") for p in queries for _, d, _ in p.run)


def test_the_reference_is_predicted_on_every_fresh_query() -> None:
    config = parse_measure("nDCG(gain=exponential,ties=average,negative=unjudged)")
    found = predict("reference", config, [], seed=CI_SEED, count=CI_QUERIES)
    assert (found.predicted, found.explained, found.unexplained, found.left_out) == (
        CI_QUERIES,
        0,
        [],
        0,
    )


def test_reversed_ties_are_unexplained_until_the_tie_order_is_declared() -> None:
    config = Config.default()
    bare = predict("fakes:ties_reversed", config, [], seed=CI_SEED, count=CI_QUERIES)
    assert bare.unexplained, "fresh queries with ties must show the reversed tie order"
    for entry in bare.unexplained:
        scores = [row[2] for row in entry["run"]]
        assert len(set(scores)) < len(scores), entry["line"]
    declared = [Declared(TIE_ORDER_ID, "breaks ties", ModelParams(from_length=2))]
    found = predict("fakes:ties_reversed", config, declared, seed=CI_SEED, count=CI_QUERIES)
    assert found.unexplained == []
    # Every query the reversed order misses is the departure's, and so is every other query
    # whose value some order of its ties decides (the reversal may meet the rule's value there).
    assert set(found.departures) == {TIE_ORDER_ID}
    assert found.departures[TIE_ORDER_ID] >= len(bare.unexplained)
    assert found.declared[0]["reproduction"].startswith("topic-")
    assert found.predicted + found.explained + found.left_out == CI_QUERIES
    # The reference breaks ties by the rule itself, and is sorted the same way: which order a
    # library (or a machine's sort) happens to give cannot move a query between the counts.
    kept = predict("reference", config, declared, seed=CI_SEED, count=CI_QUERIES)
    assert (kept.predicted, kept.departures) == (found.predicted, found.departures)


def test_a_wrong_gain_stays_unexplained_whatever_is_declared() -> None:
    declared = [Declared(d, d) for d in MODELS]
    config = parse_measure("nDCG(gain=exponential)")
    found = predict("fakes:linear_gain", config, declared, seed=CI_SEED, count=CI_QUERIES)
    assert found.unexplained
    record = found.to_json()
    assert record["queries"] == (
        record["left_out"] + record["predicted"] + record["explained"] + len(record["unexplained"])
    )


def _probe(qrels: list[tuple[str, str]], run: list[tuple[str, str]]) -> ProbeInput:
    return ProbeInput(
        "hand",
        tuple(("q1", d, v) for d, v in qrels),
        tuple(("q1", d, s) for d, s in run),
        Config.default(),
    )


def _explains(model: str, probe: ProbeInput, config: Config, result: dict[str, Any]) -> bool:
    answer = Answer(result)
    return MODELS[model](Miss(probe, config, answer, config, FLOAT64), ModelParams())


def test_float32_scores_explain_near_ties_averaged() -> None:
    # preds [1.0, 1.0 + 1e-9] are one float32: averaged, each document gets half of gain 1.
    probe = _probe([("a", "0"), ("b", "1")], [("a", "1"), ("b", "1.000000001")])
    config = parse_measure("nDCG(ties=average)")
    averaged = 0.5 + 0.5 / math.log2(3)
    result = {"per_query": {"q1": averaged}, "aggregate": averaged}
    assert not meets(probe, config, Answer(result), config, *FLOAT64)
    assert _explains("float32-scores", probe, config, result)
    exact = {"per_query": {"q1": 1.0}, "aggregate": 1.0}
    assert not _explains("float32-scores", probe, config, {"per_query": {"q1": 0.5}})
    assert meets(probe, config, Answer(exact), config, *FLOAT64)


def test_adjacent_doubles_read_as_equal_are_explained() -> None:
    # 0.223 and 0.22300000000000003 are adjacent doubles: read as equal, ties go by docid
    # ascending and the relevant b comes second, 1 / log2(3).
    assert math.nextafter(0.223, 1) == 0.22300000000000003
    probe = _probe([("b", "1")], [("a", "0.223"), ("b", "0.22300000000000003")])
    config = parse_measure("nDCG(ties=docid-asc)")
    second = 1 / math.log2(3)
    result = {"per_query": {"q1": second}, "aggregate": second}
    assert not meets(probe, config, Answer(result), config, *FLOAT64)
    assert _explains(NEIGHBOURS_TIE, probe, config, result)
    far = _probe([("b", "1")], [("a", "0.223"), ("b", "0.224")])
    assert not _explains(NEIGHBOURS_TIE, far, config, result)


def test_a_value_left_undefined_is_explained_only_when_the_mean_counts_it() -> None:
    # Relevant d1 outside the top 1: nDCG@1 is 0; trectools reports NaN, its mean 0.
    probe = _probe([("d1", "1"), ("d2", "0")], [("d2", "2.0"), ("d1", "1.0")])
    config = Config.default().replace(cutoff=1)
    assert _explains(
        UNDEFINED_WHERE_SCORED_ID,
        probe,
        config,
        {"per_query": {"q1": float("nan")}, "aggregate": 0.0},
    )
    assert _explains(UNDEFINED_WHERE_SCORED_ID, probe, config, {"per_query": {}, "aggregate": 0.0})
    assert not _explains(
        UNDEFINED_WHERE_SCORED_ID, probe, config, {"per_query": {"q1": None}, "aggregate": 0.5}
    )


def test_scores_rounded_to_float32_are_what_the_model_ranks() -> None:
    # The model's float32 rounding, checked against numpy's: 1 + 1e-9 is 1 in float32.
    assert np.float32(1.000000001) == np.float32(1.0)


def _page_records() -> dict[str, Any]:
    path = DOCS / PREDICTIONS_FILE
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["libraries"]


# CI regenerates docs/ with every peer library installed and fails when predictions.json is
# not what they answer today, so each record is a live run of its library on the page's fresh
# queries; this test holds every record to zero unexplained misses.
@pytest.mark.parametrize("adapter", sorted(PEER_ADAPTERS))
def test_the_page_predicts_every_peer_on_fresh_queries(adapter: str) -> None:
    record = _page_records().get(adapter)
    if record is None:
        pytest.skip(f"docs/{PREDICTIONS_FILE} has no record of {adapter}: run `ndcgspec matrix`")
    assert (record["seed"], record["queries"]) == (PAGE_SEED, PAGE_QUERIES)
    assert (
        record["predicted"] + record["explained"] + record["left_out"] + len(record["unexplained"])
        == record["queries"]
    )
    assert record["left_out"] < record["queries"], "no fresh query could be shown to the library"
    assert record["unexplained"] == [], "\n".join(e["line"][:300] for e in record["unexplained"])


def test_a_mean_left_undefined_is_explained_only_when_declared_so() -> None:
    probe = _probe([("d1", "1"), ("d2", "0")], [("d2", "2.0"), ("d1", "1.0")])
    config = Config.default().replace(cutoff=1)
    answer = Answer({"per_query": {"q1": None}, "aggregate": None})
    model = MODELS[UNDEFINED_WHERE_SCORED_ID]
    miss = Miss(probe, config, answer, config, FLOAT64)
    assert not model(miss, ModelParams(mean_kept=True))
    assert model(miss, ModelParams(mean_kept=False))


def test_a_failure_is_explained_only_by_an_error_the_page_shows() -> None:
    probe = _probe([("d1", "0.5")], [("d1", "1")])
    config = parse_measure("nDCG(fractional=error)")
    model = MODELS[ERRORS_ID]
    seen = ModelParams(errors=("AssertionError: DataFrame scores column dtype must be `int`",))
    crash = Answer({"error": "AssertionError: DataFrame scores column dtype must be `int`\n  at"})
    assert model(Miss(probe, config, crash, config, FLOAT64), seen)
    other = Answer({"error": "adapter crashed: killed by SIGSEGV"})
    assert not model(Miss(probe, config, other, config, FLOAT64), seen)
    refused = Answer({"rejected": "fraction"})
    assert not model(Miss(probe, config, refused, config, FLOAT64), seen)


def test_an_ideal_of_the_first_k_judgments_explains_a_value_above_one() -> None:
    # Judgments a 1, b 3 in that order, b ranked first, k = 1: the ideal of the first judgment
    # alone is 2^1 - 1 = 1, the DCG 2^3 - 1 = 7 (rank-validation's ndcg([1, 3], [3, 1], 1)).
    probe = _probe([("a", "1"), ("b", "3")], [("b", "2"), ("a", "1")])
    config = parse_measure("nDCG(gain=exponential,negative=keep-in-ideal,ties=input)@1")
    model = MODELS[IDEAL_FIRST_K]
    seven = Answer({"per_query": {"q1": 7.0}, "aggregate": 7.0})
    assert not meets(probe, config, seven, config, *FLOAT64)
    assert model(Miss(probe, config, seven, config, FLOAT64), ModelParams())
    one = Answer({"per_query": {"q1": 1.0}, "aggregate": 1.0})
    assert not model(Miss(probe, config, one, config, FLOAT64), ModelParams())


def test_the_first_k_ideal_pads_with_zeros_before_the_sort() -> None:
    # Judgments a 1, b -1, a alone ranked, the whole ranking: k is the longest list, 2, so
    # nothing is padded and the ideal is (1, -1/2): 1 / (1 - 0.5 / log2(3)). A padded k of 3
    # would have sunk -1 below a 0 instead.
    probe = _probe([("a", "1"), ("b", "-1")], [("a", "1")])
    config = parse_measure("nDCG(gain=exponential,negative=keep-in-ideal,ties=input)")
    value = 1 / (1 - 0.5 / math.log2(3))
    answer = Answer({"per_query": {"q1": value}, "aggregate": value})
    assert MODELS[IDEAL_FIRST_K](Miss(probe, config, answer, config, FLOAT64), ModelParams())


def test_the_first_k_ideal_counts_only_the_queries_given() -> None:
    # As above, beside q2, judged five times and not retrieved: rank-validation's adapter gives
    # the library q1 alone, so the whole ranking is still k = 2. Counting q2's five judgments
    # (k = 5) would pad q1's list and sink -1 below three zeros.
    hand = _probe([("a", "1"), ("b", "-1")], [("a", "1")])
    unrun = tuple(("q2", f"x{i}", "1") for i in range(5))
    probe = ProbeInput("hand", hand.qrels + unrun, hand.run, hand.config)
    config = parse_measure("nDCG(gain=exponential,negative=keep-in-ideal,ties=input,aggregate=run)")
    value = 1 / (1 - 0.5 / math.log2(3))
    answer = Answer({"per_query": {"q1": value}, "aggregate": value})
    assert MODELS[IDEAL_FIRST_K](Miss(probe, config, answer, config, FLOAT64), ModelParams())
    padded = 1 / (1 - 0.5 / math.log2(6))
    five = Answer({"per_query": {"q1": padded}, "aggregate": padded})
    assert not MODELS[IDEAL_FIRST_K](Miss(probe, config, five, config, FLOAT64), ModelParams())


def test_an_ideal_of_the_nonzero_labels_moves_a_negative_label_up() -> None:
    # a 1, b 0, c -1 ranked a, b, c, linear gain: DCG 1 + 0 - 1/log2(4) = 0.5. The spec's
    # keep-in-ideal ideal (1, 0, -1) is 0.5 too; the ideal of the nonzero labels (1, -1) is
    # 1 - 1/log2(3), so rankerEval's value is 0.5 / (1 - 1/log2(3)).
    probe = _probe([("a", "1"), ("b", "0"), ("c", "-1")], [("a", "3"), ("b", "2"), ("c", "1")])
    config = parse_measure("nDCG(negative=keep-in-ideal,ties=input,empty=nan)")
    value = 0.5 / (1 - 1 / math.log2(3))
    sparse = Answer({"per_query": {"q1": value}, "aggregate": value})
    assert not meets(probe, config, sparse, config, *FLOAT64)
    assert MODELS[IDEAL_NONZERO](Miss(probe, config, sparse, config, FLOAT64), ModelParams())
    dense = Answer({"per_query": {"q1": 1.0}, "aggregate": 1.0})
    assert meets(probe, config, dense, config, *FLOAT64)
    assert not MODELS[IDEAL_NONZERO](Miss(probe, config, dense, config, FLOAT64), ModelParams())
