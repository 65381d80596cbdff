"""JSONL reports: partial while running, atomic at the end, readable after a kill; renderers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import TESTS_DIR

from ndcgspec.harness.render import RENDERERS
from ndcgspec.harness.report import ReportWriter, partial_path, read_report, tally
from ndcgspec.suite.result import CaseResult

FIXTURES = TESTS_DIR / "fixtures"
HEADER = {
    "type": "header",
    "report_format": 1,
    "harness_version": "0.1.0",
    "spec_version": "1.1.0",
    "protocol_version": 1,
    "command": "a<b",
    "started": "2026-01-01T00:00:00+00:00",
    "adapter": {"name": "a<b", "version": "1", "float_width": 64},
}
FOOTER = {"type": "footer", "counts": {"pass": 1}, "conformance_percent": 100.0}
RESULTS = [
    {"type": "result", "id": "x/1", "group": "x", "config": {"gain": "linear"}, "outcome": "pass"},
    {
        "type": "result",
        "id": "x/2",
        "group": "x",
        "config": {"gain": "exponential"},
        "outcome": "fail",
        "message": "q1: expected 1, got 0.5",
        "mismatches": [{"what": "q1", "expected": "1", "actual": 0.5}],
    },
    {"type": "result", "id": "x/3", "group": "x", "config": {"gain": "map"}, "outcome": "error"},
    {"type": "result", "id": "x/4", "config": {}, "outcome": "unsupported", "reason": "r"},
    {"type": "result", "id": "x/5", "config": {}, "outcome": "skip", "reason": "absent"},
]


def test_report_is_partial_until_finished(tmp_path: Path) -> None:
    final = tmp_path / "r.jsonl"
    with ReportWriter(final) as writer:
        writer.write(HEADER)
        writer.write(RESULTS[0])
        assert not final.exists()
        partial = read_report(final)
        assert not partial.complete and len(partial.results) == 1
        writer.write(FOOTER)
        writer.finish()
    assert final.exists() and not partial_path(final).exists()
    assert read_report(final).complete


def test_a_line_cut_short_at_the_end_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.partial"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(RESULTS[0]) + '\n{"type": "res')
    report = read_report(tmp_path / "r.jsonl")
    assert len(report.results) == 1 and not report.complete


def _hanging_run(final: Path) -> subprocess.Popen:
    """A harness run of the endless-loop fake, returned once the header, the skipped published
    case and the first batch are in the partial report: an adapter is then spinning in its
    loop, deaf to its stdin."""
    command = [
        sys.executable, "-m", "ndcgspec.commands.cli", "run", "fakes:infinite_loop",
        "--timeout", "60", "--suite", str(FIXTURES / "harness_cases"),
        "--data", str(FIXTURES / "harness_data"), "--report", str(final), "-q",
    ]  # fmt: skip
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    partial = partial_path(final)
    while time.monotonic() < deadline:
        if partial.exists() and partial.read_text().count("\n") >= 4:
            break
        time.sleep(0.1)
    return process


def test_a_terminated_run_leaves_a_readable_partial_report(tmp_path: Path) -> None:
    final = tmp_path / "r.jsonl"
    process = _hanging_run(final)
    # SIGTERM, as a cancelled job gets: the harness kills its adapter processes and exits.
    process.send_signal(signal.SIGTERM)
    status = process.wait(timeout=30)
    assert status == 130
    assert not final.exists()
    report = read_report(final)
    assert not report.complete
    assert report.header["adapter"]["name"] == "fake-infinite-loop"
    assert len(report.results) >= 3


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_harness_killed_outright_leaves_no_adapter_running(tmp_path: Path) -> None:
    process = _hanging_run(tmp_path / "r.jsonl")
    try:
        adapters = _children(process.pid)
        assert adapters, "the harness runs no adapter process"
    finally:
        process.kill()
        process.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in adapters) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [pid for pid in adapters if _alive(pid)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors


def test_tally_counts_outcomes_and_axis_choices() -> None:
    tallied = tally(CaseResult.from_json(r) for r in RESULTS)
    assert [tallied.counts[o] for o in ("pass", "fail", "error", "unsupported", "skip")] == [
        1, 1, 1, 1, 1,
    ]  # fmt: skip
    assert tallied.run == 3
    assert tallied.percent == pytest.approx(100 / 3, rel=1e-12)
    assert tallied.by_choice[("gain", "exponential")]["fail"] == 1


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    path = tmp_path / "r.jsonl"
    with ReportWriter(path) as writer:
        for record in [HEADER, *RESULTS, FOOTER]:
            writer.write(record)
        writer.finish()
    return path


def test_text_and_markdown_show_counts_table_and_failures(report_file: Path) -> None:
    report = read_report(report_file)
    text = RENDERERS["text"](report)
    assert "1 pass, 1 fail, 1 error, 1 unsupported, 1 skip; 33.33% of 3 supported" in text
    assert "gain=exponential" in text and "x/2: q1: expected 1, got 0.5" in text
    markdown = RENDERERS["markdown"](report)
    assert "| gain=map | 0 | 0 | 1 | 0 | 0 |" in markdown


def test_html_escapes(report_file: Path) -> None:
    page = RENDERERS["html"](read_report(report_file))
    assert "a&lt;b" in page and "a<b" not in page


def test_junit_is_xml_with_failures_errors_and_skips(report_file: Path) -> None:
    suite = ElementTree.fromstring(RENDERERS["junit"](read_report(report_file)))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "1", "1")
    assert suite.get("skipped") == "2"
    failed = suite.find("testcase[@name='x/2']/failure")
    assert failed is not None and failed.get("message") == "q1: expected 1, got 0.5"


def test_junit_of_a_partial_report_says_so(tmp_path: Path, report_file: Path) -> None:
    # A killed run's five results, no footer: the XML was that of a run that finished.
    partial = partial_path(tmp_path / "killed.jsonl")
    partial.write_text("".join(json.dumps(r) + "\n" for r in [HEADER, *RESULTS]))
    suite = ElementTree.fromstring(RENDERERS["junit"](read_report(tmp_path / "killed.jsonl")))
    assert suite.get("name") == "ndcgspec a<b 1 (float64) (partial report)"
    said = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert said == {"partial": "partial report: the run did not finish (5 results recorded)"}
    finished = ElementTree.fromstring(RENDERERS["junit"](read_report(report_file)))
    assert finished.get("name") == "ndcgspec a<b 1 (float64)"
    assert finished.find("properties") is None


def test_badge_is_a_shields_endpoint(report_file: Path) -> None:
    badge = json.loads(RENDERERS["badge"](read_report(report_file)))
    assert badge == {
        "schemaVersion": 1,
        "label": "nDCG conformance",
        "message": "33.3% (1/3)",
        "color": "red",
    }
