"""Benchmark of ``ndcgspec score --engine spark`` against the single-machine engine (issue
"Past one machine").

A seeded 50,000-query table is written as Parquet (qrels: query_id, doc_id, relevance int64;
run: query_id, doc_id, score float64) and as the same rows in TREC text (each score the exact
decimal of its double), in a temporary folder, never committed. Then, in one run and
alternating, `ndcgspec score` scores the text with the single-machine engine and Spark scores
the Parquet tables in local mode on 1 and on 2 cores (``--master local[1]``, ``local[2]``),
under nDCG and nDCG@10. For each: wall time, and the peak of the summed resident memory of
the whole process tree (the driver's Python, Spark's JVM and its Python workers), sampled
every 0.1 s; then the ratios, the load average beside every figure (the machine may be
shared), and whether the JSON outputs are identical, every digit.

    pip install -e '.[spark]'
    python benchmarks/spark.py --queries 50000 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np

MEASURES = ["-m", "nDCG", "-m", "nDCG@10"]
PAGE = os.sysconf("SC_PAGE_SIZE")


def write_tables(folder: Path, queries: int, documents: int, judged: int, seed: int) -> dict:
    """Parquet tables and TREC files of one table: per query `documents` retrieved with float64
    scores that are multiples of 1/1024 (ties occur; their exact decimals are short), and
    `judged` judgments (grades 0–3) of which a quarter are of documents not retrieved."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    qids = np.repeat(np.array([f"q{100000 + q}" for q in range(queries)]), documents)
    docs = rng.integers(0, 10**9, (queries, documents + judged // 4))
    run = pd.DataFrame(
        {
            "query_id": qids,
            "doc_id": [f"http://example.org/doc/{d}" for d in docs[:, :documents].ravel()],
            "score": rng.integers(0, 1 << 14, queries * documents) / 1024,
        }
    )
    picked = np.concatenate(
        [docs[:, : judged - judged // 4], docs[:, documents : documents + judged // 4]], axis=1
    )
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(run["query_id"].unique(), judged),
            "doc_id": [f"http://example.org/doc/{d}" for d in picked.ravel()],
            "relevance": rng.choice([0, 1, 2, 3], queries * judged, p=[0.55, 0.17, 0.2, 0.08]),
        }
    )
    qrels.to_parquet(folder / "qrels.parquet")
    run.to_parquet(folder / "run.parquet")
    with open(folder / "qrels.txt", "w") as out:
        out.writelines(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False, name=None))
    with open(folder / "run.txt", "w") as out:
        out.writelines(
            f"{q} Q0 {d} 1 {Decimal(s)} bench\n"
            for q, d, s in run.itertuples(index=False, name=None)
        )
    return {"qrels_rows": len(qrels), "run_rows": len(run)}


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and every descendant process, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * PAGE
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


def timed(command: list[str], output: Path) -> tuple[float, int]:
    """Wall time and peak process-tree RSS (bytes) of one command, its stdout to `output`."""
    with output.open("w") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss(process.pid))
            time.sleep(0.1)
        elapsed = time.perf_counter() - start
    if process.returncode != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"{command[:6]} failed: {error[-800:]}")
    return elapsed, peak


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=50_000)
    parser.add_argument("--documents", type=int, default=20, help="run rows per query")
    parser.add_argument("--judged", type=int, default=12, help="qrels rows per query")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    ndcgspec = str(Path(sys.executable).with_name("ndcgspec"))
    with tempfile.TemporaryDirectory(prefix="ndcgspec-spark-bench-") as name:
        folder = Path(name)
        sizes = write_tables(folder, args.queries, args.documents, args.judged, seed=0)
        print(
            f"{args.queries} queries, {sizes['qrels_rows']} qrels rows, "
            f"{sizes['run_rows']} run rows; {load()}"
        )
        text = [str(folder / "qrels.txt"), str(folder / "run.txt")]
        parquet = [str(folder / "qrels.parquet"), str(folder / "run.parquet")]
        tools = {
            "single machine": [ndcgspec, "score", "--format", "json", *MEASURES, *text],
            **{
                f"spark local[{n}]": [
                    ndcgspec,
                    "score",
                    "--format",
                    "json",
                    "--engine",
                    "spark",
                    "--master",
                    f"local[{n}]",
                    *MEASURES,
                    *parquet,
                ]
                for n in (1, 2)
            },
        }
        times: dict[str, list[float]] = {tool: [] for tool in tools}
        peaks: dict[str, int] = dict.fromkeys(tools, 0)
        outputs: dict[str, str] = {}
        for round_ in range(args.rounds):
            for tool, command in tools.items():
                output = folder / f"{tool.replace(' ', '_')}.json"
                elapsed, peak = timed(command, output)
                times[tool].append(elapsed)
                peaks[tool] = max(peaks[tool], peak)
                outputs[tool] = output.read_text()
                print(
                    f"round {round_ + 1} {tool:16} {elapsed:8.1f} s  "
                    f"peak RSS {peak / 2**20:7.0f} MiB  ({load()})"
                )
        base = statistics.median(times["single machine"])
        for tool in tools:
            median = statistics.median(times[tool])
            print(
                f"{tool:16} median {median:8.1f} s  ×{median / base:5.2f} of single machine  "
                f"peak RSS {peaks[tool] / 2**20:7.0f} MiB "
                f"×{peaks[tool] / peaks['single machine']:5.2f}"
            )
        one, two = (statistics.median(times[f"spark local[{n}]"]) for n in (1, 2))
        print(f"spark local[2] / local[1] time: {two / one:.2f}")
        same = len(set(outputs.values())) == 1
        print(f"outputs identical, every digit: {'yes' if same else 'NO'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
