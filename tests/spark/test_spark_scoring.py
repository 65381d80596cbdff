"""Scoring on Spark (``ndcgspec.spark``): a float64 label is the exact decimal of its double,
input errors are the readers' and name the line, ``score --engine spark`` prints what the
local engine prints. That Spark gives the single-machine result objects, every digit, is
tested in tests/engine/test_equals_reference.py. Spark runs in local mode, one session for
the test run; without pyspark or Java the tests skip and say why."""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from install_hints import names_extras
from spark_session import spark_fixture  # noqa: F401 (the fixture `spark`)

from ndcgspec.commands.cli import main
from ndcgspec.engine.scoring import score_files
from ndcgspec.reference import Config, InputError
from ndcgspec.spark import score_frames, score_paths
from ndcgspec.spark.transport import exact_decimal_text

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.mark.slow
def test_a_float64_label_is_the_exact_decimal_of_the_double(
    spark: SparkSession, tmp_path: Path
) -> None:
    # The double nearest 0.1 is 0.1000000000000000055511151231257827021181583404541015625,
    # which the 40 output digits tell from 0.1 (fractional=keep, linear gain).
    qrels = spark.createDataFrame(
        [("q", "a", 0.1), ("q", "b", 1.0)], ["query_id", "doc_id", "relevance"]
    )
    run = spark.createDataFrame([("q", "b", 2), ("q", "a", 1)], ["query_id", "doc_id", "score"])
    [result] = score_frames([Config.default()], qrels, run)
    (tmp_path / "run").write_text("q Q0 b 1 2 t\nq Q0 a 2 1 t\n")
    for label, same in (
        ("0.1000000000000000055511151231257827021181583404541015625", True),
        ("0.1", False),
    ):
        (tmp_path / "qrels").write_text(f"q 0 a {label}\nq 0 b 1\n")
        [single] = score_files([Config.default()], tmp_path / "qrels", tmp_path / "run")
        assert (single == result) is same


@pytest.mark.slow
def test_input_errors_name_the_file_and_quote_the_line(spark: SparkSession, tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    run.write_text("q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\n")
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq2 0 b 2\n")
    with pytest.raises(InputError) as single:
        score_files([Config.default()], qrels, run)
    with pytest.raises(InputError) as distributed:
        score_paths(spark, [Config.default()], str(qrels), str(run))
    # The readers' message, each file:line of it the file and the line itself.
    assert str(single.value) == (
        f"{qrels}:3: document 'b' is judged twice for query 'q2' (first at {qrels}:2)"
    )
    assert str(distributed.value) == (
        f"{qrels}, line 'q2 0 b 2': document 'b' is judged twice for query 'q2' "
        f"(first at {qrels}, line 'q2 0 b 1')"
    )
    qrels.write_bytes(b"q1 0 a 1\nq2 0 \xff 1\n")
    with pytest.raises(InputError, match="line 'q2 0 \ufffd 1': line is not valid UTF-8"):
        score_paths(spark, [Config.default()], str(qrels), str(run))
    empty = tmp_path / "empty"
    empty.write_text("\n  \n")
    with pytest.raises(InputError, match=f"^{empty}: file is empty$"):
        score_paths(spark, [Config.default()], str(empty), str(run))


@pytest.mark.slow
def test_score_engine_spark_prints_what_the_local_engine_prints(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq2 0 c 1\nq3 0 z 1\n")
    run.write_text("q1 Q0 b 1 0.5 t\nq1 Q0 a 2 0.5 t\nq2 Q0 c 1 3 t\nq9 Q0 c 1 3 t\n")
    printed = []
    for engine in ("local", "spark"):
        argv = ["score", "-q", "-m", "nDCG@2", "-m", "trec_eval", str(qrels), str(run)]
        assert main([*argv, "--engine", engine]) == 0
        printed.append(capsys.readouterr())
    assert printed[0] == printed[1]
    # The notes: q3 judged but not retrieved, q9 retrieved but not judged.
    assert "('q3')" in printed[0].err and "('q9')" in printed[0].err


def test_numeric_columns_are_written_as_the_exact_decimal_they_hold() -> None:
    # 2**-30 and 1e22 as doubles are exact; 0.1 is not.
    assert exact_decimal_text(2.0**-30) == "0.000000000931322574615478515625"
    assert exact_decimal_text(1e22) == "10000000000000000000000"
    assert exact_decimal_text(0.1) == "0.1000000000000000055511151231257827021181583404541015625"
    assert exact_decimal_text(Decimal("1.50E-3")) == "0.0015"
    assert exact_decimal_text(float("nan")) == "NaN"


def test_engine_spark_refuses_standard_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    assert main(["score", "--engine", "spark", str(tmp_path / "qrels"), "-"]) == 2
    assert capsys.readouterr().err == (
        "ndcgspec: error: --engine spark reads files, not standard input ('-')\n"
    )


def test_without_pyspark_engine_spark_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "pyspark"] + ["pyspark"]:
        monkeypatch.setitem(sys.modules, name, None)
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 t\n")
    assert main(["score", "--engine", "spark", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 2
    said = capsys.readouterr().err
    assert said.startswith("ndcgspec: error: --engine spark needs pyspark: pip install ")
    assert said.count("\n") == 1
    assert names_extras(said, ["spark"])
