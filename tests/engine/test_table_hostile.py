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


@pytest.mark.parametrize(
    ("name", "column", "values", "found", "wanted"),
    [
        ("qrels", "doc_id", [["a", "b"]], "list<element: string>", "ids are strings or integers"),
        ("qrels", "relevance", [{"a": 1}], "struct<a: int64>", "numbers are wanted"),
        ("run", "query_id", [{"q": "q1"}], "struct<q: string>", "ids are strings or integers"),
        ("run", "score", [[1.0]], "list<element: double>", "numbers are wanted"),
    ],
)
def test_a_nested_column_is_refused_naming_its_type(
    name: str, column: str, values: list, found: str, wanted: str, tmp_path: Path, capsys
) -> None:
    # Parquet names a nested column's leaves ('doc_id.list.element'), not the column: the
    # row-group check's look-up of 'doc_id' raised ValueError before.
    data = {"query_id": ["q1"], "doc_id": ["a"], "relevance" if name == "qrels" else "score": [1]}
    data[column] = values
    table, trec = tmp_path / f"{name}.parquet", tmp_path / "trec"
    parquet.write_table(pa.table(data), table)
    trec.write_text("q1 0 a 1\n" if name == "run" else "q1 Q0 a 1 1 r\n")
    qrels, run = (table, trec) if name == "qrels" else (trec, table)
    assert _error(capsys, qrels, run) == f"{table}: column {column!r} holds {found}: {wanted}"


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


def test_a_row_group_holding_more_than_its_rows_can_is_refused_before_it_is_read(
    tmp_path: Path, capsys
) -> None:
    # One row of a 4 MiB id: the row group's metadata says so, and the file is refused before
    # the value is read (it named the id's row after reading it before).
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run"
    huge = "b" * (4 << 20)
    parquet.write_table(
        pa.table({"query_id": ["q1"], "doc_id": [huge], "relevance": [1]}),
        qrels,
        use_dictionary=False,
        compression="none",
    )
    run.write_text("q1 Q0 a 1 1 r\n")
    said = _error(capsys, qrels, run)
    assert said.startswith(f"{qrels}:1: row group 0 (1 rows) holds ")
    assert said.endswith(
        f"of column 'doc_id', more than rows of ids and numbers of at most "
        f"{FIELD_BYTES} bytes can (ndcg.limits)"
    )


PEAK_MEMORY = """
import resource, sys
from ndcgspec.commands.cli import main
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
status = main(["score", sys.argv[1], sys.argv[2]])
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(status, grown)
"""


def test_a_long_id_repeated_by_a_dictionary_is_refused_before_it_is_copied(
    tmp_path: Path,
) -> None:
    # 512 rows share one 1 MiB id through the column's dictionary: decoded, 512 MiB. The file is
    # a few MiB; reading it must cost about that, not the 512 MiB of the decoded column.
    import subprocess
    import sys

    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run"
    rows = 512
    ids = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), ["b" * (1 << 20)])
    table = pa.table({"query_id": ["q1"] * rows, "doc_id": ids, "relevance": [1] * rows})
    parquet.write_table(table, qrels, row_group_size=rows)
    run.write_text("q1 Q0 a 1 1 r\n")
    done = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY, str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=True,
    )
    status, grown_kib = map(int, done.stdout.split())
    assert status == 2
    assert done.stderr == (
        f"ndcgspec: error: {qrels}:1: column 'doc_id': an id is longer than {FIELD_BYTES} bytes "
        "(ndcg.limits)\n"
    )
    assert grown_kib < 64 << 10, f"reading the file grew the process by {grown_kib} KiB"
