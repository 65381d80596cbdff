"""The driver's side of the Spark path: inputs as TREC lines partitioned by query, the
executors' correctly rounded per-query values and exact shares of the mean
(`engine.mean.MeanPart`) combined into each configuration's digits
(`engine.result_digits.ResultDigits`), identical to `engine.scoring.score_files` digit for
digit; `score_frames` and `score_paths` give them as the JSON result objects of ``ndcgspec
score``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndcgspec.engine.mean import MeanPart, NeedsMoreDigits
from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.table import QRELS_COLUMNS, RUN_COLUMNS, TableColumns
from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import plain_digits
from ndcgspec.reference.errors import InputError, NdcgSpecError
from ndcgspec.reference.location import Location
from ndcgspec.reference.trec_io import SEPARATORS
from ndcgspec.spark.partition import (
    COUNTED,
    FAILED,
    LINES_SCHEMA,
    QRELS,
    RESULTS_SCHEMA,
    RUN,
    UNJUDGED,
    score_partition,
    trec_lines,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession

_SPACE = "[" + "".join(f"\\x{byte:02x}" for byte in SEPARATORS) + "]"
_FIRST_FIELD = f"^{_SPACE}*([^{_SPACE[1:-1]}]+)"
_BOM = "^\ufeff"


def combined_mean(parts: Sequence[MeanPart]) -> str | None:
    """The aggregate of the executors' shares of the mean, combined in any order and rounded
    once (``ndcg.precision``), as the single-machine engine rounds it: the same digits."""
    total = MeanPart()
    for part in parts:
        total = total.combine(part)
    try:
        mean = total.rounded_mean()
    except NeedsMoreDigits:
        raise NdcgSpecError(
            "the mean lies within 2^-256 of a rounding boundary, which the executors' shares "
            "cannot settle: score these files with the single-machine engine"
        ) from None
    return None if mean is None else plain_digits(mean)


def _results(
    configs: Sequence[Config], rows: list[Row], names: tuple[str, str]
) -> list[ResultDigits]:
    """The digits of each configuration from the executors' rows; an input without a line, or
    else the input error of the earliest line a partition found, raises."""
    for kind, counted in ((QRELS, "qrels_lines"), (RUN, "run_lines")):
        if not any(row[counted] for row in rows if row["config"] == COUNTED):
            raise InputError("file is empty", Location(names[kind]))
    failures = sorted((row["first"], row["error"], row) for row in rows if row["config"] == FAILED)
    if failures:
        _, message, row = failures[0]
        raise InputError(message, anchor=row["anchor"], axis=row["axis"])
    by_config: list[list[Row]] = [[] for _ in configs]
    parts: list[list[MeanPart]] = [[] for _ in configs]
    for row in rows:
        if row["config"] >= 0 and row["qid"] is None:
            parts[row["config"]].append(MeanPart.from_json(json.loads(row["part"])))
        elif row["config"] >= 0:
            by_config[row["config"]].append(row)
    out = []
    for config, queries, shares in zip(configs, by_config, parts, strict=True):
        queries.sort(key=lambda row: row["first"])
        per_query = {
            row["qid"]: {"ndcg": row["ndcg"], "dcg": row["dcg"], "idcg": row["idcg"]}
            for row in queries
        }
        out.append(ResultDigits(config, combined_mean(shares), per_query))
    return out


def _with_query(lines: DataFrame) -> DataFrame:
    """`lines` (a `line` column, a `row`) with the query id of each: its first field."""
    from pyspark.sql import functions as F

    return lines.withColumn("qid", F.regexp_extract("line", _FIRST_FIELD, 1))


def scored_lines(
    configs: Sequence[Config],
    qrels: DataFrame,
    run: DataFrame,
    names: tuple[str, str],
    *,
    partitions: int | None = None,
    decoded: tuple[bool, bool] = (False, False),
) -> tuple[list[ResultDigits], tuple[str, ...]]:
    """The digits of each configuration for qrels and run given as TREC lines
    (columns `row`, the line's place in its input, and `line`), `names` naming them in
    messages: blank lines dropped, an input without a line an error, as the readers do.
    `decoded` marks an input Spark decoded from a text file (`partition.score_partition`).
    Beside them, the run's queries the qrels lack, in run order (``ndcg.definition.inputs``)."""
    from pyspark.sql import functions as F

    tagged = [
        _with_query(lines).where(F.col("qid") != "").withColumn("kind", F.lit(kind))
        for kind, lines in ((QRELS, qrels), (RUN, run))
    ]
    tagged = [lines.select(*_names(LINES_SCHEMA)) for lines in tagged]
    union = tagged[QRELS].unionByName(tagged[RUN])
    union = union.repartition(partitions, "qid") if partitions else union.repartition("qid")
    scorer = partial(score_partition, list(configs), names, decoded)
    rows = union.mapInPandas(scorer, RESULTS_SCHEMA).collect()
    unjudged = sorted((row["first"], row["qid"]) for row in rows if row["config"] == UNJUDGED)
    return _results(configs, rows, names), tuple(qid for _, qid in unjudged)


def _names(schema: str) -> list[str]:
    return [field.split()[0] for field in schema.split(", ")]


def frame_lines(frame: DataFrame, columns: Sequence[str], kind: int, name: str) -> DataFrame:
    """A qrels or run DataFrame as TREC lines with their rows (``ndcg.input``): query id,
    document id and label or score from `columns`, in the DataFrame's order."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"no column {missing[0]!r}; the columns are {frame.columns}", Location(name)
        )
    qid, docid, value = columns
    value_type = frame.schema[value].dataType
    if not isinstance(value_type, T.StringType | T.NumericType):
        raise InputError(
            f"column {value!r} holds {value_type.simpleString()}: labels and scores are "
            "numbers or decimal strings",
            Location(name),
        )
    fields = frame.select(
        F.monotonically_increasing_id().alias("row"),
        F.col(qid).cast("string").alias("qid"),
        F.col(docid).cast("string").alias("docid"),
        F.col(value).alias("value"),
    )
    return fields.mapInPandas(partial(trec_lines, kind), "row long, line string")


def score_frames(
    configs: Sequence[Config],
    qrels: DataFrame,
    run: DataFrame,
    *,
    qrels_columns: Sequence[str] = QRELS_COLUMNS,
    run_columns: Sequence[str] = RUN_COLUMNS,
    partitions: int | None = None,
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration, as ``ndcgspec score`` gives it, for a
    qrels DataFrame (query id, document id, relevance) and a run DataFrame (query id,
    document id, score), the column names given in that order. Ids are strings (other types
    are cast); labels and scores are numbers or decimal strings, a float64 standing for the
    exact decimal of the double. The run's order is its input order (``ndcg.ties.input``)."""
    names = ("qrels DataFrame", "run DataFrame")
    results, _ = scored_lines(
        configs,
        frame_lines(qrels, qrels_columns, QRELS, names[QRELS]),
        frame_lines(run, run_columns, RUN, names[RUN]),
        names,
        partitions=partitions,
    )
    return [result.to_json() for result in results]


def _is_parquet(path: str) -> bool:
    return path.endswith(".parquet") or Path(path).is_dir()


def scored_paths(
    spark: SparkSession,
    configs: Sequence[Config],
    qrels: str,
    run: str,
    *,
    columns: TableColumns | None = None,
    partitions: int | None = None,
) -> tuple[list[ResultDigits], tuple[str, ...]]:
    """The digits of each configuration for files Spark reads itself: TREC text (gzip by
    the ``.gz`` suffix, as Spark reads it) or Parquet tables (a ``.parquet`` file or a
    directory) with the columns `columns` names (ir_measures' by default). Any path Spark
    reads is accepted (hdfs://, s3a://, ...). Beside them, the run's queries the qrels lack
    (`scored_lines`)."""
    from pyspark.errors import AnalysisException

    lines, decoded = [], []
    columns = columns or TableColumns()
    for kind, path, names in ((QRELS, qrels, columns.qrels), (RUN, run, columns.run)):
        try:
            if _is_parquet(path):
                lines.append(frame_lines(spark.read.parquet(path), names, kind, path))
            else:
                lines.append(_text_lines(spark, path))
        except AnalysisException as error:
            raise InputError(f"cannot read: {error.getMessage()}", Location(path)) from None
        decoded.append(not _is_parquet(path))
    return scored_lines(
        configs,
        lines[0],
        lines[1],
        (qrels, run),
        partitions=partitions,
        decoded=(decoded[0], decoded[1]),
    )


def score_paths(
    spark: SparkSession,
    configs: Sequence[Config],
    qrels: str,
    run: str,
    *,
    columns: TableColumns | None = None,
    partitions: int | None = None,
) -> list[dict[str, Any]]:
    """The JSON result object of each configuration (as `score_frames` gives them) for files
    Spark reads itself (`scored_paths`)."""
    results, _ = scored_paths(spark, configs, qrels, run, columns=columns, partitions=partitions)
    return [result.to_json() for result in results]


def _text_lines(spark: SparkSession, path: str) -> DataFrame:
    """A text file's lines with their rows, in file order, a leading byte-order mark
    dropped (``ndcg.input``)."""
    from pyspark.sql import functions as F

    return spark.read.text(path).select(
        F.monotonically_increasing_id().alias("row"),
        F.regexp_replace("value", _BOM, "").alias("line"),
    )
