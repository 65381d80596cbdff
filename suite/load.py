"""Reading the golden cases: find the case files, and turn a case's input into qrels and a
run for the reference. Published cases name files of the shared data root
(``suite/folders.py``) by relative path and checksum; when those files are absent, or no
shared folder is known (a data root of None), the case is reported as unavailable, never
failed."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ndcgspec.reference import Judgment, Posting
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.inputs import Qrels, Run, add_judgment
from ndcgspec.reference.location import Location
from ndcgspec.reference.trec_io import read_qrels, read_run
from ndcgspec.suite.folders import UNKNOWN

CASE_GLOB = "**/*.json"


def cases_root() -> Path:
    """The ``cases/`` folder of the suite."""
    return Path(str(files("ndcgspec.cases")))


def case_files(root: Path | None = None, glob: str | None = None) -> list[Path]:
    """Every case file below `root` matching `glob` (relative to `root`), in path order. A
    folder (or a pipe, a device) named as a case file is an InputError naming it: skipped, its
    cases would be missing unseen, and a pipe read would wait for a writer."""
    root = root or cases_root()
    found = sorted(p for p in root.glob(glob or CASE_GLOB) if p.suffix == ".json")
    for path in found:
        if not path.is_file():
            what = "a folder" if path.is_dir() else "not a regular file"
            raise InputError(f"named as a case file but {what}", Location(str(path)))
    return found


def group_of(path: Path, root: Path) -> str:
    """The group a case file must declare: its path below the root without ``.json``."""
    return path.relative_to(root).with_suffix("").as_posix()


def unavailable_reason(paths: Iterable[str], data: Path | None) -> str | None:
    """Why a published case's input files, at `paths` below the data root, cannot be read under
    `data`, or None when they can."""
    for path in paths:
        if data is None:
            return f"data file {path}: {UNKNOWN}"
        if not (data / path).is_file():
            return f"data file {path} is absent from {data}"
    return None


@cache
def sha256_of(path: Path) -> str:
    """The hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inline_inputs(
    qrels_rows: Sequence[Sequence[str]], run_rows: Sequence[Sequence[str]]
) -> tuple[Qrels, Run]:
    """Qrels and run of an inline input: ``[qid, docid, label]`` and ``[qid, docid, score]``
    rows, the run in run order; the qrels rows obey the rules of the TREC qrels reader
    (``ndcg.input.duplicate-judgment``)."""
    qrels: dict[str, dict[str, Judgment]] = {}
    for row, (qid, docid, label) in enumerate(qrels_rows, start=1):
        add_judgment(
            qrels, qid, docid, Judgment(parse_decimal(label), Location(f"qrels row {row}"))
        )
    run: dict[str, list[Posting]] = {}
    for qid, docid, score in run_rows:
        run.setdefault(qid, []).append(
            Posting(docid, parse_decimal(score), Location(f"run {qid} {docid}"))
        )
    return qrels, run


@cache
def _file_qrels(path: Path) -> Qrels:
    return read_qrels(path)


@cache
def _file_run(path: Path, extra_fields: bool) -> Run:
    return read_run(path, extra_fields)


@dataclass(frozen=True)
class DataFile:
    """A data file a published case names (``case.schema.json`` ``file_ref``): its path below
    the data root, its checksum, and whether a run's fields past the sixth are ignored."""

    path: str
    sha256: str
    extra_fields_ignored: bool = False

    @classmethod
    def from_json(cls, ref: Mapping[str, Any]) -> DataFile:
        return cls(ref["path"], ref["sha256"], ref.get("extra_fields") == "ignored")

    def to_json(self) -> dict[str, str]:
        """The case format's ``file_ref`` object."""
        ref = {"path": self.path, "sha256": self.sha256}
        return ref | ({"extra_fields": "ignored"} if self.extra_fields_ignored else {})


@dataclass(frozen=True)
class PublishedFiles:
    """The qrels and run files of a published case (its ``input_files``)."""

    qrels: DataFile
    run: DataFile

    @classmethod
    def from_json(cls, input_files: Mapping[str, Any]) -> PublishedFiles:
        return cls(DataFile.from_json(input_files["qrels"]), DataFile.from_json(input_files["run"]))

    def to_json(self) -> dict[str, dict[str, str]]:
        """The case format's ``input_files`` object."""
        return {"qrels": self.qrels.to_json(), "run": self.run.to_json()}


def checked_file(ref: DataFile, data: Path | None) -> Path:
    """The data file a published case names, after checking its checksum."""
    if data is None:
        raise InputError(UNKNOWN, Location(ref.path))
    path = data / ref.path
    actual = sha256_of(path)
    if actual != ref.sha256:
        raise InputError(f"sha256 is {actual}, the case expects {ref.sha256}", Location(str(path)))
    return path


def file_inputs(files: PublishedFiles, data: Path | None) -> tuple[Qrels, Run]:
    """Qrels and run of a published case, read from the data root (cached per process)."""
    qrels = _file_qrels(checked_file(files.qrels, data))
    run = _file_run(checked_file(files.run, data), files.run.extra_fields_ignored)
    return qrels, run
