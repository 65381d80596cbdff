"""Lines appended to the files kept between runs (``suite/json_lines.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ndcgspec.suite.json_lines import LineAppender, append_line


def _lines(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_appender_writing_more_files_than_it_keeps_open_loses_no_line(tmp_path: Path) -> None:
    appender = LineAppender(open_files=2)
    paths = [tmp_path / "deep" / f"{n}.jsonl" for n in range(5)]
    # Round after round over five files, through two open descriptors: every file is
    # closed and opened again between its lines.
    for round_ in range(3):
        for n, path in enumerate(paths):
            appender.append(path, {"file": n, "round": round_})
    for n, path in enumerate(paths):
        assert _lines(path) == [{"file": n, "round": r} for r in range(3)]


def test_an_appender_and_append_line_share_a_file_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    appender = LineAppender()
    appender.append(path, [1])
    append_line(path, [2])
    appender.append(path, [3])
    assert _lines(path) == [[1], [2], [3]]


def test_a_file_that_cannot_be_written_is_passed_over(tmp_path: Path) -> None:
    # A folder where the file should be: it cannot be opened for writing.
    taken = tmp_path / "taken.jsonl"
    taken.mkdir()
    appender = LineAppender()
    appender.append(taken, {"lost": True})
    appender.append(None, {"nowhere": True})
    appender.append(tmp_path / "fine.jsonl", {"kept": True})
    assert _lines(tmp_path / "fine.jsonl") == [{"kept": True}]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd to count")
def test_the_descriptors_are_closed_when_the_appender_goes(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    appender = LineAppender()
    for n in range(4):
        appender.append(tmp_path / f"{n}.jsonl", n)
    assert len(os.listdir("/proc/self/fd")) == before + 4
    del appender
    assert len(os.listdir("/proc/self/fd")) == before
