"""Benchmark of the trec_eval drop-in against ``ndcgspec score`` and trec_eval C on the DL19
runs of the shared data.

For each run (the 7 official DL19 passage runs and the BM25 baseline), three processes run
alternately, each computing nDCG@10 on the same qrels and run: ``ndcgspec trec_eval -m
ndcg_cut.10``, ``ndcgspec score -m ndcg_cut.10`` and trec_eval 10.0 built with its own
``make`` from the shared source (``benchmarks/score.py`` `built_trec_eval`; it reads no gzip,
so it is given the uncompressed files). Medians of wall and CPU time and the ratios
drop-in/score and drop-in/trec_eval are printed with the load average, and the drop-in's
output is compared byte for byte with trec_eval's. Last, every run in one drop-in call (the
qrels read once) against trec_eval's loop of one call per run, output compared too.

    python benchmarks/dropin.py --rounds 5

Targets (issue "Fast where users feel it"): the drop-in no slower than ``score`` with the same
measures; the batch of many runs within 3 × trec_eval's loop.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from score import built_trec_eval, load, plain_text, ratio, timed

from ndcgspec.suite.folders import UNKNOWN, data_root

MEASURE = "ndcg_cut.10"


def commands(qrels: Path, run: Path, trec_eval: Path) -> dict[str, list[str]]:
    """The three processes timed on one run."""
    ours = shutil.which("ndcgspec") or "ndcgspec"
    folder = trec_eval.parent
    return {
        "drop-in": [ours, "trec_eval", "-m", MEASURE, str(qrels), str(run)],
        "score": [ours, "score", "-m", MEASURE, str(qrels), str(run)],
        "trec_eval": [
            str(trec_eval),
            "-m",
            MEASURE,
            str(plain_text(qrels, folder)),
            str(plain_text(run, folder)),
        ],
    }


def same_output(line: dict[str, list[str]]) -> bool:
    """Whether the drop-in prints exactly what trec_eval prints."""
    printed = [
        subprocess.run(line[t], capture_output=True, check=True).stdout
        for t in ("drop-in", "trec_eval")
    ]
    return printed[0] == printed[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    data = data_root()
    dl19 = None if data is None else data / "dl19-passage"
    if dl19 is None or not dl19.is_dir():
        print(f"DL19 data absent: {UNKNOWN if dl19 is None else dl19}")
        return 1
    folder = Path(tempfile.mkdtemp(prefix="ndcgspec-dropin-"))
    trec_eval = built_trec_eval(folder)
    if trec_eval is None:
        return 1
    qrels = dl19 / "qrels.dl19-passage.txt"
    runs = sorted((dl19 / "official-runs").glob("*.gz")) + sorted(dl19.glob("run.*.gz"))
    print(f"{load()} before")
    totals = {"drop-in": 0.0, "score": 0.0, "trec_eval": 0.0}
    loop_wall = 0.0
    identical = True
    for run in runs:
        line = commands(qrels, run, trec_eval)
        wall = {t: [] for t in line}
        cpu = {t: [] for t in line}
        for _ in range(args.rounds):
            for tool, command in line.items():
                elapsed, seconds, _ = timed(command)
                wall[tool].append(elapsed)
                cpu[tool].append(seconds)
        medians = {t: statistics.median(cpu[t]) for t in line}
        for tool in line:
            totals[tool] += medians[tool]
        loop_wall += statistics.median(wall["trec_eval"])
        same = same_output(line)
        identical &= same
        shown = "  ".join(
            f"{t} {statistics.median(wall[t]):.2f} s (CPU {medians[t]:.2f} s)" for t in line
        )
        print(f"{run.name:48} {shown}  {'identical' if same else 'OUTPUT DIFFERS'}")
    print(f"\nCPU summed over the {len(runs)} runs' medians: ", end="")
    print("  ".join(f"{t} {v:.2f} s" for t, v in totals.items()))
    print(
        f"ratio drop-in/score {ratio(totals['drop-in'], totals['score'])} CPU, "
        f"drop-in/trec_eval {ratio(totals['drop-in'], totals['trec_eval'])} CPU; {load()} after"
    )
    batch = [shutil.which("ndcgspec") or "ndcgspec", "trec_eval", "-m", MEASURE, str(qrels)]
    batch += map(str, runs)
    seconds = statistics.median(timed(batch)[0] for _ in range(args.rounds))
    looped = b"".join(
        subprocess.run(commands(qrels, r, trec_eval)["trec_eval"], capture_output=True).stdout
        for r in runs
    )
    same = subprocess.run(batch, capture_output=True, check=True).stdout == looped
    identical &= same
    print(
        f"the {len(runs)} runs in one drop-in call: {seconds:.2f} s wall; trec_eval's loop "
        f"{loop_wall:.2f} s: ratio {ratio(seconds, loop_wall)}; "
        f"{'identical' if same else 'OUTPUT DIFFERS'}; {load()}"
    )
    shutil.rmtree(folder)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
