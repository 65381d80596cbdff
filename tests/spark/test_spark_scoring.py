"""Scoring on Spark (``ndcgspec.spark``) gives the single-machine result objects, every digit:
on a sample of the golden suite across every axis, on a generated table of thousands of
queries read as TREC text, gzip and Parquet, and on DataFrames; input errors are the readers'.
Spark runs in local mode, one session for the module; without pyspark or Java the tests skip
and say why."""

from __future__ import annotations

import gzip
import random
import sys
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from install_hints import names_extras
from spark_session import spark_fixture  # noqa: F401 (the fixture `spark`)

from ndcgspec.commands.cli import main
from ndcgspec.engine.scoring import score_files
from ndcgspec.engine.table import TableColumns
from ndcgspec.reference import Config, InputError
from ndcgspec.spark import score_frames, score_paths
from ndcgspec.spark.transport import exact_decimal_text
from ndcgspec.suite import load as suite_load

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CASES_PER_AXIS = 1


def outcome(score: Any) -> tuple[str, Any]:
    """("values", result objects) or ("error", the anchor of the rejecting choice)."""
    try:
        return "values", score()
    except InputError as error:
        return "error", error.anchor


def _token(text: str) -> bool:
    return bool(text) and text.split() == [text]


def golden_sample() -> list[dict[str, Any]]:
    """The first cases of each case file of the suite's axes whose inline input TREC files
    can hold, with an expected object."""
    sample = []
    for path in suite_load.case_files():
        group = suite_load.group_of(path, suite_load.cases_root())
        taken = 0
        for loaded in suite_load.iter_cases(
            glob=path.relative_to(suite_load.cases_root()).as_posix()
        ):
            case = loaded.case
            rows = case.get("input", {})
            if (
                "expected" not in case
                or not rows.get("qrels")
                or not all(_token(f) for r in rows["qrels"] + rows["run"] for f in r)
            ):
                continue
            sample.append(case | {"group": group})
            taken += 1
            if taken == CASES_PER_AXIS:
                break
    return sample


def test_the_golden_sample_covers_every_axis() -> None:
    axes = {case["group"].split("/")[0] for case in golden_sample()}
    assert {"gain", "discount", "cutoff", "ideal", "unjudged", "negative", "ties"} <= axes
    assert {"duplicates", "empty", "aggregate", "fractional"} <= axes


def test_golden_sample_on_spark_is_the_single_machine_result(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The sample's inputs in one pair of files (each case's queries renamed apart), scored
    under every configuration of the sample: Spark's result objects are the engine's, and
    each case's queries under its own configuration have the case's expected values."""
    sample = golden_sample()
    qrels, run = [], []
    for n, case in enumerate(sample):
        qrels += [f"c{n}.{q} 0 {d} {label}\n" for q, d, label in case["input"]["qrels"]]
        run += [f"c{n}.{q} Q0 {d} 1 {score} t\n" for q, d, score in case["input"]["run"]]
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(run))
    paths = str(tmp_path / "qrels"), str(tmp_path / "run")
    configs = list(
        {c.canonical(): c for c in (Config.from_mapping(s["config"]) for s in sample)}.values()
    )
    single = {c.canonical(): outcome(lambda c=c: score_files([c], *paths)) for c in configs}
    scored = [c for c in configs if single[c.canonical()][0] == "values"]
    refused = [c for c in configs if single[c.canonical()][0] == "error"]
    assert scored and refused
    results = score_paths(spark, scored, *paths)
    assert results == [single[c.canonical()][1][0] for c in scored]
    by_measure = {r["measure"]: r for r in results}
    checked = 0
    for n, case in enumerate(sample):
        result = by_measure.get(Config.from_mapping(case["config"]).canonical())
        if result is None or "per_query" not in case["expected"]:
            continue
        mine = {q: v for q, v in result["per_query"].items() if q.startswith(f"c{n}.")}
        assert mine == {f"c{n}.{q}": v for q, v in case["expected"]["per_query"].items()}, case[
            "id"
        ]
        checked += 1
    assert checked > 0
    # An error is the same choice's on Spark: a configuration for each of two rejecting
    # anchors (each Spark job costs seconds).
    for anchor in sorted({single[c.canonical()][1] or "" for c in refused})[:2]:
        config = next(c for c in refused if (single[c.canonical()][1] or "") == anchor)
        assert outcome(lambda config=config: score_paths(spark, [config], *paths)) == (
            "error",
            single[config.canonical()][1],
        )


def generated_table(seed: int, queries: int) -> tuple[list[tuple], list[tuple]]:
    """Qrels rows (qid, docid, label) and run rows (qid, docid, score as float64): URL-like
    document ids, tied and unjudged documents, a repeated document now and then, qrels
    queries the run lacks and run queries the qrels lack, queries out of order."""
    rng = random.Random(seed)
    qrels, run = [], []
    order = [f"q{n}" for n in range(queries)]
    rng.shuffle(order)
    for qid in order:
        docs = [f"http://example.org/{qid}/doc-{d}.html" for d in range(rng.randint(1, 12))]
        qrels += [(qid, d, rng.choice([0, 0, 1, 2, 3])) for d in docs if rng.random() < 0.7]
        if rng.random() < 0.1:
            continue
        ranked = docs + [f"http://example.org/other/{rng.randint(0, 50)}" for _ in range(3)]
        rng.shuffle(ranked)
        run += [(qid, d, rng.choice([0.1, 0.25, 1 / 3, 2.0, -1.5, 7.0])) for d in ranked]
    run += [(f"extra{n}", "http://example.org/x", 1.0) for n in range(20)]
    return qrels, run


GENERATED_CONFIGS = [
    Config.default().replace(duplicates="first"),
    Config.default().replace(duplicates="first", cutoff=10, aggregate="run"),
    Config.default().replace(duplicates="first", ties="input", gain="exponential"),
    Config.default().replace(duplicates="first", empty="skip", ideal="retrieved"),
]


def test_a_generated_table_on_spark_is_the_single_machine_result(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Thousands of queries: TREC text with the run gzipped, the same table as Parquet
    (float64 scores stand for the exact decimals of the doubles, as the TREC text writes
    them), and as DataFrames with other column names."""
    import pandas as pd

    qrels, run = generated_table(seed=7, queries=2000)
    assert {q for q, *_ in qrels} - {q for q, *_ in run}, "no qrels query the run lacks"
    qrels_text = tmp_path / "qrels.txt"
    qrels_text.write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in qrels))
    run_text = tmp_path / "run.gz"
    lines = "".join(f"{q} Q0 {d} 1 {Decimal(s)} t\n" for q, d, s in run)
    run_text.write_bytes(gzip.compress(lines.encode()))
    expected = score_files(GENERATED_CONFIGS, qrels_text, run_text)
    assert score_paths(spark, GENERATED_CONFIGS, str(qrels_text), str(run_text)) == expected

    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    qrels_frame.to_parquet(tmp_path / "qrels.parquet")
    run_frame.to_parquet(tmp_path / "run.parquet")
    parquet = [str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet")]
    assert score_paths(spark, GENERATED_CONFIGS, *parquet) == expected

    run_frame.set_axis(["topic", "document", "s"], axis=1).to_parquet(tmp_path / "named.parquet")
    named = TableColumns(run=("topic", "document", "s"))
    assert (
        score_paths(
            spark, GENERATED_CONFIGS, parquet[0], str(tmp_path / "named.parquet"), columns=named
        )
        == expected
    )

    renamed = spark.createDataFrame(run_frame.set_axis(["topic", "document", "s"], axis=1))
    assert (
        score_frames(
            GENERATED_CONFIGS,
            spark.createDataFrame(qrels_frame),
            renamed,
            run_columns=("topic", "document", "s"),
            partitions=3,
        )
        == expected
    )


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
    assert "q3" in printed[0].err


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
