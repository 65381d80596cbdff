"""The ``run``, ``report`` and ``smoke`` commands, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from hostile.cli import ndcgspec

FIXTURES = Path(__file__).parent / "fixtures"
SUITE = ["--suite", str(FIXTURES / "harness_cases"), "--data", str(FIXTURES / "harness_data")]


def results(path: Path) -> dict[str, str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r["outcome"] for r in lines if r["type"] == "result"}


def test_reference_run_writes_a_complete_report(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert "16 pass, 0 fail, 0 error, 0 unsupported, 1 skip; 100.00% of 16" in done.stdout
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    header, footer = lines[0], lines[-1]
    assert header["type"] == "header" and footer["type"] == "footer"
    assert {"harness_version", "spec_version", "protocol_version", "suite_version"} <= set(header)
    assert header["adapter"]["name"] == "ndcgspec-reference"
    assert footer["counts"]["pass"] == 16
    badge = ndcgspec("report", str(report), "--format", "badge")
    assert badge.returncode == 0
    assert json.loads(badge.stdout)["message"] == "100.0% (16/16)"


def test_a_failing_adapter_exits_1_and_lists_failures() -> None:
    done = ndcgspec("run", "fakes:ties_reversed", *SUITE)
    assert done.returncode == 1
    assert "fail  fx/tie-docid" in done.stdout


def test_errors_are_one_line_without_traceback() -> None:
    for args in (["run", "no_such_module:adapter"], ["run", "reference", "--exec", "x"]):
        done = ndcgspec(*args, *SUITE)
        assert done.returncode == 2
        assert done.stderr.startswith("ndcgspec: error: ")
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_preset_selects_its_configuration_at_any_cutoff(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "--preset", "trec_eval", "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert results(report) == {"fx/trec-eval-at-2": "pass"}


def test_measure_selects_its_configuration(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec(
        "run", "reference", *SUITE, "-m", "nDCG(gain=exponential)", "--report", str(report)
    )
    assert done.returncode == 0, done.stderr
    assert results(report) == {"fx/exp-graded": "pass", "fx/exp-binary": "pass"}


def test_smoke_tells_a_working_adapter_from_a_broken_one() -> None:
    good = ndcgspec("smoke", "reference")
    assert good.returncode == 0 and "all 5 trivial cases pass" in good.stdout
    bad = ndcgspec("smoke", "fakes:always_zero")
    assert bad.returncode == 1 and "broken adapter" in bad.stdout
    # A perfect ranking scores 1 and an empty run 0, whatever the conventions.
    assert "pass  smoke/empty-run" in bad.stdout
    assert "fail  smoke/perfect-ranking" in bad.stdout
