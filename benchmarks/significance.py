"""Benchmark of the paired tests of ``compare`` against scipy.stats on the same data.

The data: the seven official DL19 passage runs of the shared data (43 queries) under three
conventions (``trec_eval@10``, ``nDCG(gain=exponential)@10``, ``nDCG(ideal=retrieved)@10``):
21 pairs × 3 conventions = 63 pairs of per-query vectors. Timed, wall and CPU: ndcgspec's
exact sign-flip test (10,000 seeded draws, on the exact decimals), its t-test (mpmath's
incomplete beta at 30 digits) and its percentile bootstrap (2,000 resamples), against scipy's
``permutation_test`` (the same draws), ``ttest_rel`` and ``bootstrap`` on the float views. Each
p-value and interval is compared with scipy's, and the largest relative difference printed.
Needs scipy (ndcgspec's extra peers) and the shared data.

    python benchmarks/significance.py [--draws 10000] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction
from itertools import combinations

import numpy as np

from ndcgspec.analysis.comparison import compare
from ndcgspec.analysis.pair_tests import query_values
from ndcgspec.commands.compare import conventions_of
from ndcgspec.inference.bootstrap import percentile_interval
from ndcgspec.inference.paired import Paired
from ndcgspec.inference.randomization import drawn_signs, sign_flip
from ndcgspec.inference.ttest import paired_t
from ndcgspec.suite.folders import data_root

MEASURES = ["trec_eval@10", "nDCG(gain=exponential)@10", "nDCG(ideal=retrieved)@10"]


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def timed(label: str, work, count: int) -> tuple[list, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = [work(i) for i in range(count)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label}: {wall:.2f} s wall, {cpu:.2f} s CPU ({1e3 * wall / count:.1f} ms a pair)")
    return out, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    try:
        from scipy import stats
    except ImportError:
        print("scipy is not installed (ndcgspec's extra peers)", file=sys.stderr)
        return 2
    root = data_root()
    folder = None if root is None else root / "dl19-passage"
    if folder is None or not (folder / "official-runs").is_dir():
        print(f"the DL19 runs are absent ({folder})", file=sys.stderr)
        return 2
    runs = sorted(str(p) for p in (folder / "official-runs").glob("input.*.gz"))
    comparison = compare(
        str(folder / "qrels.dl19-passage.txt"), runs, conventions_of(MEASURES, None)
    )
    pairs = [
        Paired.of(query_values(comparison.results[m][a]), query_values(comparison.results[m][b]))
        for m in MEASURES
        for a, b in combinations(comparison.runs, 2)
    ]
    floats = [np.array([float(d) for d in p.differences]) for p in pairs]
    n = len(pairs)
    print(f"{len(runs)} runs, {len(MEASURES)} conventions: {n} pairs of 43 queries; {load()}")

    print(f"sign-flip test, {args.draws} draws:")
    wall = time.perf_counter()
    signs = drawn_signs(len(pairs[0].differences), args.draws, 0)
    print(f"  ndcgspec's draws, once for every pair: {time.perf_counter() - wall:.2f} s wall")
    ours, ours_wall = timed(
        "ndcgspec (exact)",
        lambda i: float(sign_flip(pairs[i].differences, draws=args.draws, signs=signs).p),
        n,
    )
    theirs, theirs_wall = timed(
        "scipy permutation_test",
        lambda i: (
            stats.permutation_test(
                (floats[i],),
                lambda x, axis: np.abs(np.mean(x, axis=axis)),
                permutation_type="samples",
                n_resamples=args.draws,
                alternative="greater",
                rng=np.random.default_rng(0),
            ).pvalue
        ),
        n,
    )
    report(ours, theirs, ours_wall, theirs_wall)

    print("paired t-test:")
    ours, ours_wall = timed(
        "ndcgspec (exact, mpmath)", lambda i: float(paired_t(pairs[i].differences).p), n
    )
    theirs, theirs_wall = timed(
        "scipy ttest_rel", lambda i: stats.ttest_1samp(floats[i], 0).pvalue, n
    )
    report(ours, theirs, ours_wall, theirs_wall)

    print(f"percentile bootstrap, {args.resamples} resamples:")
    level = Fraction(95, 100)
    ours, ours_wall = timed(
        "ndcgspec (exact)",
        lambda i: float(percentile_interval(pairs[i].differences, level, args.resamples, 0).low),
        n,
    )
    theirs, theirs_wall = timed(
        "scipy bootstrap",
        lambda i: (
            stats.bootstrap(
                (floats[i],),
                np.mean,
                confidence_level=0.95,
                n_resamples=args.resamples,
                method="percentile",
                rng=np.random.default_rng(0),
            ).confidence_interval.low
        ),
        n,
    )
    report(ours, theirs, ours_wall, theirs_wall)
    return 0


def report(ours: list[float], theirs: list[float], ours_wall: float, theirs_wall: float) -> None:
    worst = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(ours, theirs, strict=True))
    print(
        f"  ratio ndcgspec/scipy {ours_wall / theirs_wall:.2f}; largest relative difference "
        f"{worst:.1e}; {load()}"
    )


if __name__ == "__main__":
    sys.exit(main())
