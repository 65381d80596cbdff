"""Every command that writes names a path where it cannot write in one line, before any work:
a folder where a file is wanted, a file where a folder is wanted, or a regular file above the
path (``harness/outputs.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO_ROOT, TESTS_DIR
from hostile.cli import ndcgspec_in_process as ndcgspec

FIXTURES = TESTS_DIR / "fixtures"
SUITE = ["--suite", str(FIXTURES / "harness_cases"), "--data", str(FIXTURES / "harness_data")]
EXAMPLES = REPO_ROOT / "examples"
COMPARE = ["compare", "--qrels", str(EXAMPLES / "qrels.txt"), "-m", "nDCG@10", "-m", "trec_eval"]


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A regular file, which no path below can be made under."""
    path = tmp_path / "somefile"
    path.write_text("not a folder\n")
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "--report", str(path))
    assert done.returncode == 0, done.stderr
    return path


def assert_refused(args: list[str], path: Path, problem: str) -> None:
    done = ndcgspec(*args)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == f"ndcgspec: error: {path}: {problem}\n"


def under_a_file(blocker: Path) -> str:
    return f"cannot be written: {blocker} is a file, not a folder"


def test_report_output(report: Path, blocker: Path) -> None:
    target = blocker / "x.md"
    assert_refused(["report", str(report), "-o", str(target)], target, under_a_file(blocker))


def test_run_report(blocker: Path, tmp_path: Path) -> None:
    target = blocker / "r.jsonl"
    assert_refused(
        ["run", "reference", *SUITE, "--report", str(target)], target, under_a_file(blocker)
    )
    folder = tmp_path / "reports"
    folder.mkdir()
    problem = "is a folder, not a file; --report names the file to write"
    assert_refused(["run", "reference", *SUITE, "--report", str(folder)], folder, problem)


def test_compare_out(blocker: Path, tmp_path: Path) -> None:
    runs = [str(EXAMPLES / "run.txt"), str(EXAMPLES / "run.txt"), "--name", "a", "--name", "b"]
    target = blocker / "pages"
    assert_refused([*COMPARE, *runs, "--out", str(target)], target, under_a_file(blocker))
    problem = "is a file, not a folder; --out names the folder to write"
    assert_refused([*COMPARE, *runs, "--out", str(blocker)], blocker, problem)


def test_cases_generate(blocker: Path) -> None:
    target = blocker / "cases"
    assert_refused(["cases", "generate", "--cases-dir", str(target)], target, under_a_file(blocker))


def test_matrix_out(blocker: Path) -> None:
    pytest.importorskip("markdown_it", reason="ndcgspec matrix needs the peers extra")
    target = blocker / "docs"
    assert_refused(["matrix", "--out", str(target), "reference"], target, under_a_file(blocker))
