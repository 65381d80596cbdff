"""The golden cases as the harness, the survey and the commands read them: each case file's
cases read once into `Case` records (``suite/case_record.py``), with the file they came from
and whether the shared data holds a published case's input (``suite/load.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
        except RecursionError:
            raise ValueError(f"{path}: nested too deep to read") from None
        group = group_of(path, root)
        for index, entry in enumerate(content.get("cases", [])):
            case = Case.from_json(entry)
            files = case.input_files
            paths = [] if files is None else [files.qrels.path, files.run.path]
            yield LoadedCase(
                path,
                group,
                content.get("suite_version"),
                case,
                index,
                unavailable_reason(paths, data),
            )
