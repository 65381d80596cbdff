"""The records of a case and a case file read back every golden file they are written as: a
file of the suite, read into a CaseFile and written again, gives its own bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndcgspec.suite.canonical_json import dumps
from ndcgspec.suite.case_record import CaseFile
from ndcgspec.suite.load import case_files, cases_root


def _sample() -> list[Path]:
    """Every file but the many generated and preset ones, of which one each: the shapes of
    their cases are those of the first."""
    files = case_files()
    kept = [p for p in files if p.parent.name not in ("generated", "presets")]
    for folder in ("generated", "presets"):
        kept.append(next(p for p in files if p.parent.name == folder))
    return kept


@pytest.mark.parametrize("path", _sample(), ids=lambda p: p.relative_to(cases_root()).as_posix())
def test_a_case_file_read_into_records_is_written_back_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert dumps(CaseFile.from_json(json.loads(text)).to_json()) == text


def test_the_sample_holds_every_kind_of_case() -> None:
    """Published files (input files, precision), printed numbers, an open axis, an enumeration
    and a preset file's input_of are among the files read back."""
    contents = [json.loads(p.read_text(encoding="utf-8")) for p in _sample()]
    keys = {key for content in contents for case in content["cases"] for key in case}
    assert {"input_files", "precision", "printed", "open", "expected_any", "input_of"} <= keys
    assert any("enumeration" in content for content in contents)
