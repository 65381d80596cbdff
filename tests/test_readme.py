"""The README's adapter example and CI step, run as written against the bundled suite.

The example declares trec_eval's convention. Copied into a project of its own, it must be
judged on at least 1,500 cases and pass them all, through ``ndcgspec run`` and through the
pytest plugin; with one deliberate bug (ties ordered by document id ascending instead of
descending) it must fail, and only on inputs whose score depends on the order of tied documents.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndcgspec.engine.memory import Inputs
from ndcgspec.harness.runner import load_cases
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.suite.load import LoadedCase, case_inputs

README = Path(__file__).resolve().parent.parent / "README.md"
MINIMUM_JUDGED = 1500
CORRECT_TIES = "sorted(scores, key=lambda doc: (scores[doc], doc), reverse=True)"
DOCID_ASCENDING = "sorted(scores, key=lambda doc: (-scores[doc], doc))"

# Each test runs the README's commands over the whole bundled suite (thousands of cases).
pytestmark = pytest.mark.slow


def fenced(language: str, after: str) -> str:
    """The first ``language`` code block of the README below the heading `after`."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(after) :]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def ci_commands() -> Iterator[list[str]]:
    """The README's CI step as argument lists: continuation lines joined, comments dropped, and
    the install line left out (this checkout is installed)."""
    script = fenced("sh", "### In a project's CI").replace("\\\n", " ")
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        if words and "install" not in words:
            yield words


def project(tmp_path: Path, source: str) -> Path:
    """A folder holding ``mypkg/ndcg_adapter.py`` with `source`, as a user's project would."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ndcg_adapter.py").write_text(source)
    return tmp_path


def run_in(folder: Path, words: list[str]) -> subprocess.CompletedProcess[str]:
    command = {
        "python": [sys.executable],
        "ndcgspec": [sys.executable, "-m", "ndcgspec.commands.cli"],
    }
    return subprocess.run(
        [*command[words[0]], *words[1:]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
    )


def report_results(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in lines if r["type"] == "result"]


def test_the_readme_example_is_the_trec_eval_convention_with_correct_ties() -> None:
    # The mutation below must change the example; the example must compute docid-desc ties.
    assert fenced("python", "## Checking an implementation").count(CORRECT_TIES) == 1


def test_the_readme_ci_step_passes_on_the_bundled_suite(tmp_path: Path) -> None:
    folder = project(tmp_path, fenced("python", "## Checking an implementation"))
    commands = list(ci_commands())
    assert [c[:3] for c in commands] == [
        ["python", "-m", "pytest"],
        ["ndcgspec", "run", "mypkg.ndcg_adapter:adapter"],
        ["ndcgspec", "report", "ndcg.jsonl"],
        ["ndcgspec", "report", "ndcg.jsonl"],
    ]
    done = [run_in(folder, words) for words in commands]
    for words, result in zip(commands, done, strict=True):
        assert result.returncode == 0, (words, result.stdout[-3000:], result.stderr[-2000:])
    passed = int(re.search(r"(\d+) passed", done[0].stdout).group(1))
    assert passed >= MINIMUM_JUDGED and " failed" not in done[0].stdout
    judged = report_results(folder / "ndcg.jsonl")
    ran = [r for r in judged if r["outcome"] != "unsupported"]
    assert len(ran) >= MINIMUM_JUDGED
    assert {r["outcome"] for r in ran} == {"pass"}
    assert {r["expected_source"] for r in ran} == {"stored", "computed"}
    junit = (folder / "ndcg-junit.xml").read_text()
    assert 'failures="0"' in junit and 'errors="0"' in junit
    badge = json.loads((folder / "ndcg-badge.json").read_text())
    assert badge["message"] == f"100.0% ({len(ran)}/{len(ran)})"


def case_of(case_id: str, cases: dict[str, LoadedCase]) -> LoadedCase:
    """The stored case behind a result id (a computed case's id is ``<input's id>@<fp>``)."""
    return cases[case_id.split("@")[0]]


def tie_order_matters(loaded: LoadedCase, config: dict) -> bool:
    """Whether the input scores differently with docid-asc ties, the bug: the reference's
    answer, from the engine's in-memory scoring (``tests/test_memory_engine.py`` holds it
    equal to the reference on every case)."""
    inputs = Inputs(*case_inputs(loaded.case))
    right = Config.from_mapping(config)
    try:
        values = [inputs.result(c) for c in (right, right.replace(ties="docid-asc"))]
    except NdcgSpecError:
        return False
    return values[0]["per_query"] != values[1]["per_query"]


def test_one_bug_fails_only_where_tied_documents_decide(tmp_path: Path) -> None:
    example = fenced("python", "## Checking an implementation")
    folder = project(tmp_path, example.replace(CORRECT_TIES, DOCID_ASCENDING))
    report = folder / "bug.jsonl"
    done = run_in(
        folder, ["ndcgspec", "run", "mypkg.ndcg_adapter:adapter", "--report", str(report)]
    )
    assert done.returncode == 1, done.stderr
    results = report_results(report)
    failed = [r for r in results if r["outcome"] == "fail"]
    assert not [r for r in results if r["outcome"] == "error"]
    assert any(r["group"].startswith("ties/") for r in failed)
    cases = {c.case["id"]: c for c in load_cases()}
    for record in failed:
        assert tie_order_matters(case_of(record["id"], cases), record["config"]), record["id"]
    passed = [r for r in results if r["outcome"] == "pass"]
    assert len(passed) >= MINIMUM_JUDGED


def test_identify_names_the_one_axis_the_bug_is_on(tmp_path: Path) -> None:
    example = fenced("python", "## Checking an implementation")
    folder = project(tmp_path, example.replace(CORRECT_TIES, DOCID_ASCENDING))
    done = run_in(
        folder, ["ndcgspec", "identify", "mypkg.ndcg_adapter:adapter", "--format", "json"]
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["closest_preset"] == "trec_eval"
    assert list(found["preset_differences"]) == ["ties"]
    ties = next(f for f in found["axes"] if f["axis"] == "ties")
    assert ties["choices"] == ["docid-asc"]
