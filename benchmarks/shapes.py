"""Benchmark of ``ndcgspec score`` against trec_eval C on workloads of the same size and
different shapes: judged documents per query, the share of judgments the run does not
retrieve, the decimals of the scores (so how many ties) and the length of the ids.

Each shape is ``benchmarks/score.py``'s seeded synthetic workload (N queries × 1,000 retrieved
documents, grades 0–3) with one axis changed from the shape of issue 41: short ids
(``D46_65888``), 2-decimal scores, 100 judged per query of which 20 are not retrieved. For each
shape ``ndcgspec score -m nDCG -m nDCG@10`` and trec_eval 10.0 (``-c -m ndcg -m
ndcg_cut.10``, built with its own ``make`` from the shared source) run alternately
``--rounds`` times; the medians, their ratio (wall and CPU) and the load average before and
after are printed, then a table of every shape with the worst ratio named. With ``--digits``
every output value of the fast engine is compared with the plain reference's on a 20-query
workload of each shape.

    python benchmarks/shapes.py                      # 5,000 queries per shape: many minutes
    python benchmarks/shapes.py --queries 500        # quick
    python benchmarks/shapes.py --queries 3 --rounds 1 --no-peer --shapes base   # a smoke test

Target (issue 41): on every shape at most 0.4 × trec_eval C, output digits unchanged.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from score import built_trec_eval, compile_package, digits_identical, load, measure, write_workload


@dataclass(frozen=True)
class Shape:
    """One workload's shape: what `write_workload` is given beside the size."""

    ids: str = "short"
    judged: int = 100
    unretrieved: float = 0.2
    decimals: int = 2

    def files(self, folder: Path, queries: int) -> tuple[Path, Path]:
        return write_workload(
            folder,
            queries,
            1000,
            self.ids,
            judged=self.judged,
            decimals=self.decimals,
            unretrieved=self.unretrieved,
        )


# Issue 41's workload, then each axis moved on its own.
SHAPES: dict[str, Shape] = {
    "base": Shape(),
    "judged-10": Shape(judged=10),
    "judged-1000": Shape(judged=1000),
    "unretrieved-0": Shape(unretrieved=0.0),
    "unretrieved-0.5": Shape(unretrieved=0.5),
    "decimals-0": Shape(decimals=0),
    "decimals-6": Shape(decimals=6),
    "ids-integer": Shape(ids="integer"),
    "ids-url": Shape(ids="url"),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shapes", nargs="*", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--digits", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "ndcgspec-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, {load()}")
    compile_package()
    trec_eval = built_trec_eval(args.dir) if args.peer else None
    if args.peer and trec_eval is None:
        print("no trec_eval C to measure against")
        return 1
    rows = []
    for name in args.shapes:
        shape = SHAPES[name]
        qrels, run = shape.files(args.dir, args.queries)
        figure = measure(f"shape {name}: {shape}", qrels, run, args.rounds, set(), trec_eval)
        rows.append((name, figure, load()))
    print(f"\n| shape ({args.queries:,} queries × 1,000) | ndcgspec wall (CPU) | ", end="")
    print("trec_eval C wall (CPU) | ratio wall (CPU) | load after |")
    print("|---|---|---|---|---|")
    worst: tuple[float, str] | None = None
    for name, figure, after in rows:
        ours = figure["ndcgspec"]
        cells = f"{ours['median_s']:.2f} s ({ours['median_cpu_s']:.2f} s)"
        peer = figure.get("trec_eval")
        if peer is None:
            print(f"| {name} | {cells} | — | — | {after} |")
            continue
        wall = ours["median_s"] / peer["median_s"]
        cpu = ours["median_cpu_s"] / max(peer["median_cpu_s"], 0.01)
        print(
            f"| {name} | {cells} | {peer['median_s']:.2f} s ({peer['median_cpu_s']:.2f} s) | "
            f"{wall:.2f} ({cpu:.2f}) | {after} |"
        )
        worst = max(worst or (wall, name), (wall, name))
    if worst is not None:
        print(f"worst shape: {worst[1]}, {worst[0]:.2f} × trec_eval C by wall time (target 0.4)")
    if args.digits:
        for name in args.shapes:
            digits_identical(*SHAPES[name].files(args.dir, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
