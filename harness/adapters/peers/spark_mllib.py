"""Spark MLlib's nDCG as built-in adapters: ``org.apache.spark.mllib.evaluation.RankingMetrics``
``.ndcgAt`` without relevance values (``ndcgspec run spark-mllib``) and with them
(``spark-mllib-relevance``, the (prediction, label, relevance) rows of Spark ≥ 3.4), and
``org.apache.spark.ml.evaluation.RankingEvaluator`` with ``metricName="ndcgAtK"``, the class
``pyspark.ml.evaluation.RankingEvaluator`` wraps (``spark-ml``).

What Spark computes (RankingMetrics.scala, ``ndcgAt``): each row is a query's predicted
ranking (a list of document ids, best first) and its ground-truth label list. The DCG adds, at
each 0-based position i < min(max(len(prediction), size of the label set), k), gain / ln(i + 2);
the natural log cancels in the ratio, so the discount is 1/log2(rank + 1). The ideal DCG adds
the same discount over the first min(size of the label set, k) positions of the label list
itself: without relevance values each position gains 1 (binary: a document is relevant when
it is in the label set), with them it gains 2^relevance − 1 of the label list's own order, and
a predicted document gains 2^relevance − 1 of its label (0 for a document outside the list).
A query with an empty label set, or an ideal DCG of 0, scores 0.0 (with a logged warning); the
result is the plain mean over the rows. RankingEvaluator casts both columns to array<double>
and calls the same RankingMetrics.ndcgAt (binary).

Without relevance values this is the spec's binary gain (``ndcg.gain.binary``): a document
of the label set gains 1 whatever its grade.

The adapters call the Scala classes in the session's JVM, as Scala and Java users do, through
the gateway pyspark opens. pyspark's RankingEvaluator only hands its parameters and DataFrame
to the same Scala evaluator; called directly on a DataFrame built in the JVM, it costs a third
of the time (no Python rows to convert, no parameters copied per call). pyspark's own Python
wrapper (``pyspark.mllib.evaluation.RankingMetrics``) computes the same binary nDCG, but it
cannot compute the relevance form: ``PythonMLLibAPI.newRankingMetrics`` maps each row of the
DataFrame it builds to a pair (prediction, labels), so three-element rows are scored as binary
nDCG and the relevance values are ignored (``tests/test_spark_peers.py`` shows both). It also
costs two Python-worker jobs per call to turn the Python rows into that DataFrame.

What these adapters hand Spark, as a careful user would: one row per query the ``aggregate``
axis scores (an empty prediction for a query the run lacks), the prediction the run's
documents sorted by score descending, ties kept in run order (a stable sort; ``ORDER BY score
DESC`` alone leaves tie order to Spark), repeated documents passed as they are; the label set
the relevant documents, those judged with a positive label, sorted by label descending
(Spark's ideal DCG takes the list as given, so an unsorted list gives a wrong ideal), with
``spark-mllib-relevance`` their labels as the relevance values. A document judged 0 or below
is left out: in the label set it would count as relevant. A whole ranking (no cutoff) is
k = 2^31 − 1. ndcgAt returns only the mean, so each query is one Spark job on a one-row
dataset; documents are numbered and the lists are arrays of doubles (RankingEvaluator takes
only numbers). A query that reaches Spark as the same numbered lists and k as an earlier one
is not recomputed: the worker keeps each answer. Each worker process starts one local Spark
session and reuses it across cases.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import cache
from typing import Any

from ndcgspec.harness.adapters.base import (
    CALLER_PICKS_QUERIES,
    CaseInput,
    distribution_version,
    label_number,
    scored_queries,
)
from ndcgspec.harness.adapters.peers.common import PeerAdapter, ranked_documents, require
from ndcgspec.reference import Config

DISTRIBUTION = "pyspark"
EXTRA = "spark"
ADAPTERS = {
    "spark-mllib": "adapter",
    "spark-mllib-relevance": "adapter_relevance",
    "spark-ml": "adapter_evaluator",
}
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
WHOLE_RANKING = 2**31 - 1
"""k for no cutoff: Spark's k is a positive Int, and every list is shorter."""


@cache
def local_session() -> Any:
    """The worker process's Spark session: local mode on one core, no UI, quiet; a session
    already running in the process (a test's) is used as it is."""
    sql = require("pyspark.sql", EXTRA)
    running = sql.SparkSession.getActiveSession()
    if running is not None:
        return running
    # Any Python worker Spark starts runs this interpreter, which has ndcgspec.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        sql.SparkSession.builder.master("local[1]")
        .appName("ndcgspec spark peer")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        # A worker's JVM lives for a minute of one-row jobs: the JIT's optimising tier and a
        # parallel collector cost more CPU than they return (Java's arithmetic is the same).
        .config("spark.driver.extraJavaOptions", JVM_OPTIONS)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("OFF")
    return session


def label_list(judged: Mapping[str, Decimal]) -> list[tuple[str, Decimal]]:
    """The ground truth handed to Spark: the judged documents with a positive label, by label
    descending (the relevance values of ``spark-mllib-relevance`` are these labels)."""
    kept = [(d, label) for d, label in judged.items() if label > 0]
    return sorted(kept, key=lambda row: -row[1])


def java_doubles(session: Any, values: Sequence[float]) -> Any:
    """A Java double[] holding `values`, sent to the JVM as one byte string: a gateway call per
    element would cost more than the Spark job."""
    jvm = session._jvm
    doubles = session.sparkContext._gateway.new_array(jvm.double, len(values))
    if values:
        packed = struct.pack(f">{len(values)}d", *values)
        jvm.java.nio.ByteBuffer.wrap(packed).asDoubleBuffer().get(doubles)
    return doubles


class SparkRankingAdapter(PeerAdapter):
    """Scala's ``RankingMetrics(rows).ndcgAt(k)`` (with relevance values when `relevance`), or
    with `evaluator` Spark ML's ``RankingEvaluator`` (metric ``ndcgAtK``, k), one query per
    Spark job."""

    def __init__(self, relevance: bool = False, evaluator: bool = False) -> None:
        self.relevance, self.evaluator = relevance, evaluator
        self.answers: dict[tuple[tuple[tuple[float, ...], ...], int], float] = {}
        name = "spark-mllib-relevance" if relevance else "spark-mllib"
        self.session = local_session()
        super().__init__(
            name="spark-ml" if evaluator else name,
            version=distribution_version(DISTRIBUTION),
            capabilities={
                "gain": ["exponential" if relevance else "binary"],
                "ties": ["input"],
                "aggregate": ["qrels", "run"],
            },
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query the aggregate axis scores, one Spark job each."""
        labels, rankings = case_input.labels(), case_input.rankings()
        k = config.cutoff or WHOLE_RANKING
        out = {}
        for qid in scored_queries(case_input, config.choice("aggregate")):
            predicted = ranked_documents(rankings.get(qid, []))
            truth = label_list(labels.get(qid, {}))
            # Documents are numbered, as recommenders' item ids are.
            number = {
                d: float(n) for n, d in enumerate(dict.fromkeys(predicted + [d for d, _ in truth]))
            }
            row: tuple[tuple[float, ...], ...] = (
                tuple(number[d] for d in predicted),
                tuple(number[d] for d, _ in truth),
            )
            if self.relevance:
                row = (*row, tuple(float(label_number(label)) for _, label in truth))
            if (row, k) not in self.answers:
                self.answers[row, k] = self._ndcg(row, k)
            out[qid] = self.answers[row, k]
        return out

    def _ndcg(self, row: tuple[tuple[float, ...], ...], k: int) -> float:
        jvm = self.session._jvm
        arrays = [java_doubles(self.session, column) for column in row]
        if self.evaluator:
            return float(self._evaluated(arrays, k))
        rows = jvm.java.util.ArrayList()
        rows.add((jvm.scala.Tuple3 if self.relevance else jvm.scala.Tuple2)(*arrays))
        dataset = self.session.sparkContext._jsc.parallelize(rows, 1).rdd()
        metrics = jvm.org.apache.spark.mllib.evaluation.RankingMetrics(
            dataset, jvm.scala.reflect.ClassTag.Double()
        )
        return float(metrics.ndcgAt(k))

    def _evaluated(self, arrays: list[Any], k: int) -> Any:
        """``RankingEvaluator().setMetricName("ndcgAtK").setK(k).evaluate`` on a one-row
        DataFrame of columns ``prediction`` and ``label`` (its default column names)."""
        jvm = self.session._jvm
        cells = self.session.sparkContext._gateway.new_array(jvm.java.lang.Object, len(arrays))
        for index, array in enumerate(arrays):
            cells[index] = array
        rows = jvm.java.util.ArrayList()
        rows.add(jvm.org.apache.spark.sql.RowFactory.create(cells))
        schema = jvm.org.apache.spark.sql.types.StructType.fromDDL(
            "prediction array<double>, label array<double>"
        )
        frame = self.session._jsparkSession.createDataFrame(rows, schema)
        evaluator = jvm.org.apache.spark.ml.evaluation.RankingEvaluator()
        return evaluator.setMetricName("ndcgAtK").setK(k).evaluate(frame)


def adapter() -> SparkRankingAdapter:
    return SparkRankingAdapter()


def adapter_relevance() -> SparkRankingAdapter:
    return SparkRankingAdapter(relevance=True)


def adapter_evaluator() -> SparkRankingAdapter:
    return SparkRankingAdapter(evaluator=True)
