"""``ndcgspec report`` under hostile reports: every line checked against
``spec/schema/report.schema.json``, one line and a non-zero exit for a bad one, the user's
files never overwritten, and every format valid whatever an adapter's message holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from conftest import TESTS_DIR
from hostile.cli import ndcgspec_in_process as ndcgspec
from jsonschema import Draft202012Validator

from ndcgspec.spec import load_schema

HEADER: dict[str, Any] = {
    "type": "header",
    "report_format": 1,
    "harness_version": "0.1.0",
    "spec_version": "1.1.0",
    "protocol_version": 1,
    "command": "an adapter",
    "started": "2026-01-01T00:00:00+00:00",
    "adapter": {"name": "an-adapter", "version": "1.0", "float_width": 64},
}
PASSED = {"type": "result", "id": "c/1", "group": "c", "outcome": "pass"}
FOOTER = {"type": "footer", "counts": {"pass": 1}, "conformance_percent": 100.0}


def write_report(path: Path, *lines: Any) -> Path:
    path.write_text(
        "".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines)
    )
    return path


def one_line_error(done: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("ndcgspec: error: ") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert fragment in done.stderr, done.stderr


def test_the_schema_is_a_schema() -> None:
    Draft202012Validator.check_schema(load_schema("report"))


def test_a_report_of_a_real_run_is_valid(tmp_path: Path) -> None:
    fixtures = TESTS_DIR / "fixtures"
    report = tmp_path / "r.jsonl"
    ran = ndcgspec(
        "run",
        "reference",
        "--suite",
        str(fixtures / "harness_cases"),
        "--data",
        str(fixtures / "harness_data"),
        "--report",
        str(report),
    )
    assert ran.returncode == 0, ran.stderr
    validator = Draft202012Validator(load_schema("report"))
    for line in report.read_text().splitlines():
        assert not list(validator.iter_errors(json.loads(line))), line


@pytest.mark.parametrize(
    ("first", "found"),
    [("[1,2]\n", "a JSON list"), ("42\n", "a JSON int"), ("null\n", "null")],
)
def test_first_line_that_is_not_a_header(tmp_path: Path, first: str, found: str) -> None:
    path = write_report(tmp_path / "r.jsonl", first, PASSED)
    one_line_error(
        ndcgspec("report", str(path)),
        f"{path}:1: not an ndcgspec report: the first line is {found}",
    )


@pytest.mark.parametrize(
    ("result", "fragment"),
    [
        ({"type": "result", "id": "c/1"}, "'outcome' is a required property"),
        ({"type": "result", "outcome": "pass"}, "'id' is a required property"),
        ({**PASSED, "outcome": "PASSED"}, "'PASSED' is not one of"),
        ({**PASSED, "id": 7}, "/id: 7 is not of type 'string'"),
        ({**HEADER}, "a 'header' object where a result or the footer belongs"),
    ],
)
@pytest.mark.parametrize("form", ["text", "junit"])
def test_bad_result_line_is_named(tmp_path: Path, result: dict, fragment: str, form: str) -> None:
    path = write_report(tmp_path / "r.jsonl", HEADER, result)
    one_line_error(ndcgspec("report", str(path), "--format", form), f"{path}:2: ")
    one_line_error(ndcgspec("report", str(path), "--format", form), fragment)


def test_output_into_a_folder_is_refused(tmp_path: Path) -> None:
    path = write_report(tmp_path / "r.jsonl", HEADER, PASSED)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "keep").write_text("mine")
    one_line_error(ndcgspec("report", str(path), "-o", str(folder)), "is a folder")
    assert [p.name for p in folder.iterdir()] == ["keep"]


def test_output_over_the_report_itself_is_refused(tmp_path: Path) -> None:
    path = write_report(tmp_path / "r.jsonl", HEADER, PASSED)
    before = path.read_text()
    one_line_error(ndcgspec("report", str(path), "-o", str(path), "--format", "html"), "refusing")
    assert path.read_text() == before


CONTROL = "bell\x07 escape\x1b[31m nul\x00 form\x0c surrogate\ud800 end"


def test_control_characters_keep_every_format_valid(tmp_path: Path) -> None:
    error = {**PASSED, "outcome": "error", "message": CONTROL, "detail": CONTROL}
    path = tmp_path / "r.jsonl"
    # json.dumps writes the surrogate and the controls as \u escapes, as an adapter's JSON may.
    write_report(path, HEADER, error)
    junit = ndcgspec("report", str(path), "--format", "junit")
    assert junit.returncode == 1, junit.stderr
    node = ElementTree.fromstring(junit.stdout).find("testcase/error")
    assert node is not None
    assert node.get("message") == r"bell\x07 escape\x1b[31m nul\x00 form\x0c surrogate\ud800 end"
    for form in ("html", "text", "markdown"):
        done = ndcgspec("report", str(path), "--format", form)
        assert done.returncode == 1, done.stderr
        assert not any(c in done.stdout for c in "\x07\x1b\x00\x0c"), form
        assert r"escape\x1b[31m" in done.stdout


def test_declared_decimal_places_appear_in_summary_and_badge(tmp_path: Path) -> None:
    header = {**HEADER, "adapter": {**HEADER["adapter"], "decimal_places": 4}}
    path = write_report(tmp_path / "r.jsonl", header, PASSED, FOOTER)
    text = ndcgspec("report", str(path))
    assert "an-adapter 1.0 (float64, 4 decimal places)" in text.stdout
    badge = json.loads(ndcgspec("report", str(path), "--format", "badge").stdout)
    assert badge["message"] == "100.0% (1/1), 4 decimal places"


def test_the_schema_lists_the_harness_outcomes() -> None:
    from ndcgspec.harness.outcome import OUTCOMES

    assert load_schema("report")["$defs"]["outcome"]["enum"] == list(OUTCOMES)


def test_a_report_that_judged_nothing_fails(tmp_path: Path) -> None:
    unsupported = {**PASSED, "outcome": "unsupported", "reason": "gain=map is not declared"}
    footer = {"type": "footer", "counts": {"unsupported": 1}, "conformance_percent": None}
    path = write_report(tmp_path / "r.jsonl", HEADER, unsupported, footer)
    for form in ("text", "badge"):
        done = ndcgspec("report", str(path), "--format", form)
        assert done.returncode == 1, done.stderr
        assert done.stderr == (
            "ndcgspec: judged nothing: all 1 cases were unsupported or skipped; 1 unsupported: "
            "gain=map is not declared; drop the --preset or -m that selects these cases\n"
        )
