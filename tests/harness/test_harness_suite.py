"""The exact reference, as the built-in adapter, passes every case of the golden suite but the
preset files."""

from __future__ import annotations

from collections import Counter

import pytest

from ndcgspec.harness.execution import Execution, execute
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.runner import fixed_cases, load_cases
from ndcgspec.harness.worker import adapter_command


@pytest.mark.slow
def test_reference_adapter_passes_the_whole_suite() -> None:
    # The preset files are the same inputs again under other configurations, written by the
    # same reference; regenerating them byte for byte proves their values
    # (tests/test_cases_suite.py), so the adapter run leaves them out.
    cases = [c for c in load_cases() if not c.group.startswith("presets/")]
    if not cases:
        pytest.skip("the golden suite has no case files yet")
    report = execute(
        Execution(
            fixed_cases(cases),
            adapter_command("reference", None),
            PoolOptions(jobs=2),
        )
    )
    outcomes = Counter(r.outcome for r in report.results)
    problems = [r for r in report.results if r.outcome not in ("pass", "skip")]
    assert not problems, problems[:3]
    assert outcomes["pass"] + outcomes["skip"] == len(cases)
