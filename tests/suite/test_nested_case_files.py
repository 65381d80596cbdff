"""A case file nested deeper than the JSON parser goes is invalid JSON, said in one line by
``cases check`` and ``run --suite``, never a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile.cli import ndcgspec

from ndcgspec.suite.loaded import iter_cases

DEPTH = 100_000


@pytest.fixture
def deep_suite(tmp_path: Path) -> Path:
    (tmp_path / "deep.json").write_text("[" * DEPTH + "]" * DEPTH, encoding="utf-8")
    return tmp_path


def test_cases_check_names_the_file(deep_suite: Path) -> None:
    done = ndcgspec("cases", "check", "--cases-dir", str(deep_suite))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert f"{deep_suite / 'deep.json'}: /: nested too deep to read [invalid-json]" in (
        done.stdout + done.stderr
    )


def test_run_names_the_file(deep_suite: Path) -> None:
    done = ndcgspec("run", "reference", "--suite", str(deep_suite))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"ndcgspec: error: {deep_suite / 'deep.json'}: /: nested too deep to read [invalid-json]\n"
    )


def test_the_loader_raises_a_value_error(deep_suite: Path) -> None:
    with pytest.raises(ValueError, match="nested too deep to read"):
        list(iter_cases(root=deep_suite))
