"""The pytest plugin, run for real in a separate project that wraps its own nDCG function.

The wrapped function (below) is a plausible library nDCG: it scores the queries of the run, reads
labels with int() and takes the run as a dict. It declares nothing, so its native configuration
is the spec default: the 11 stored default cases of the fixtures, and the inputs of the 6 other
stored cases under the default (computed). That must fail exactly three cases:
- fx/empty-run: q1 has no run rows, so the function returns no value for it (aggregate=qrels
  scores it);
- the input of fx/aggregate-run under the default: q2 is judged but not retrieved, and
  aggregate=qrels scores it, for the same reason;
- fx/many-fractional: int() truncates grades such as 2.7 (fractional=keep keeps them).
fx/duplicates-error is no item: its run repeats a document, which a function of a run dict
cannot be shown (trec_adapter declares duplicates not observable; the helper, not the
function, would reject it). Every other case passes, and pub/absent is skipped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import TESTS_DIR

FIXTURES = TESTS_DIR / "fixtures"
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
FIXTURE_SUITE = [
    f"--ndcgspec-suite={FIXTURES / 'harness_cases'}",
    f"--ndcgspec-data={FIXTURES / 'harness_data'}",
]


def pytest_in(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A pytest session of its own, run in `folder` (a project that wraps its own nDCG)."""
    return subprocess.run(
        [*PYTEST, *args], cwd=folder, capture_output=True, text=True, timeout=timeout
    )


THIRD_PARTY = """
import math

from ndcgspec.harness.adapters.base import trec_adapter


def ndcg(qrels, run, k):
    out = {}
    for qid, scores in run.items():
        if qid not in qrels:
            continue
        labels = {doc: int(label) for doc, label in qrels[qid].items()}
        ranking = sorted(scores, key=lambda doc: (scores[doc], doc), reverse=True)[:k]
        dcg = sum(max(labels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranking))
        ideal = sorted((g for g in labels.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        out[qid] = dcg / idcg if idcg > 0 else 0.0
    return out


adapter = trec_adapter(ndcg, name="mylib", version="0.1")
"""


def test_plugin_turns_supported_cases_into_items(tmp_path: Path) -> None:
    (tmp_path / "mylib_ndcg.py").write_text(THIRD_PARTY)
    done = pytest_in(tmp_path, "-rfs", "--ndcgspec-adapter=mylib_ndcg:adapter", *FIXTURE_SUITE)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "3 failed, 12 passed, 1 skipped" in out
    assert "fx/duplicates-error" not in out
    for case_id in ("fx/empty-run", "fx/aggregate-run@", "fx/many-fractional"):
        assert f"FAILED ndcgspec::{case_id}" in out
    assert "q1: expected 0  actual null  (query missing from the result)" in out
    assert "q2: expected 0  actual null  (query missing from the result)" in out
    assert "config: gain=linear, discount=log" in out
    assert "reference trace:" in out and "rank  docid  label  gain  discount" in out
    assert "SKIPPED" in out and "absent" in out


def test_plugin_is_silent_without_its_options(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_ok():\n    pass\n")
    done = pytest_in(tmp_path, "-q")
    assert done.returncode == 0 and "1 passed" in done.stdout


CONSTANT = """
from ndcgspec.harness.adapters.base import trec_adapter

adapter = trec_adapter(lambda qrels, run, k: {q: 0.5 for q in run}, name="half", version="0")
"""


def test_a_failed_published_case_is_traced_from_the_sessions_data_root(tmp_path: Path) -> None:
    # The published fixture's files lie only below --ndcgspec-data: the trace that explains
    # its failure reads them there, not below the default data root.
    (tmp_path / "half_ndcg.py").write_text(CONSTANT)
    done = pytest_in(
        tmp_path,
        "--ndcgspec-adapter=half_ndcg:adapter",
        "--ndcgspec-cases=published.json",
        *FIXTURE_SUITE,
    )
    out = done.stdout
    assert "FAILED ndcgspec::pub/four-places" in out, out + done.stderr
    assert "query q1: nDCG = " in out and "rejects this input" not in out


KEEPS_NEGATIVE_IN_IDEAL = """
import math

from ndcgspec import trec_adapter


def ndcg(qrels, run, k):
    out = {}
    for qid, labels in qrels.items():
        ranking = sorted(run.get(qid, {}).items(), key=lambda item: (item[1], item[0]))[::-1]
        gains = [labels.get(doc, 0) for doc, _ in ranking][:k]
        ideal = sorted(labels.values(), reverse=True)[:k]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        out[qid] = dcg / idcg if idcg > 0 else 0.0
    return out


adapter = trec_adapter(ndcg, name="keeps-negative", version="0")
"""


def test_the_terminal_summary_diagnoses_the_failures_before_listing_them(tmp_path: Path) -> None:
    # Negative labels kept in the DCG and the ideal list (ties broken by docid-desc, as the
    # default asks): ``negative=keep-in-ideal`` where ``zero`` is asked.
    (tmp_path / "keeps_negative.py").write_text(KEEPS_NEGATIVE_IN_IDEAL)
    done = pytest_in(
        tmp_path,
        "--ndcgspec-adapter=keeps_negative:adapter",
        "--ndcgspec-cases=negative/zero.json",
        timeout=300,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "negative: computes keep-in-ideal (asked zero)" in out
    assert out.index("ndcgspec diagnosis") < out.index("= FAILURES =")


def test_a_timeout_that_is_no_limit_is_a_usage_error(tmp_path: Path) -> None:
    # NaN reached the workers' clocks before, where no case could ever time out.
    (tmp_path / "mylib_ndcg.py").write_text(THIRD_PARTY)
    for timeout in ("nan", "inf", "0"):
        done = pytest_in(
            tmp_path,
            "--ndcgspec-adapter=mylib_ndcg:adapter",
            f"--ndcgspec-timeout={timeout}",
            *FIXTURE_SUITE,
        )
        assert done.returncode == 4, done.stdout + done.stderr
        assert (
            "ndcgspec: --ndcgspec-jobs, --ndcgspec-timeout and the output cap must be positive "
            "and finite" in done.stderr
        )
