"""A check that checked nothing has failed: every checking command exits non-zero with one
line when it judged no case, and a suite case the spec cannot compute is an error."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import TESTS_DIR
from hostile.cli import ndcgspec_in_process as ndcgspec

FIXTURES = TESTS_DIR / "fixtures"


def one_line(done: subprocess.CompletedProcess[str], status: int, fragment: str) -> None:
    assert done.returncode == status, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert fragment in done.stderr


def test_cases_check_on_a_missing_folder(tmp_path: Path) -> None:
    done = ndcgspec("cases", "check", "--cases-dir", str(tmp_path / "absent"))
    one_line(done, 2, "not a folder of case files")


def test_cases_check_on_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("{}\n")
    one_line(ndcgspec("cases", "check", "--cases-dir", str(afile)), 2, "not a folder")


def test_cases_check_on_an_empty_folder(tmp_path: Path) -> None:
    done = ndcgspec("cases", "check", "--cases-dir", str(tmp_path), "--jobs", "1")
    one_line(done, 1, "checked nothing: no cases in 0 case files")


def test_cases_check_with_a_glob_matching_nothing() -> None:
    done = ndcgspec("cases", "check", "--glob", "no-such-group/*.json", "--jobs", "1")
    one_line(done, 1, "checked nothing")


def test_cases_generate_into_a_file_is_refused_at_once(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep me\n")
    one_line(ndcgspec("cases", "generate", "--cases-dir", str(afile)), 2, "not a folder")
    assert afile.read_text() == "keep me\n"


def _suite_with(tmp_path: Path, change: object) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    content = json.loads((FIXTURES / "harness_cases" / "fixtures.json").read_text())
    content = change(content)  # type: ignore[operator]
    (suite / "fixtures.json").write_text(json.dumps(content))
    return suite


def _cubic(content: dict) -> dict:
    content["cases"][0]["config"]["gain"] = "cubic"
    return content


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (_cubic, "cubic"),
        (lambda content: [content], "fixtures.json: /: "),
        (lambda content: {**content, "cases": "none"}, "/cases"),
    ],
    ids=["unknown-choice", "top-level-list", "cases-not-a-list"],
)
def test_run_refuses_a_suite_the_spec_cannot_compute(
    tmp_path: Path, change: object, fragment: str
) -> None:
    done = ndcgspec("run", "reference", "--suite", str(_suite_with(tmp_path, change)))
    one_line(done, 2, fragment)
    assert "100" not in done.stdout


def test_run_that_judged_nothing_fails(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(FIXTURES / "harness_cases" / "published.json", suite)
    # No data root holds the published inputs: every case is skipped.
    done = ndcgspec("run", "reference", "--suite", str(suite), "--data", str(tmp_path))
    one_line(done, 1, "judged nothing")
    # The line names the absent data and what to give, and the screen counts the skips by it.
    assert f"is absent from {tmp_path}; give --data the folder that holds the data" in done.stderr
    assert "skip, commonest reasons:\n" in done.stdout


@pytest.mark.parametrize(
    "command",
    [("cases", "check", "--jobs", "1", "--cases-dir"), ("run", "reference", "--suite")],
    ids=["cases-check", "run"],
)
def test_a_folder_named_as_a_case_file_is_named(tmp_path: Path, command: tuple) -> None:
    # Beside a valid case file, the folder's cases were missing unseen: 'ok' and status 0.
    suite = _suite_with(tmp_path, lambda content: content)
    (suite / "group.json").mkdir()
    done = ndcgspec(*command, str(suite))
    one_line(done, 2, f"ndcgspec: error: {suite / 'group.json'}: named as a case file but a folder")
    assert done.stdout == ""
