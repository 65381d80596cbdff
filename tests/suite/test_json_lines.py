"""Lines appended to the files kept between runs (``suite/json_lines.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ndcgspec.suite import json_lines
from ndcgspec.suite.json_lines import append_line, settle, write_behind, write_pending


def _lines(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_lines_handed_over_in_several_batches_are_all_there_in_order(tmp_path: Path) -> None:
    paths = [tmp_path / "deep" / f"{n}.jsonl" for n in range(20)]
    # Each round a batch of its own: every file is appended to once a batch.
    for round_ in range(3):
        for n, path in enumerate(paths):
            write_behind(path, json.dumps({"file": n, "round": round_}))
        write_pending()
    settle()
    for n, path in enumerate(paths):
        assert _lines(path) == [{"file": n, "round": r} for r in range(3)]


def test_lines_written_behind_and_by_append_line_share_a_file_in_order(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    write_behind(path, "[1]")
    settle(path)
    append_line(path, [2])
    write_behind(path, "[3]")
    settle(path)
    assert _lines(path) == [[1], [2], [3]]


def test_a_file_that_cannot_be_written_is_passed_over(tmp_path: Path) -> None:
    # A folder where the file should be: it cannot be opened for writing.
    taken = tmp_path / "taken.jsonl"
    taken.mkdir()
    write_behind(taken, '{"lost": true}')
    write_behind(None, '{"nowhere": true}')
    write_behind(tmp_path / "fine.jsonl", '{"kept": true}')
    settle()
    assert _lines(tmp_path / "fine.jsonl") == [{"kept": True}]


def test_lines_are_written_here_once_the_writer_has_died(tmp_path: Path) -> None:
    write_behind(tmp_path / "before.jsonl", "1")
    settle()
    writer = json_lines._BEHIND._process
    assert writer is not None
    writer.kill()
    writer.wait()
    write_behind(tmp_path / "after.jsonl", "2")
    settle()
    assert (_lines(tmp_path / "before.jsonl"), _lines(tmp_path / "after.jsonl")) == ([1], [2])
    # A fresh writer for the tests that follow.
    json_lines._BEHIND.forget_inherited()


def test_a_forked_child_writes_its_own_lines_and_not_its_parents(tmp_path: Path) -> None:
    parent, child = tmp_path / "parent.jsonl", tmp_path / "child.jsonl"
    write_behind(parent, '"before the fork"')
    pid = os.fork()
    if pid == 0:
        # The child's lines are written by a thread of its own; it exits without atexit.
        write_behind(child, '"from the child"')
        settle()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    settle()
    assert os.waitstatus_to_exitcode(status) == 0
    assert _lines(parent) == ["before the fork"]
    assert _lines(child) == ["from the child"]
