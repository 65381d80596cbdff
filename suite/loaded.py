"""The golden cases as the harness, the survey and the commands read them: each case file's
cases read once into `Case` records (``suite/case_record.py``), with the file they came from
and whether the shared data holds a published case's input (``suite/load.py``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndcgspec.suite.case_record import Case
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.load import case_files, cases_root, group_of, unavailable_reason
from ndcgspec.suite.result import STORED


@dataclass(frozen=True)
class LoadedCase:
    """One case with the file it came from (its path, group and the suite version it declares);
    `unavailable` says why its input cannot be read; `expected_source` whether its expected
    values are the file's (``stored``) or the reference's at run time (``computed``,
    ``harness/plan.py``)."""

    path: Path
    group: str
    suite_version: str | None
    case: Case
    index: int
    unavailable: str | None
    expected_source: str = STORED


def iter_cases(
    glob: str | None = None, root: Path | None = None, data: Path | None = None
) -> Iterator[LoadedCase]:
    """Every case of every case file, with published inputs resolved against the data root
    `data` (the shared folder's by default); raises ValueError on a file that is not valid JSON
    (the linter reports those)."""
    root = root or cases_root()
    data = data or data_root()
    for path in case_files(root, glob):
        suite_version, cases = _file_cases(path)
        group = group_of(path, root)
        for index, case in enumerate(cases):
            files = case.input_files
            paths = [] if files is None else [files.qrels.path, files.run.path]
            yield LoadedCase(
                path, group, suite_version, case, index, unavailable_reason(paths, data)
            )


def cases_in_order(path: Path) -> Iterator[Case]:
    """The cases of one case file in file order, each built as it is reached: a reader of
    the first few cases of every file (the probes, ``survey/probes.py``) builds a few hundred
    records of the 19,000, which took two thirds of reading the whole suite. The records read
    already (`_file_cases`) when the file is unchanged; otherwise none is kept."""
    status = path.stat()
    with _read_lock:
        kept = _read.get(path)
    if kept is not None and kept[0] == (status.st_mtime_ns, status.st_size):
        yield from kept[1][1]
        return
    yield from map(Case.from_json, _file_json(path).get("cases", []))


def _file_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise ValueError(f"{path}: nested too deep to read") from None


_FileCases = tuple[str | None, tuple[Case, ...]]
_read: dict[Path, tuple[tuple[int, int], _FileCases]] = {}
_read_lock = threading.Lock()


def _file_cases(path: Path) -> _FileCases:
    """The suite version a case file declares and its cases, parsed once per process for as
    long as the file keeps its size and modification time: the suite is 50 MB of JSON, which
    a run, the probes and a test session each read whole, and no reader changes a `Case`."""
    status = path.stat()
    stamp = (status.st_mtime_ns, status.st_size)
    with _read_lock:
        kept = _read.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    content = _file_json(path)
    parsed = (content.get("suite_version"), tuple(map(Case.from_json, content.get("cases", []))))
    with _read_lock:
        _read[path] = (stamp, parsed)
    return parsed
