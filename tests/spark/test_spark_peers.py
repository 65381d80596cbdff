"""The Spark MLlib peers (``harness/adapters/peers/spark_mllib.py``) hand Spark what they say
and report what Spark computes: values derived here by hand from RankingMetrics.ndcgAt's
definition (gain / ln(i + 2), ideal from the label list cut at k), with ties in run order."""

from __future__ import annotations

import math
from typing import Any

import pytest
from spark_session import spark_fixture  # noqa: F401 (the fixture `spark`)

from ndcgspec.harness.adapters.base import CaseInput
from ndcgspec.reference import Config

# Each test starts Spark (a JVM) in an adapter's worker: tens of seconds.
pytestmark = pytest.mark.slow

# q1 ranks a (2.0), then b and c tied at 1.0 in run order; b is judged 2, d (unretrieved) 1,
# c 0. q2 is judged but absent from the run.
CASE = CaseInput(
    qrels=[["q1", "b", "2"], ["q1", "d", "1"], ["q1", "c", "0"], ["q2", "x", "1"]],
    run=[["q1", "a", "2.0"], ["q1", "b", "1.0"], ["q1", "c", "1.0"]],
)


def discount(rank: int) -> float:
    return 1 / math.log2(rank + 1)


def computed(name: str, config: Config) -> dict[str, float]:
    from ndcgspec.harness.adapters.base import load_adapter
    from ndcgspec.harness.registry import PEER_ADAPTERS

    adapter = load_adapter(PEER_ADAPTERS[name])
    return dict(adapter.compute(CASE, config.to_mapping()))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["spark-mllib", "spark-ml"])
def test_binary_ndcg_counts_each_positive_judgment_as_one(spark: Any, name: str) -> None:
    # Relevant: b and d. DCG: b at rank 2. Ideal: two relevant documents at ranks 1 and 2.
    binary = Config.default().replace(gain="binary")
    got = computed(name, binary)
    assert got["q1"] == pytest.approx(discount(2) / (discount(1) + discount(2)), rel=1e-12)
    assert got["q2"] == 0.0
    # Cut at 1: a is not relevant; the ideal keeps one document.
    assert computed(name, binary.replace(cutoff=1))["q1"] == 0.0


def test_scala_scores_the_relevance_values(spark: Any) -> None:
    # The label list holds the relevant documents only, b (2) and d (1), with their labels as
    # relevance values; c, judged 0, is left out (in the list it would count as relevant).
    # Scala's relevance form: b at rank 2 gains 2^2 - 1 = 3; ideal: 3 at rank 1, 1 at rank 2.
    got = computed("spark-mllib-relevance", Config.default().replace(gain="exponential"))
    assert got["q1"] == pytest.approx(3 * discount(2) / (3 + discount(2)), rel=1e-12)
    assert got["q2"] == 0.0


def test_pyspark_drops_the_relevance_values(spark: Any) -> None:
    # pyspark's wrapper, given q1 as three-element rows (a, b, c numbered 0, 1, 2 and d 3):
    # PythonMLLibAPI.newRankingMetrics keeps (prediction, labels) of each row, so b (2), d (1)
    # and c (0) are the label set, all relevant. DCG: b and c at ranks 2 and 3; ideal: three
    # relevant documents.
    from pyspark.mllib.evaluation import RankingMetrics

    rows = spark.sparkContext.parallelize([([0.0, 1.0, 2.0], [1.0, 3.0, 2.0], [2.0, 1.0, 0.0])])
    binary = (discount(2) + discount(3)) / (discount(1) + discount(2) + discount(3))
    assert RankingMetrics(rows).ndcgAt(10) == pytest.approx(binary, rel=1e-12)


def test_pyspark_evaluator_computes_what_the_spark_ml_adapter_asks_of_scala(spark: Any) -> None:
    # spark-ml calls the Scala RankingEvaluator directly; pyspark's class hands the same
    # evaluator its DataFrame. q1 as the adapter numbers it (a, b, c = 0, 1, 2; d = 3), label
    # list b, d: DCG b at rank 2; ideal two relevant documents. At k = 1, a is not relevant.
    from pyspark.ml.evaluation import RankingEvaluator

    frame = spark.createDataFrame(
        [([0.0, 1.0, 2.0], [1.0, 3.0])], "prediction array<double>, label array<double>"
    )
    whole = RankingEvaluator(metricName="ndcgAtK", k=10).evaluate(frame)
    assert whole == pytest.approx(discount(2) / (discount(1) + discount(2)), rel=1e-12)
    assert RankingEvaluator(metricName="ndcgAtK", k=1).evaluate(frame) == 0.0
    binary = Config.default().replace(gain="binary")
    assert computed("spark-ml", binary)["q1"] == whole
