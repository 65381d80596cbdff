"""Qrels and runs as Parquet, Arrow IPC and CSV tables (``ndcg.input.table``): the same digits
as the same data written as TREC text and scored by the plain reference, streamed in batches,
columns named at will, a double read as its exact decimal, and bad values named by file, row
and column."""

from __future__ import annotations

import gzip
import json
import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ndcgspec.commands.cli import main
from ndcgspec.engine import scoring, stream, support, table
from ndcgspec.engine.scoring import score_files, score_files_plain
from ndcgspec.reference import Config, InputError

pa = pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
pq = pytest.importorskip("pyarrow.parquet")
pcsv = pytest.importorskip("pyarrow.csv")

CONFIGS = [
    Config.default(),
    Config.default().replace(cutoff=3),
    Config.default().replace(ties="average", duplicates="first"),
]
# The exact value of the double nearest 0.1: 3602879701896397 / 2**55.
EXACT_TENTH = "0.1000000000000000055511151231257827021181583404541015625"


def rows(queries: int = 9, seed: int = 3) -> tuple[list[tuple], list[tuple]]:
    """Qrels and run rows: URL-like ids, integer labels, tied scores, a score that a double
    cannot tell from its neighbour, a run query the qrels lack, queries interleaved."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        docs = [f"http://example.org/{q}/{d:04d}" for d in rng.sample(range(60), 12)]
        qrels += [(f"q{q}", d, rng.randint(0, 3)) for d in docs[::2]]
        run += [(f"q{q}", d, f"{rng.randint(0, 5)}.{rng.randint(0, 9)}") for d in docs]
    run[2] = (*run[2][:2], "3.00000000000000000001")
    run[3] = (*run[3][:2], "3.00000000000000000002")
    run.append(("unjudged", "x", "1"))
    rng.shuffle(run)
    return qrels, run


def write_trec(folder: Path, qrels: list[tuple], run: list[tuple]) -> tuple[Path, Path]:
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (folder / "run.txt").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run))
    return folder / "qrels.txt", folder / "run.txt"


def arrow_table(values: list[tuple], names: tuple[str, str, str], types: tuple) -> Any:
    return pa.table(
        {
            n: pa.array([v[i] for v in values], t)
            for i, (n, t) in enumerate(zip(names, types, strict=True))
        }
    )


def write_table(data: Any, path: Path, kind: str) -> Path:
    if kind == "parquet":
        pq.write_table(data, path, row_group_size=7)
    elif kind == "arrow":
        with pa.ipc.new_file(path, data.schema) as writer:
            writer.write_table(data, max_chunksize=5)
    elif kind == "arrow-stream":
        with pa.ipc.new_stream(path, data.schema) as writer:
            writer.write_table(data, max_chunksize=5)
    elif kind == "csv":
        pcsv.write_csv(data, path)
    else:
        pcsv.write_csv(data, path.with_suffix(".plain"))
        path.write_bytes(gzip.compress(path.with_suffix(".plain").read_bytes()))
    return path


SUFFIX = {"parquet": "p", "arrow": "arrow", "arrow-stream": "s", "csv": "csv", "csv.gz": "csv.gz"}


@pytest.mark.parametrize("kind", list(SUFFIX))
def test_tables_give_every_digit_of_the_same_data_as_trec_text(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read in batches of 4 rows and scored in blocks of 5 (the run is not grouped by query):
    the results are the plain reference's on the TREC text, in the same order."""
    monkeypatch.setattr(table, "BATCH_ROWS", 4)
    monkeypatch.setattr(stream, "BLOCK_ROWS", 5)
    qrels, run = rows()
    trec = write_trec(tmp_path, qrels, run)
    qrels_table = arrow_table(qrels, table.QRELS_COLUMNS, (pa.string(), pa.string(), pa.int64()))
    run_table = arrow_table(run, table.RUN_COLUMNS, (pa.string(), pa.string(), pa.string()))
    paths = (
        write_table(qrels_table, tmp_path / f"qrels.{SUFFIX[kind]}", kind),
        write_table(run_table, tmp_path / f"run.{SUFFIX[kind]}", kind),
    )
    expected = json.dumps(score_files_plain(CONFIGS, *trec))
    assert json.dumps(score_files(CONFIGS, *paths)) == expected
    assert json.dumps(score_files(CONFIGS, trec[0], paths[1])) == expected
    assert json.dumps(score_files(CONFIGS, paths[0], trec[1])) == expected


def test_a_double_is_read_as_its_exact_decimal(tmp_path: Path) -> None:
    """A float64 label 0.1 is the decimal of the double, not the text "0.1"; float64 scores
    rank as their doubles; integer ids are their decimal text."""
    qrels = [(7, 101, 0.1), (7, 102, 1.0), (8, 101, 2.0)]
    run = [(7, 102, 0.5), (7, 101, 0.25), (8, 101, 1e-300), (8, 102, 1e300)]
    types = (pa.int64(), pa.int64(), pa.float64())
    qrels_path = write_table(
        arrow_table(qrels, table.QRELS_COLUMNS, types), tmp_path / "q", "parquet"
    )
    run_path = write_table(arrow_table(run, table.RUN_COLUMNS, types), tmp_path / "r", "parquet")
    text_qrels = [("7", "101", EXACT_TENTH), ("7", "102", "1"), ("8", "101", "2")]
    text_run = [("7", "102", "0.5"), ("7", "101", "0.25"), ("8", "101", "1e-300")]
    text_run.append(("8", "102", "1e300"))
    trec = write_trec(tmp_path, text_qrels, text_run)
    assert score_files(CONFIGS, qrels_path, run_path) == score_files_plain(CONFIGS, *trec)
    written = write_trec(tmp_path, [("7", "101", "0.1"), *text_qrels[1:]], text_run)
    assert score_files(CONFIGS, qrels_path, run_path) != score_files_plain(CONFIGS, *written)


def test_other_column_names_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = rows()
    trec = write_trec(tmp_path, qrels, run)
    types = (pa.string(), pa.string(), pa.string())
    run_table = arrow_table(run, ("qid", "docno", "sim"), types)
    run_path = write_table(run_table, tmp_path / "run.parquet", "parquet")
    assert main(["score", str(trec[0]), str(trec[1]), "-q", "-m", "nDCG@3"]) == 0
    expected = capsys.readouterr().out
    arguments = ["score", str(trec[0]), str(run_path), "-q", "-m", "nDCG@3"]
    assert main([*arguments, "--run-columns", "qid,docno,sim"]) == 0
    assert capsys.readouterr().out == expected
    assert main(arguments) != 0
    assert "no column 'query_id'; its columns are qid, docno, sim" in capsys.readouterr().err


def test_the_python_api_reads_tables(tmp_path: Path) -> None:
    import ndcgspec

    qrels, run = rows()
    trec = write_trec(tmp_path, qrels, run)
    types = (pa.string(), pa.string(), pa.string())
    run_path = write_table(arrow_table(run, ("q", "d", "s"), types), tmp_path / "r.arrow", "arrow")
    got = ndcgspec.score(trec[0], run_path, "nDCG@3", run_columns=("q", "d", "s"))["nDCG@3"]
    expected = ndcgspec.score(trec[0], trec[1], "nDCG@3")["nDCG@3"]
    assert (got.aggregate, got.per_query) == (expected.aggregate, expected.per_query)


@pytest.mark.parametrize(
    ("column", "values", "kind", "row", "message"),
    [
        ("doc_id", ["a", None, "c"], pa.string(), 2, "column 'doc_id' has no value"),
        ("doc_id", ["a", "b c", "c"], pa.string(), 2, "id 'b c' is empty or holds white space"),
        ("doc_id", ["a", "b", ""], pa.string(), 3, "id '' is empty"),
        ("doc_id", ["a", "b\x01", "c"], pa.string(), 2, "holds white space or a control"),
        ("score", ["1", "1_0", "2"], pa.string(), 2, "column 'score': '1_0' is not a finite"),
        ("score", ["1", "2", "nan"], pa.string(), 3, "'nan' is not a finite decimal"),
        ("score", [1.0, float("inf"), 2.0], pa.float64(), 2, "inf is not a finite decimal"),
        ("score", [1.0, None, 2.0], pa.float64(), 2, "column 'score' has no value"),
    ],
)
def test_a_bad_value_names_the_file_the_row_and_the_column(
    column: str, values: list, kind: Any, row: int, message: str, tmp_path: Path
) -> None:
    qrels = write_trec(tmp_path, [("q", "a", 1)], [("q", "a", "1")])[0]
    data = {"query_id": pa.array(["q"] * 3), "doc_id": pa.array(["a", "b", "c"])}
    data["score"] = pa.array([1.0, 2.0, 3.0])
    data[column] = pa.array(values, kind)
    run = write_table(pa.table(data), tmp_path / "run.parquet", "parquet")
    with pytest.raises(InputError) as error:
        score_files([Config.default()], qrels, run)
    assert str(error.value).startswith(f"{run}:{row}: ")
    assert message in str(error.value)


def test_an_error_when_scoring_names_the_table_row(tmp_path: Path) -> None:
    """A document judged twice: the reference's message, with rows for lines."""
    qrels = [("q", "a", 1), ("q", "b", 0), ("q", "a", 2)]
    qrels_path = write_table(
        arrow_table(qrels, table.QRELS_COLUMNS, (pa.string(), pa.string(), pa.int64())),
        tmp_path / "qrels.parquet",
        "parquet",
    )
    trec = write_trec(tmp_path, qrels, [("q", "a", "1")])
    with pytest.raises(InputError) as plain:
        score_files_plain([Config.default()], *trec)
    with pytest.raises(InputError) as error:
        score_files([Config.default()], qrels_path, trec[1])
    assert str(error.value) == str(plain.value).replace(str(trec[0]), str(qrels_path))


def test_a_configuration_the_engine_does_not_declare_is_scored_by_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(support, "COMPUTED", support.COMPUTED - {"ndcg.gain.linear"})
    qrels, run = rows()
    trec = write_trec(tmp_path, qrels, run)
    run_table = arrow_table(run, table.RUN_COLUMNS, (pa.string(), pa.string(), pa.string()))
    run_path = write_table(run_table, tmp_path / "run.parquet", "parquet")
    calls = []
    monkeypatch.setattr(scoring, "score_columns", lambda *args: calls.append(args))
    assert score_files(CONFIGS, trec[0], run_path) == score_files_plain(CONFIGS, *trec)
    assert not calls


def test_a_float_id_column_is_refused(tmp_path: Path) -> None:
    qrels = write_trec(tmp_path, [("q", "a", 1)], [("q", "a", "1")])[0]
    data = pa.table({"query_id": ["q"], "doc_id": pa.array([1.5]), "score": [1.0]})
    run = write_table(data, tmp_path / "run.parquet", "parquet")
    with pytest.raises(InputError, match="column 'doc_id' holds double: ids are strings"):
        score_files([Config.default()], qrels, run)


def test_the_exact_tenth_is_the_double_of_one_tenth() -> None:
    """The constant above, derived independently: 0.1's double is 3602879701896397 / 2**55."""
    assert Fraction(3602879701896397, 2**55) == Fraction(Decimal(EXACT_TENTH))
    assert float(EXACT_TENTH) == 0.1


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("run.parquet", b"PAR1 cut short PAR1", "not a readable parquet table"),
        ("run.arrow", b"ARROW1\0\0 cut short", "not a readable arrow table"),
        ("run.csv", b"query_id,doc_id,score\nq,a,1\nq,b\n", "Expected 3 columns, got 2: q,b"),
        ("run.csv", b"query_id,doc_id,score\n", "the table has no rows"),
        ("run.csv", b"query_id,doc,score\nq,a,1\n", "no column 'doc_id'"),
    ],
)
def test_an_unreadable_table_is_a_one_line_error_naming_it(
    name: str, content: bytes, message: str, tmp_path: Path
) -> None:
    qrels = write_trec(tmp_path, [("q", "a", 1)], [("q", "a", "1")])[0]
    (tmp_path / name).write_bytes(content)
    with pytest.raises(InputError) as error:
        score_files([Config.default()], qrels, tmp_path / name)
    assert str(error.value).startswith(f"{tmp_path / name}: ")
    assert message in str(error.value)
    assert "\n" not in str(error.value)
