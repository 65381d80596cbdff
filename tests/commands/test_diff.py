"""``ndcgspec diff`` on six queries worked by hand.

Each query judges x (grade 1). The baseline ranks x first on every query (nDCG 1). The worse
candidate ranks it second everywhere (nDCG 1/log2 3): six differences −c, c = 1 − 1/log2 3, so
the one-sided sign-flip test (less) has T ≤ −6c only for +…+: p = 1/64 ≤ 0.05, a fail. The
candidate that is worse on q1 only has differences (−c, 0, …, 0): T ≤ −c for the 32 vectors
keeping s1 = +, p = 1/2, not significant; its mean drops by c/6 ≈ 0.0615, so it fails a budget
of 0.05 and passes one of 0.1.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ndcgspec.commands.cli import main

QUERIES = [f"q{i}" for i in range(1, 7)]
C = 1 - 1 / math.log2(3)


def write_run(path: Path, second_on: set[str]) -> str:
    lines = []
    for q in QUERIES:
        docs = ["n", "x"] if q in second_on else ["x", "n"]
        lines += [f"{q} Q0 {d} {r} {9 - r} run\n" for r, d in enumerate(docs)]
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, str]:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 x 1\n" for q in QUERIES), encoding="utf-8")
    return {
        "qrels": str(qrels),
        "baseline": write_run(tmp_path / "baseline", set()),
        "copy": write_run(tmp_path / "copy", set()),
        "worse": write_run(tmp_path / "worse", set(QUERIES)),
        "one": write_run(tmp_path / "one", {"q1"}),
    }


def diffed(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["diff", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_worse_candidate_fails_and_a_copy_passes(capsys, runs) -> None:
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["worse"], "--format", "json"
    )
    report = json.loads(out)
    assert (status, report["verdict"]) == (1, "fail")
    assert report["test"]["p"] == 1 / 64
    assert float(report["mean_difference"]) == pytest.approx(-C, rel=1e-14)
    assert [r["query"] for r in report["regressed"]] == QUERIES
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["copy"], "--format", "json"
    )
    assert (status, json.loads(out)["verdict"]) == (0, "pass")


def test_the_drop_budget(capsys, runs) -> None:
    base = ["--qrels", runs["qrels"], runs["baseline"], runs["one"], "--format", "json"]
    status, out, _ = diffed(capsys, *base, "--max-drop", "0.05")
    report = json.loads(out)
    assert report["test"]["p"] == 1 / 2
    assert (status, report["verdict"]) == (1, "fail")
    assert report["reasons"] == [f"the mean drops by {C / 6:.4f}, more than 0.05"]
    assert diffed(capsys, *base, "--max-drop", "0.1")[0] == 0


def score_file(capsys, runs, run: str, measure: str, path: Path) -> str:
    assert main(["score", runs["qrels"], runs[run], "-m", measure, "--format", "json"]) == 0
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return str(path)


def test_score_files_are_compared_and_mismatches_refused(capsys, runs, tmp_path) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    worse = score_file(capsys, runs, "worse", "nDCG@10", tmp_path / "worse.json")
    other = score_file(capsys, runs, "worse", "nDCG(gain=exponential)@5", tmp_path / "o.json")
    assert diffed(capsys, base, worse)[0] == 1
    assert diffed(capsys, base, base)[0] == 0
    status, out, err = diffed(capsys, base, other)
    assert (status, out) == (2, "")
    assert "refused" in err and "different configurations" in err
    # A file with one query less scores a different query set.
    line = json.loads(Path(worse).read_text(encoding="utf-8"))
    del line["per_query"]["q6"]
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps(line) + "\n", encoding="utf-8")
    status, _, err = diffed(capsys, base, str(fewer))
    assert status == 2 and "different queries" in err and "'q6'" in err


def test_a_broken_score_file_is_one_line_naming_file_and_line(capsys, runs, tmp_path) -> None:
    base = score_file(capsys, runs, "baseline", "nDCG@10", tmp_path / "base.json")
    broken = tmp_path / "broken.json"
    broken.write_text("\n{not json\n", encoding="utf-8")
    status, _, err = diffed(capsys, base, str(broken))
    assert status == 2
    assert err.startswith(f"ndcgspec: error: {broken}:2: not a result")
    assert len(err.splitlines()) == 1


def test_markdown_and_junit(capsys, runs) -> None:
    args = ["--qrels", runs["qrels"], runs["baseline"], runs["worse"]]
    status, out, _ = diffed(capsys, *args, "--format", "markdown")
    assert status == 1 and out.startswith("### ndcgspec diff: ❌ fail")
    assert "| q1 | 1.0000 |" in out
    status, out, _ = diffed(capsys, *args, "--format", "junit")
    suite = ET.fromstring(out)
    assert (suite.tag, suite.get("failures"), suite.get("tests")) == ("testsuite", "1", "1")
    assert suite.find("testcase/failure") is not None
    _, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["copy"], "--format", "junit"
    )
    assert ET.fromstring(out).get("failures") == "0"


def test_text_lists_the_most_regressed_queries(capsys, runs) -> None:
    status, out, _ = diffed(
        capsys, "--qrels", runs["qrels"], runs["baseline"], runs["one"], "--top", "3"
    )
    assert status == 0
    assert out.startswith("PASS: ")
    assert f"    q1: 1.0000 -> {1 / math.log2(3):.4f} ({-C:+.4f})" in out
