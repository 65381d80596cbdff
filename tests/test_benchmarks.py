"""The benchmarks still run: `benchmarks/which.py` on a tiny workload, where its sweep and the
plain reference it is measured against must agree on every digit of the sampled
configurations (the benchmark's own check); `benchmarks/shapes.py` on tiny workloads of two
shapes, whose fast-engine digits must equal the plain reference's; `benchmarks/startup.py` on
two commands, printing their ratios to ``python -c pass``."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


# Slow: even on a tiny workload the benchmark sweeps the whole space (172k configurations).
@pytest.mark.slow
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


def test_the_shapes_benchmark_runs_and_its_digits_are_the_plain_references() -> None:
    tiny = ["--queries", "2", "--rounds", "1", "--no-peer", "--digits"]
    tiny += ["--shapes", "judged-10", "ids-url"]
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, str(BENCHMARKS / "shapes.py"), *tiny, "--dir", folder],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| judged-10 |" in done.stdout and "| ids-url |" in done.stdout, done.stdout
    compared = re.findall(r"(\d+) of (\d+) output values identical", done.stdout)
    assert len(compared) == 2 and all(a == b != "0" for a, b in compared), done.stdout


def test_the_start_up_benchmark_prints_each_ratio_against_python() -> None:
    # Two rounds of two commands: the table has their rows, each with its medians and its
    # ratios to `python -c pass`, and the row of python itself (no figure is judged here).
    done = subprocess.run(
        [sys.executable, "startup.py", "--rounds", "2", "--commands", "help", "explain"],
        cwd=BENCHMARKS,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    number = r"\s+(\d+\.\d+)"
    rows = {
        name: re.search(rf"^{re.escape(name)}{number * count}$", done.stdout, re.M)
        for name, count in (
            ("ndcgspec --help", 4),
            ("ndcgspec explain ndcg_cut.10", 4),
            ("python -c pass", 2),
        )
    }
    assert all(rows.values()), done.stdout
    assert "ndcgspec score" not in done.stdout, done.stdout
