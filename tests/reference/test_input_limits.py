"""Input beyond ``ndcg.limits`` is refused before any arithmetic or allocation, in one line
naming the file and line: huge exponents, long lines and fields, and a byte-order mark in the
middle of a file (two files joined with ``cat``)."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import ConfigError
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.spec import load_spec

LIMITS = load_spec()["limits"]
MAGNITUDE = LIMITS["number_magnitude"]
RUN = "q1 Q0 a 1 1 r\nq1 Q0 b 2 2 r\n"


def _score(capsys: pytest.CaptureFixture[str], *args: Path) -> tuple[int, str, str]:
    status = main(["score", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _error(capsys: pytest.CaptureFixture[str], qrels: Path, run: Path) -> str:
    """The one line `score` prints for input it refuses (exit status 2, nothing on stdout)."""
    status, out, err = _score(capsys, qrels, run)
    assert (status, out, err.count("\n")) == (2, "", 1), err
    return err.removeprefix("ndcgspec: error: ").rstrip("\n")


@pytest.mark.parametrize(
    ("qrels", "run", "kind", "line"),
    [
        # Beyond Decimal's own exponent range: a traceback (InvalidOperation) before the bound.
        ("q1 0 a 1\nq1 0 b 1e99999999999999999999\n", RUN, "qrels", 2),
        ("q1 0 a 1\n", "q1 Q0 a 1 1e99999999999999999999 r\n", "run", 1),
        # Within Decimal's range but far beyond the bound: minutes of arithmetic, then a value.
        ("q1 0 a 1\nq1 0 b 1e999999\n", RUN, "qrels", 2),
        (f"q1 0 a 1\nq1 0 b 1e-{MAGNITUDE + 1}\n", RUN, "qrels", 2),
    ],
)
def test_a_number_of_huge_magnitude_is_one_line_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, run: str, kind: str, line: int
) -> None:
    paths = {"qrels": tmp_path / "qrels", "run": tmp_path / "run"}
    paths["qrels"].write_text(qrels)
    paths["run"].write_text(run)
    error = _error(capsys, paths["qrels"], paths["run"])
    assert error.startswith(f"{paths[kind]}:{line}: ")
    assert error.endswith(
        f"lies outside 10^-{MAGNITUDE} to 10^{MAGNITUDE}, the magnitudes of nonzero labels and "
        "scores (ndcg.limits)"
    )


def test_numbers_at_the_bound_and_a_zero_of_any_exponent_are_read(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(f"q1 0 a 1e{MAGNITUDE}\nq1 0 b 0e99999999999999999999\n")
    run.write_text(f"q1 Q0 a 1 1e-{MAGNITUDE} r\nq1 Q0 b 2 -0e-99999999999999999999 r\n")
    judged = read_qrels(qrels)["q1"]
    assert judged["a"].label == Decimal(f"1e{MAGNITUDE}")
    assert judged["b"].label == 0
    assert [p.score for p in read_run(run)["q1"]] == [Decimal(f"1e-{MAGNITUDE}"), 0]


def test_a_huge_exponent_in_a_measure_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match=r"log_base.*\(ndcg.limits\)"):
        Config.from_mapping({"discount": "log", "log_base": "1e99999999999999999999"})


def test_a_line_longer_than_the_bound_is_refused_without_reading_it_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A sparse file of NUL bytes: a line with no end, which once was read whole into memory.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    with qrels.open("wb") as file:
        file.write(b"q1 0 a 1\n")
        file.truncate(64 * LIMITS["line_bytes"])
    run.write_text(RUN)
    assert os.path.getsize(qrels) == 64 * LIMITS["line_bytes"]
    assert _error(capsys, qrels, run) == (
        f"{qrels}:2: line is longer than {LIMITS['line_bytes']} bytes (ndcg.limits)"
    )


def test_a_field_longer_than_the_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A valid line holding a 1 MB document id: the fast reader asked numpy for 116 GiB.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q1 0 d{i} 1\n" for i in range(1000)) + f"q1 0 {'x' * 10**6} 1\n")
    run.write_text(RUN)
    assert _error(capsys, qrels, run) == (
        f"{qrels}:1001: a field is longer than {LIMITS['field_bytes']} bytes (ndcg.limits)"
    )


def test_a_field_at_the_bound_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    docid = "é" * (LIMITS["field_bytes"] // 2)
    qrels.write_text(f"q1 0 {docid} 1\n", encoding="utf-8")
    run.write_text(f"q1 Q0 {docid} 1 1 r\n", encoding="utf-8")
    assert _score(capsys, qrels, run)[:2] == (0, "nDCG\tall\t1." + "0" * 39 + "\n")


def test_a_byte_order_mark_inside_a_file_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two files joined with cat: the second's mark would become part of a query id.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"\xef\xbb\xbfq1 0 a 1\n" + b"\xef\xbb\xbfq1 0 b 0\n")
    run.write_text(RUN)
    assert _error(capsys, qrels, run) == (
        f"{qrels}:2: line holds a byte-order mark, as where two files were joined"
    )
