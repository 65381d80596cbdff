"""Hostile tables (``ndcg.input.table``): a column named twice, a NaN past the first batch, an
id beyond ``ndcg.limits`` — each one line naming the file, the row and the column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndcgspec.commands.cli import main
from ndcgspec.engine.table import BATCH_ROWS
from ndcgspec.spec import load_spec

pa = pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
parquet = pytest.importorskip("pyarrow.parquet")

FIELD_BYTES = load_spec()["limits"]["field_bytes"]


def _error(capsys: pytest.CaptureFixture[str], qrels: Path, run: Path) -> str:
    assert main(["score", str(qrels), str(run)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    return captured.err.removeprefix("ndcgspec: error: ").rstrip("\n")


def test_a_column_named_twice_is_refused(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run"
    columns = [pa.array(["q1"]), pa.array(["a"]), pa.array([1]), pa.array([0])]
    parquet.write_table(
        pa.table(columns, names=["query_id", "doc_id", "relevance", "relevance"]), qrels
    )
    run.write_text("q1 Q0 a 1 1 r\n")
    assert _error(capsys, qrels, run) == (
        f"{qrels}: the table has 2 columns named 'relevance', so which one to read is not known"
    )


def test_a_nan_score_names_its_row_in_any_batch(tmp_path: Path, capsys) -> None:
    # Row BATCH_ROWS + 5 is in the second batch: the error named row 0 or BATCH_ROWS before.
    rows = BATCH_ROWS + 10
    scores = [float(i) for i in range(rows)]
    scores[BATCH_ROWS + 4] = float("nan")
    qrels, run = tmp_path / "qrels", tmp_path / "run.parquet"
    qrels.write_text("q1 0 d1 1\n")
    table = {"query_id": ["q1"] * rows, "doc_id": [f"d{i}" for i in range(rows)], "score": scores}
    parquet.write_table(pa.table(table), run)
    assert _error(capsys, qrels, run) == (
        f"{run}:{BATCH_ROWS + 5}: column 'score': nan is not a finite decimal number"
    )


def test_a_nan_label_names_its_row(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run"
    labels = [1.0, 2.0, float("nan")]
    table = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": labels}
    parquet.write_table(pa.table(table), qrels)
    run.write_text("q1 Q0 a 1 1 r\n")
    assert _error(capsys, qrels, run) == (
        f"{qrels}:3: column 'relevance': nan is not a finite decimal number"
    )


def test_an_id_beyond_the_bound_is_refused(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run"
    ids = ["a", "b" * (FIELD_BYTES + 1)]
    parquet.write_table(
        pa.table({"query_id": ["q1", "q1"], "doc_id": ids, "relevance": [1, 0]}), qrels
    )
    run.write_text("q1 Q0 a 1 1 r\n")
    assert _error(capsys, qrels, run) == (
        f"{qrels}:2: column 'doc_id': an id is longer than {FIELD_BYTES} bytes (ndcg.limits)"
    )


def test_a_huge_exponent_in_a_table_is_refused(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels.csv", tmp_path / "run"
    qrels.write_text("query_id,doc_id,relevance\nq1,a,1\nq1,b,1e999999\n")
    run.write_text("q1 Q0 a 1 1 r\n")
    assert _error(capsys, qrels, run).startswith(
        f"{qrels}:2: column 'relevance': '1e999999' lies outside"
    )
