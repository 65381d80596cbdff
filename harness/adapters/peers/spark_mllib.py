"""Spark MLlib's nDCG as built-in adapters: ``pyspark.mllib.evaluation.RankingMetrics.ndcgAt``
without relevance values (``ndcgspec run spark-mllib``) and with them
(``spark-mllib-relevance``, the (prediction, label, relevance) rows of Spark ≥ 3.4), and
``pyspark.ml.evaluation.RankingEvaluator(metricName="ndcgAtK")`` (``spark-ml``).

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

PySpark 4.3.0 never hands the relevance values (the rows of the Spark ≥ 3.4 form) to
Scala: ``PythonMLLibAPI.newRankingMetrics`` maps each row of the DataFrame it builds to a pair
(prediction, labels), so the three-element rows of ``spark-mllib-relevance`` are scored as
binary nDCG and the relevance values are ignored. The relevance form works from Scala and Java
only; there, with the label list below, it would give exponential gain (2^relevance − 1).

What these adapters hand Spark, as a careful user would: one row per query the ``aggregate``
axis scores (an empty prediction for a query the run lacks), the prediction the run's
documents sorted by score descending, ties kept in run order (a stable sort; ``ORDER BY score
DESC`` alone leaves tie order to Spark), repeated documents passed as they are; the label set
the relevant documents, those judged with a positive label, sorted by label descending
(Spark's ideal DCG takes the list as given, so an unsorted list gives a wrong ideal), with
``spark-mllib-relevance`` their labels as the relevance values. A document judged 0 or below
is left out: in the label set it would count as relevant.
A whole ranking (no cutoff) is k = 2^31 − 1.
ndcgAt returns only the mean: each query is one call on a one-row dataset, documents numbered
and the lists typed arrays of doubles (Spark cannot infer the type of an empty Python list, and
RankingEvaluator takes only numbers). Each worker process starts one local Spark session and
reuses it across cases.
"""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import Mapping
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
from ndcgspec.harness.adapters.peers.common import PeerAdapter, require

DISTRIBUTION = "pyspark"
WHOLE_RANKING = 2**31 - 1
"""k for no cutoff: Spark's k is a positive Int, and every list is shorter."""


@cache
def local_session() -> Any:
    """The worker process's Spark session: local mode on one core, no UI, quiet; a session
    already running in the process (a test's) is used as it is."""
    sql = require("pyspark.sql", DISTRIBUTION)
    running = sql.SparkSession.getActiveSession()
    if running is not None:
        return running
    # Spark's Python workers (which turn the rows into a DataFrame) run this interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        sql.SparkSession.builder.master("local[1]")
        .appName("ndcgspec spark peer")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("OFF")
    return session


def ranked_documents(ranking: list[tuple[str, Decimal]]) -> list[str]:
    """The run's documents by score descending, ties in run order (a stable sort)."""
    return [docid for docid, _ in sorted(ranking, key=lambda row: -row[1])]


def label_list(judged: Mapping[str, Decimal]) -> list[tuple[str, Decimal]]:
    """The ground truth handed to Spark: the judged documents with a positive label, by label
    descending (the relevance values of ``spark-mllib-relevance`` are these labels)."""
    kept = [(d, label) for d, label in judged.items() if label > 0]
    return sorted(kept, key=lambda row: -row[1])


class SparkRankingAdapter(PeerAdapter):
    """``RankingMetrics(rows).ndcgAt(k)``, or ``RankingEvaluator(metricName="ndcgAtK", k=k)``
    with `evaluator`, one query per call."""

    def __init__(self, relevance: bool = False, evaluator: bool = False) -> None:
        self.relevance, self.evaluator = relevance, evaluator
        if evaluator:
            self.ml = require("pyspark.ml.evaluation", DISTRIBUTION)
            name = "spark-ml"
        else:
            self.mllib = require("pyspark.mllib.evaluation", DISTRIBUTION)
            name = "spark-mllib-relevance" if relevance else "spark-mllib"
        self.session = local_session()
        super().__init__(
            name=name,
            version=distribution_version(DISTRIBUTION),
            # pyspark drops the relevance values (see the module's docstring): both mllib
            # adapters compute binary nDCG (``ndcg.gain.binary``).
            capabilities={
                "gain": ["binary"],
                "ties": ["input"],
                "aggregate": ["qrels", "run"],
            },
            library=DISTRIBUTION,
            not_observable={"aggregate": CALLER_PICKS_QUERIES},
        )

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> dict[str, float]:
        """nDCG of each query the aggregate axis scores, one Spark call each."""
        labels, rankings = case_input.labels(), case_input.rankings()
        k = config["cutoff"] or WHOLE_RANKING
        out = {}
        for qid in scored_queries(case_input, config):
            predicted = ranked_documents(rankings.get(qid, []))
            truth = label_list(labels.get(qid, {}))
            out[qid] = self._ndcg(predicted, truth, k)
        return out

    def _ndcg(self, predicted: list[str], truth: list[tuple[str, Decimal]], k: int) -> float:
        # Documents are numbered, as recommenders' item ids are, and the lists are typed
        # arrays of doubles (RankingEvaluator takes nothing else): Spark infers the type of
        # an empty Python list from nothing and refuses it, and a query the run lacks has one.
        number = {
            d: float(n) for n, d in enumerate(dict.fromkeys(predicted + [d for d, _ in truth]))
        }
        ranked = array("d", [number[d] for d in predicted])
        relevant = array("d", [number[d] for d, _ in truth])
        if self.evaluator:
            frame = self.session.createDataFrame(
                [(list(ranked), list(relevant))], "prediction array<double>, label array<double>"
            )
            evaluator = self.ml.RankingEvaluator(metricName="ndcgAtK", k=k)
            return float(evaluator.evaluate(frame))
        row: tuple[Any, ...] = (ranked, relevant)
        if self.relevance:
            row = (*row, array("d", [float(label_number(label)) for _, label in truth]))
        rows = self.session.sparkContext.parallelize([row], 1)
        return float(self.mllib.RankingMetrics(rows).ndcgAt(k))


def adapter() -> SparkRankingAdapter:
    return SparkRankingAdapter()


def adapter_relevance() -> SparkRankingAdapter:
    return SparkRankingAdapter(relevance=True)


def adapter_evaluator() -> SparkRankingAdapter:
    return SparkRankingAdapter(evaluator=True)
