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
dataset, a case's queries two jobs at a time; documents are numbered and the lists are arrays
of doubles (RankingEvaluator takes only numbers). A query that reaches Spark as the same
numbered lists and k as an earlier one is not recomputed: the worker keeps each answer. One
worker process serves each adapter (`Adapter.processes`): it starts a local Spark session, a
JVM that a second process would start again, and reuses it across cases.
"""

from __future__ import annotations

import os
import queue
import struct
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
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
JOBS_IN_FLIGHT = 2
"""Spark jobs a worker has in flight at once: while one job's answer crosses the gateway the
JVM runs the other's (a one-row RankingEvaluator job 25 -> 17 ms, three at once 15 ms)."""
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


class JvmCalls:
    """What the adapters call in the session's JVM, looked up once: every lookup of a class
    through the gateway (``jvm.scala.Tuple2``) is a round trip, and they were about a quarter
    of a one-row job's time (24 ms of RankingMetrics' job, 18 ms with them kept). Spark ML's
    evaluator and the rows' schema are made once too, as a user scoring many queries does:
    `ndcg_evaluated` sets its k before each call (48 ms, 36 ms with them kept)."""

    def __init__(self, session: Any) -> None:
        jvm = session._jvm
        self.gateway = session.sparkContext._gateway
        self.session, self.context = session._jsparkSession, session.sparkContext._jsc
        self.double, self.byte_buffer = jvm.double, jvm.java.nio.ByteBuffer
        self.array_list, self.object = jvm.java.util.ArrayList, jvm.java.lang.Object
        self.tuples = {2: jvm.scala.Tuple2, 3: jvm.scala.Tuple3}
        self.ranking_metrics = jvm.org.apache.spark.mllib.evaluation.RankingMetrics
        self.double_tag = jvm.scala.reflect.ClassTag.Double()
        self.row_factory = jvm.org.apache.spark.sql.RowFactory
        self.schema = jvm.org.apache.spark.sql.types.StructType.fromDDL(
            "prediction array<double>, label array<double>"
        )
        evaluator = jvm.org.apache.spark.ml.evaluation.RankingEvaluator()
        self.evaluator = evaluator.setMetricName("ndcgAtK")

    def doubles(self, values: Sequence[float]) -> Any:
        """A Java double[] holding `values`, sent to the JVM as one byte string: a gateway
        call per element would cost more than the Spark job."""
        doubles = self.gateway.new_array(self.double, len(values))
        if values:
            packed = struct.pack(f">{len(values)}d", *values)
            self.byte_buffer.wrap(packed).asDoubleBuffer().get(doubles)
        return doubles

    def ndcg_at(self, columns: Sequence[Any], k: int) -> float:
        """Scala's ``new RankingMetrics(rows).ndcgAt(k)`` of one row of two or three arrays."""
        rows = self.array_list()
        rows.add(self.tuples[len(columns)](*columns))
        dataset = self.context.parallelize(rows, 1).rdd()
        return float(self.ranking_metrics(dataset, self.double_tag).ndcgAt(k))

    def ndcg_evaluated(self, columns: Sequence[Any], k: int) -> float:
        """``RankingEvaluator().setMetricName("ndcgAtK").setK(k).evaluate`` on a one-row
        DataFrame of columns ``prediction`` and ``label`` (its default column names)."""
        cells = self.gateway.new_array(self.object, len(columns))
        for index, column in enumerate(columns):
            cells[index] = column
        rows = self.array_list()
        rows.add(self.row_factory.create(cells))
        frame = self.session.createDataFrame(rows, self.schema)
        return float(self.evaluator.setK(k).evaluate(frame))


class SparkRankingAdapter(PeerAdapter):
    """Scala's ``RankingMetrics(rows).ndcgAt(k)`` (with relevance values when `relevance`), or
    with `evaluator` Spark ML's ``RankingEvaluator`` (metric ``ndcgAtK``, k), one query per
    Spark job, JOBS_IN_FLIGHT of them at once."""

    def __init__(self, relevance: bool = False, evaluator: bool = False) -> None:
        self.relevance, self.evaluator = relevance, evaluator
        self.answers: dict[tuple[tuple[tuple[float, ...], ...], int], float] = {}
        name = "spark-mllib-relevance" if relevance else "spark-mllib"
        self.session = local_session()
        # One set of calls (and evaluator, whose k is set) per job in flight, and the same
        # threads for every case: each thread the gateway sees gets a JVM thread of its own.
        self.calls: queue.SimpleQueue[JvmCalls] = queue.SimpleQueue()
        for _ in range(JOBS_IN_FLIGHT):
            self.calls.put(JvmCalls(self.session))
        self.jobs = ThreadPoolExecutor(JOBS_IN_FLIGHT)
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
            processes=1,
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> dict[str, float]:
        """nDCG of each query the aggregate axis scores, one Spark job each."""
        labels, rankings = case_input.labels(), case_input.rankings()
        k = config.cutoff or WHOLE_RANKING
        asked = {}
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
            asked[qid] = row, k
        new = [key for key in dict.fromkeys(asked.values()) if key not in self.answers]
        self.answers.update(zip(new, self.jobs.map(self._job, new), strict=True))
        return {qid: self.answers[key] for qid, key in asked.items()}

    def _job(self, key: tuple[tuple[tuple[float, ...], ...], int]) -> float:
        """One query's Spark job, on a set of calls no other job in flight holds."""
        row, k = key
        calls = self.calls.get()
        try:
            columns = [calls.doubles(column) for column in row]
            return (calls.ndcg_evaluated if self.evaluator else calls.ndcg_at)(columns, k)
        finally:
            self.calls.put(calls)


def adapter() -> SparkRankingAdapter:
    return SparkRankingAdapter()


def adapter_relevance() -> SparkRankingAdapter:
    return SparkRankingAdapter(relevance=True)


def adapter_evaluator() -> SparkRankingAdapter:
    return SparkRankingAdapter(evaluator=True)
