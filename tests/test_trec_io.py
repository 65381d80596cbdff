"""The TREC readers: exact decimals, gzip, and a one-line InputError naming file and line."""

from __future__ import annotations

import gzip
from decimal import Decimal
from pathlib import Path

import pytest

from ndcgspec.reference import InputError
from ndcgspec.reference.trec_io import read_qrels, read_run

QRELS = "q1 0 a 2.50\n\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 b 1 0.1 t\nq1 Q0 a 2 0.10 t\nq2 Q0 c 1 -3e2 t\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_labels_are_exact_decimals_by_query(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "qrels", QRELS))
    assert {q: {d: j.label for d, j in docs.items()} for q, docs in qrels.items()} == {
        "q1": {"a": Decimal("2.5"), "b": Decimal(0)},
        "q2": {"c": Decimal(1)},
    }
    # The blank line 2 still counts: the judgment of b stands on line 3.
    assert qrels["q1"]["b"].where == f"{tmp_path / 'qrels'}:3"


def test_run_scores_are_exact_and_run_order_is_kept(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "run", RUN))
    assert [(p.docid, p.score) for p in run["q1"]] == [("b", Decimal("0.1")), ("a", Decimal("0.1"))]
    assert run["q2"][0].score == Decimal(-300)
    # Exact: 0.1 is one tenth, not the nearest binary double.
    assert run["q1"][0].score * 10 == 1


def test_run_keeps_duplicates_for_the_duplicates_axis(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "run", "q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n"))
    assert [p.docid for p in run["q1"]] == ["a", "a"]


def test_text_after_the_run_tag_is_read_only_when_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, "run", "q1 Q0 a 1 0.5 t note\n")
    with pytest.raises(InputError, match=r"run:1: malformed run line: expected 6 fields .*got 7"):
        read_run(path)
    assert [(p.docid, p.score) for p in read_run(path, extra_fields=True)["q1"]] == [
        ("a", Decimal("0.5"))
    ]
    short = write(tmp_path, "short", "q1 Q0 a 1 0.5\n")
    with pytest.raises(InputError, match=r"short:1: malformed run line: .*got 5"):
        read_run(short, extra_fields=True)


def test_gzip_files_read_like_plain_ones(tmp_path: Path) -> None:
    (tmp_path / "qrels.gz").write_bytes(gzip.compress(QRELS.encode()))
    # The magic bytes decide, not the name.
    (tmp_path / "run.txt").write_bytes(gzip.compress(RUN.encode()))
    plain_qrels = read_qrels(write(tmp_path, "qrels", QRELS))
    assert {q: {d: j.label for d, j in docs.items()} for q, docs in plain_qrels.items()} == {
        q: {d: j.label for d, j in docs.items()}
        for q, docs in read_qrels(tmp_path / "qrels.gz").items()
    }
    assert [(p.docid, p.score) for p in read_run(tmp_path / "run.txt")["q1"]] == [
        ("b", Decimal("0.1")),
        ("a", Decimal("0.1")),
    ]


BAD_QRELS = {
    "three fields": (b"q1 0 a 1\nq1 0 b\n", 2, "expected 4 fields"),
    "five fields": (b"q1 0 a 1 x\n", 1, "expected 4 fields"),
    "non-numeric label": (b"q1 0 a 1\nq1 0 b high\n", 2, "'high' is not a finite decimal"),
    "nan label": (b"q1 0 a NaN\n", 1, "'NaN' is not a finite decimal"),
    "infinite label": (b"q1 0 a -inf\n", 1, "'-inf' is not a finite decimal"),
    "judged twice": (b"q1 0 a 1\nq2 0 a 1\nq1 0 a 2\n", 3, "judged twice for query 'q1'"),
    "not utf-8": (b"q1 0 a 1\nq1 0 \xff 1\n", 2, "not valid UTF-8"),
}
BAD_RUNS = {
    "five fields": (b"q1 Q0 a 1 0.5\n", 1, "expected 6 fields"),
    "non-numeric score": (b"q1 Q0 a 1 0.5 t\nq1 Q0 b 2 x1 t\n", 2, "'x1' is not a finite decimal"),
    "infinite score": (b"q1 Q0 a 1 Infinity t\n", 1, "'Infinity' is not a finite decimal"),
    "nan score": (b"q1 Q0 a 1 nan t\n", 1, "'nan' is not a finite decimal"),
}


def _error_of(reader, path: Path) -> str:
    with pytest.raises(InputError) as caught:
        reader(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("reader", "data", "line", "fragment"),
    [pytest.param(read_qrels, *case, id=f"qrels {name}") for name, case in BAD_QRELS.items()]
    + [pytest.param(read_run, *case, id=f"run {name}") for name, case in BAD_RUNS.items()],
)
def test_bad_lines_name_file_and_line(
    tmp_path: Path, reader, data: bytes, line: int, fragment: str
) -> None:
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    message = _error_of(reader, path)
    assert message.startswith(f"{path}:{line}: ")
    assert fragment in message


@pytest.mark.parametrize("text", ["", "\n  \n\t\n"], ids=["no bytes", "blank lines"])
@pytest.mark.parametrize("reader", [read_qrels, read_run])
def test_empty_file_is_an_error(tmp_path: Path, reader, text: str) -> None:
    path = write(tmp_path, "empty.txt", text)
    assert _error_of(reader, path) == f"{path}: file is empty"


def test_empty_gzip_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gz"
    path.write_bytes(gzip.compress(b""))
    assert _error_of(read_qrels, path) == f"{path}: file is empty"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.txt"
    assert _error_of(read_run, path).startswith(f"{path}: cannot read")


def _damaged_gzip(kind: str) -> bytes:
    whole = gzip.compress(QRELS.encode() * 50)
    if kind == "truncated":
        return whole[: len(whole) // 2]
    if kind == "corrupt deflate data":
        return whole[:20] + b"\x00" * 40 + whole[60:]
    return b"\x1f\x8b" + b"not a gzip stream at all"


@pytest.mark.parametrize("kind", ["truncated", "corrupt deflate data", "bad header"])
def test_damaged_gzip_is_a_one_line_error_with_a_line(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "qrels.gz"
    path.write_bytes(_damaged_gzip(kind))
    message = _error_of(read_qrels, path)
    assert message.startswith(f"{path}:")
    line = message.removeprefix(f"{path}:").split(":", 1)[0]
    assert line.isdigit()
    assert "cannot read gzip data" in message
