"""The benchmarks still run: `benchmarks/which.py` on a tiny workload, where its sweep and the
plain reference it is measured against must agree on every digit of the sampled
configurations (the benchmark's own check)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_the_which_benchmark_runs_and_agrees_with_the_plain_reference() -> None:
    tiny = ["--queries", "2", "--documents", "30", "--sample", "3"]
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "which.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "digits identical to the plain reference: 3 of 3" in done.stdout, done.stdout
