"""The Spark session of the Spark tests: local mode on two cores, started once per test run
(the modules' fixtures share it, since getOrCreate returns the running session); the tests
skip, saying why, without pyspark or Java."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture(scope="session", name="spark")
def spark_fixture() -> Iterator[SparkSession]:
    pytest.importorskip("pyspark", reason="pyspark is not installed (ndcgspec's extra spark)")
    if shutil.which("java") is None and "JAVA_HOME" not in os.environ:
        pytest.skip("Java is not installed (no java on the PATH, no JAVA_HOME): Spark cannot start")
    from pyspark.sql import SparkSession

    from ndcgspec.harness.adapters.peers.spark_mllib import JVM_OPTIONS

    # The executors of local mode must import ndcgspec: they run this interpreter.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.extraJavaOptions", JVM_OPTIONS)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
