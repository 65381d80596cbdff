"""The ``run``, ``report`` and ``smoke`` commands, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import TESTS_DIR
from hostile.cli import ndcgspec_in_process as ndcgspec

from ndcgspec.harness import runner

FIXTURES = TESTS_DIR / "fixtures"
SUITE = ["--suite", str(FIXTURES / "harness_cases"), "--data", str(FIXTURES / "harness_data")]


def results(path: Path) -> dict[str, str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r["outcome"] for r in lines if r["type"] == "result"}


# The fixture suite stores 16 runnable cases (and one whose data is absent). The reference's
# native configuration is the spec default, under which 6 of the inputs are not stored: those of
# fx/exp-graded, fx/exp-binary, fx/empty-nan, fx/geometric, fx/aggregate-run (other choices) and
# fx/trec-eval-at-2 (the default at its cutoff 2). They run on computed expected values.
FIXTURE_COMPUTED = {
    "fx/exp-graded",
    "fx/exp-binary",
    "fx/empty-nan",
    "fx/geometric",
    "fx/aggregate-run",
    "fx/trec-eval-at-2",
}


def test_reference_run_writes_a_complete_report(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert "22 pass, 0 fail, 0 error, 0 unsupported, 1 skip; 100.00% of 22" in done.stdout
    assert "(expected values: 6 computed, 16 stored)" in done.stdout
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    header, footer = lines[0], lines[-1]
    assert header["type"] == "header" and footer["type"] == "footer"
    assert {"harness_version", "spec_version", "protocol_version", "suite_version"} <= set(header)
    assert header["adapter"]["name"] == "ndcgspec-reference"
    assert footer["counts"]["pass"] == 22
    assert footer["expected_sources"] == {"computed": 6, "stored": 16}
    computed = {r["id"].split("@")[0] for r in lines[1:-1] if r["expected_source"] == "computed"}
    assert computed == FIXTURE_COMPUTED
    badge = ndcgspec("report", str(report), "--format", "badge")
    assert badge.returncode == 0
    assert json.loads(badge.stdout)["message"] == "100.0% (22/22)"


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


def test_seconds_and_megabytes_that_are_not_positive_and_finite_are_refused_first(
    tmp_path: Path,
) -> None:
    report = tmp_path / "r.jsonl"
    for value in ("nan", "inf", "-inf", "-1", "0"):
        for flag in ("--timeout", "--max-output-mb"):
            done = ndcgspec("run", "reference", *SUITE, f"{flag}={value}", "--report", str(report))
            assert done.returncode == 2, (flag, value)
            assert done.stdout == ""
            assert done.stderr == (
                "ndcgspec: error: -j, --timeout and --max-output-mb must be positive and finite\n"
            )
            assert not report.exists() and not report.with_name("r.jsonl.partial").exists()


# The fixture suite has 15 distinct inputs that can run: 14 inline (fx/tie-docid and
# fx/open-ties share one) and one published whose data is present. Every one of them is judged
# under the configuration asked for.
FIXTURE_INPUTS = 15


def configs(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [r["config"] for r in lines if r["type"] == "result"]


def test_preset_judges_every_input_under_its_configuration(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "--preset", "trec_eval", "--report", str(report))
    assert done.returncode == 0, done.stderr
    found = results(report)
    # The one stored trec_eval case is judged as stored; the 14 other inputs are computed.
    assert found["fx/trec-eval-at-2"] == "pass"
    assert len(found) == FIXTURE_INPUTS and set(found.values()) == {"pass"}
    trec_eval = {"negative": "unjudged", "fractional": "truncate", "aggregate": "run"}
    for config in configs(report):
        assert {k: config[k] for k in trec_eval} == trec_eval
        assert config["ties"] == "docid-desc" and config["gain"] == "linear"


def test_measure_judges_every_input_under_its_configuration(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec(
        "run", "reference", *SUITE, "-m", "nDCG(gain=exponential)", "--report", str(report)
    )
    assert done.returncode == 0, done.stderr
    found = results(report)
    assert found["fx/exp-graded"] == found["fx/exp-binary"] == "pass"
    assert len(found) == FIXTURE_INPUTS and set(found.values()) == {"pass"}
    assert {c["gain"] for c in configs(report)} == {"exponential"}
    # The measure states no cutoff, so each input keeps its own (fx/trec-eval-at-2's is 2).
    assert sorted({c["cutoff"] for c in configs(report)}, key=str) == [2, 3, None]


def test_a_measure_cutoff_applies_to_every_input(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    done = ndcgspec("run", "reference", *SUITE, "-m", "nDCG@1", "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert {c["cutoff"] for c in configs(report)} == {1}
    assert len(results(report)) == FIXTURE_INPUTS


def test_nothing_judged_is_a_failure_in_one_line(tmp_path: Path) -> None:
    # The reference adapter supports every choice, so an adapter declaring only exponential
    # gain is the fake that meets no case of a linear preset: every case is unsupported.
    report = tmp_path / "r.jsonl"
    done = ndcgspec(
        "run", "fakes:exponential_only", *SUITE, "--preset", "trec_eval", "--report", str(report)
    )
    assert done.returncode == 1
    # The trec_eval preset asks for linear gain, which the fake does not declare: the one line
    # names that choice and what to do about it.
    assert done.stderr.strip().splitlines() == [
        "ndcgspec: judged nothing: all 15 cases were unsupported or skipped; 15 unsupported: "
        "gain=linear is not among the declared ['exponential']; declare gain=linear among the "
        "adapter's capabilities if it computes it, or drop the --preset or -m that asks for it"
    ]
    # The on-screen count of unsupported cases comes with its reason and count.
    assert (
        "unsupported, commonest reasons:\n"
        "  15  gain=linear is not among the declared ['exponential']\n"
    ) in done.stdout
    again = ndcgspec("report", str(report), "--format", "badge")
    assert again.returncode == 1
    assert json.loads(again.stdout)["message"] == "no case ran"
    assert json.loads(again.stdout)["color"] == "red"


def test_smoke_tells_a_working_adapter_from_a_broken_one() -> None:
    good = ndcgspec("smoke", "reference")
    assert good.returncode == 0 and "all 5 trivial cases pass" in good.stdout
    bad = ndcgspec("smoke", "fakes:always_zero")
    assert bad.returncode == 1 and "broken adapter" in bad.stdout
    # A perfect ranking scores 1 and an empty run 0, whatever the conventions.
    assert "pass  smoke/empty-run" in bad.stdout
    assert "fail  smoke/perfect-ranking" in bad.stdout


def test_a_harness_failure_mid_run_leaves_the_older_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "r.jsonl"
    assert ndcgspec("run", "reference", *SUITE, "--report", str(report)).returncode == 0
    older = report.read_bytes()
    judged = runner.judge
    calls = 0

    def fails_on_the_third(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("a defect of the harness")
        return judged(*args, **kwargs)

    monkeypatch.setattr(runner, "judge", fails_on_the_third)
    done = ndcgspec("run", "reference", *SUITE, "--report", str(report))
    assert (done.returncode, done.stderr) == (
        2,
        "ndcgspec: error: harness failure: RuntimeError: a defect of the harness\n",
    )
    assert report.read_bytes() == older
    # What the failed run recorded before it stopped is its partial report, read as one.
    cut_short = report.with_name("r.jsonl.partial")
    kinds = [json.loads(line)["type"] for line in cut_short.read_text().splitlines()]
    recorded = len(kinds) - 1
    assert kinds == ["header"] + ["result"] * recorded and recorded >= 2
    junit = ndcgspec("report", str(cut_short), "--format", "junit")
    assert junit.returncode == 0, junit.stderr
    suite = ElementTree.fromstring(junit.stdout)
    assert suite.get("name", "").endswith("(partial report)")
    said = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert said == {
        "partial": f"partial report: the run did not finish ({recorded} results recorded)"
    }


def test_cases_show_takes_a_computed_id_run_printed_without_flags() -> None:
    # nDCG(gain=exponential)@7 is the configuration of no stored case and no preset: only the
    # run that judged it knows the configuration behind the fingerprint it printed.
    done = ndcgspec("run", "fakes:ties_reversed", *SUITE, "-m", "nDCG(gain=exponential)@7")
    assert done.returncode == 1
    case_id = next(
        line.split()[1].rstrip(":")
        for line in done.stdout.splitlines()
        if line.startswith("  fail  fx/tie-docid@")
    )
    shown = ndcgspec("cases", "show", case_id, "--cases-dir", str(FIXTURES / "harness_cases"))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1] == "configuration: nDCG(gain=exponential)@7"
    # The anchors of the configuration judged, not of the stored case's own (the default).
    assert "ndcg.gain.exponential" in lines[3] and "ndcg.gain.linear" not in shown.stdout
    # The adapter's value beside the expected one: the reversed tie ranks the relevant dA
    # first, DCG = IDCG, so 1.0; the reference ranks dB first (docid-desc), 1/log2(3).
    assert any(line.startswith("adapter (the last run that failed it): fail") for line in lines)
    assert "  q1: adapter 1.0, expected 0.6309297535714574370995271143427608542996" in lines


def test_cases_show_of_an_answer_where_a_rejection_was_due_says_so_once(tmp_path: Path) -> None:
    # fx/duplicates-error lists d1 twice under duplicates=error; the fake answers 0 anyway.
    report = tmp_path / "r.jsonl"
    assert ndcgspec("run", "fakes:always_zero", *SUITE, "--report", str(report)).returncode == 1
    shown = ndcgspec(
        "cases",
        "show",
        "fx/duplicates-error",
        "--cases-dir",
        str(FIXTURES / "harness_cases"),
        "--report",
        str(report),
    )
    assert shown.returncode == 0, shown.stderr
    said = "fail: the input must be rejected (ndcg.duplicates.error)"
    assert shown.stdout.splitlines()[-1] == f"adapter ({report}): {said}"
    assert "None" not in shown.stdout
