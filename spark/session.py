"""The Spark session of ``ndcgspec score --engine spark``, and its scoring of two files."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.table import TableColumns
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import NdcgSpecError, install_hint
from ndcgspec.reference.trec_io import STDIN
from ndcgspec.spark.scoring import scored_paths

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_session(master: str | None = None) -> SparkSession:
    """The Spark session to score with: `master` a Spark master URL (``local[4]``,
    ``spark://host:7077``, ``yarn``, ...), or None for spark-submit's master, else local
    mode on every core. Without Java or pyspark, an NdcgSpecError saying so."""
    try:
        from pyspark.errors import PySparkException
        from pyspark.sql import SparkSession
    except ImportError:
        raise NdcgSpecError(f"--engine spark needs pyspark: {install_hint('spark')}") from None
    if "PYSPARK_GATEWAY_PORT" not in os.environ and (master or "local").startswith("local"):
        # Local executors run this very interpreter, the one that has ndcgspec installed,
        # rather than whichever python3 comes first on the PATH. spark-submit (which sets the
        # gateway port) and cluster masters keep their own spark.pyspark.python.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("ndcgspec score").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if master:
        builder = builder.master(master)
    try:
        return builder.getOrCreate()
    except PySparkException as error:
        raise NdcgSpecError(f"cannot start Spark: {error}") from None


def scored_files_spark(
    configs: Sequence[Config],
    qrels: str | Path,
    run: str | Path,
    columns: TableColumns | None = None,
    master: str | None = None,
) -> tuple[list[ResultDigits], tuple[str, ...]]:
    """`engine.scoring.score_files` computed on Spark (`scored_paths`): the same digits, a
    Parquet table's columns named by `columns`, and the run's queries the qrels lack; Spark
    reads files, so standard input is refused before Spark starts."""
    if STDIN in (str(qrels), str(run)):
        raise NdcgSpecError("--engine spark reads files, not standard input ('-')")
    return scored_paths(spark_session(master), configs, str(qrels), str(run), columns=columns)
