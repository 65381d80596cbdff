"""Benchmark of ``ndcgspec which``: the whole search space on a 50-query × 1,000-document run.

The workload is `benchmarks/score.py`'s seeded synthetic TREC run (~100 judged documents per
query, a fifth not retrieved, grades 0–3, 3-decimal scores with ties). Printed: the size of
the space, wall and CPU time of the search (`evaluate_space`, what `which` runs before it
prints), and the peer in the same run: the plain reference (`ndcgspec.reference.evaluate`)
timed on a seeded sample of the same configurations, extrapolated to the whole space, with the
ratio. Every sampled configuration's JSON result is compared, all digits, with the sweep's.

    python benchmarks/which.py --queries 50 --documents 1000 --sample 20
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score import ID_KINDS, write_workload

from ndcgspec.analysis.space import DEFAULT_CUTOFFS, search_space
from ndcgspec.commands.which import evaluate_space
from ndcgspec.engine.sweep import Sweep, label_values
from ndcgspec.reference import InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.trec_io import read_qrels, read_run


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=20, help="configurations for the peer")
    parser.add_argument("--ids", choices=sorted(ID_KINDS), default="integer", help="document ids")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = write_workload(Path(folder), args.queries, args.documents, args.ids)
        print(
            f"workload {args.queries} queries x {args.documents} documents, {args.ids} ids; "
            f"{load()}"
        )
        wall, cpu = time.perf_counter(), time.process_time()
        searched = evaluate_space(str(qrels_path), str(run_path))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        configurations = searched.searched
        print(
            f"which: {configurations} configurations, {len(searched.groups)} distinct results, "
            f"{searched.rejected} rejected: {wall:.1f} s wall, {cpu:.1f} s CPU "
            f"({1e3 * wall / configurations:.2f} ms per configuration); {load()}"
        )
        qrels, run = read_qrels(qrels_path), read_run(run_path)
        candidates, _ = search_space(label_values(qrels), DEFAULT_CUTOFFS)
        sample = random.Random(0).sample(candidates, args.sample)
        sweep = Sweep(qrels, run, DEFAULT_CUTOFFS)
        identical = 0
        started = time.perf_counter()
        for candidate in sample:
            config = candidate.measure()
            try:
                plain = evaluate(config, qrels, run).to_json()
            except InputError:
                plain = None
            fast = sweep.evaluate(config)
            identical += plain == (None if isinstance(fast, InputError) else fast.to_json())
        per_config = (time.perf_counter() - started) / args.sample
        print(
            f"plain reference: {1e3 * per_config:.0f} ms per configuration (sample of "
            f"{args.sample}), so {per_config * configurations / 3600:.1f} h for the space; "
            f"which / plain reference = {wall / (per_config * configurations):.4f}; {load()}"
        )
        print(f"digits identical to the plain reference: {identical} of {args.sample}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
