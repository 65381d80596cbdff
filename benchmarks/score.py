"""Benchmark of ``ndcgspec score`` end to end against trec_eval C, pytrec_eval and ranx.

A seeded synthetic TREC workload is written to files (N queries × 1,000 documents, ~100 judged
per query of which some are not retrieved, grades 0–3, tied scores) with document ids of four
kinds: integers (``4711``), MS MARCO v2-style (``msmarco_passage_00_12345678``), URL-style
(``http://example.org/wiki/Page_00123456#p3``) and short (``D46_65888``, with 2-decimal scores,
so that a ranking holds many ties). For each workload the tools run as separate
processes, alternating, each reading the same files with its own loader and computing nDCG and
nDCG@10: ``ndcgspec score``, trec_eval 10.0 (``-c -m ndcg -m ndcg_cut.10``, built with its own
``make`` from ``../shared/tools/trec_eval-src.tar.gz`` into the benchmark folder), pytrec_eval
and ranx. Medians, the ratios ours/peer, time per run line, CPU time and peak RSS over the run
file are printed with the load average beside them (other work on the machine slows every tool;
CPU time is the figure that load disturbs least); then the time per line of each size over that
at 5,000 queries, and the real DL19 runs. Last, every output digit of the fast engine is
compared with the plain reference's on the 500-query workload and the DL19 runs.

    pip install -e '.[bench]'
    python benchmarks/score.py                       # 500 and 5,000 queries: minutes
    python benchmarks/score.py --large               # and 50,000 queries (about an hour)
    python benchmarks/score.py --sizes 5000 --ids msmarco --rounds 5

Targets (issue "Exact and faster than the C binary"): 5,000 × 1,000 with realistic ids end to
end at most 0.5 × trec_eval C and 0.5 × pytrec_eval; peak RSS at most 1.0 × the run file; time
per line at 50,000 queries at most 1.1 × that at 5,000; output digits identical.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ndcgspec.suite.folders import UNKNOWN, data_root, trec_eval_source

GRADES, GRADE_SHARES = np.array([0, 1, 2, 3]), [0.55, 0.17, 0.20, 0.08]
TREC_EVAL_MEASURES = ["-c", "-m", "ndcg", "-m", "ndcg_cut.10"]

PYTREC = """
import sys, gzip, pytrec_eval
def opened(p): return gzip.open(p, "rt") if p.endswith(".gz") else open(p)
with opened(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with opened(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
out = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut_10"}).evaluate(run)
print(len(out))
"""
RANX = """
import sys
from ranx import Qrels, Run, evaluate
kind = lambda p: "gz" if p.endswith(".gz") else "trec"
q = Qrels.from_file(sys.argv[1], kind=kind(sys.argv[1]))
r = Run.from_file(sys.argv[2], kind=kind(sys.argv[2]))
print(evaluate(q, r, ["ndcg", "ndcg@10"]))
"""

# Document id of each drawn integer, by kind of id.
ID_KINDS: dict[str, Callable[[int], str]] = {
    "integer": str,
    "msmarco": lambda d: f"msmarco_passage_{d % 100:02d}_{d:08d}",
    "url": lambda d: f"http://example.org/wiki/Page_{d:08d}#p{d % 7}",
    "short": lambda d: f"D{d % 100}_{d // 100}",
}
# Decimal places of the scores, by kind of id: the short ids come with 2-decimal scores, so a
# ranking of 1,000 documents holds many ties.
SCORE_DECIMALS = {"short": 2}


def write_workload(
    folder: Path,
    queries: int,
    documents: int,
    ids: str,
    judged: int = 100,
    seed: int = 0,
    decimals: int | None = None,
    unretrieved: float = 0.2,
) -> tuple[Path, Path]:
    """Qrels and run files: per query `documents` retrieved with `decimals`-decimal scores (by
    default 3, 2 with short ids; so ties occur), `judged` judgments of which a share
    `unretrieved` are of documents the run does not retrieve."""
    rng = np.random.default_rng(seed)
    name = ID_KINDS[ids]
    decimals = SCORE_DECIMALS.get(ids, 3) if decimals is None else decimals
    # The workloads of the default shape keep the names earlier runs wrote them under.
    shape = f"-j{judged}-d{decimals}-u{unretrieved:g}"
    if (judged, decimals, unretrieved) == (100, SCORE_DECIMALS.get(ids, 3), 0.2):
        shape = ""
    qrels_path = folder / f"qrels-{queries}x{documents}-{ids}{shape}.txt"
    run_path = folder / f"run-{queries}x{documents}-{ids}{shape}.txt"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    retrieved_judged = round(judged * (1 - unretrieved))
    weights = 1 / np.sqrt(np.arange(1, documents + 1))
    weights /= weights.sum()
    # Written under temporary names, so that an interrupted run leaves no partial workload.
    partial_run, partial_qrels = (
        run_path.with_suffix(".partial"),
        qrels_path.with_suffix(".partial"),
    )
    with partial_run.open("w") as run, partial_qrels.open("w") as qrels:
        for q in range(queries):
            qid = str(100000 + q)
            docs = rng.choice(8_800_000, documents + judged - retrieved_judged, replace=False)
            scores = np.sort(np.round(rng.normal(10, 2, documents), decimals))[::-1]
            picked = rng.choice(
                documents, min(retrieved_judged, documents), replace=False, p=weights
            )
            judged_docs = np.concatenate([docs[picked], docs[documents:]])
            labels = rng.choice(GRADES, len(judged_docs), p=GRADE_SHARES)
            pairs = zip(docs[:documents].tolist(), scores.tolist(), strict=True)
            run.write(
                "".join(
                    f"{qid} Q0 {name(d)} {r} {s:.{decimals}f} synth\n"
                    for r, (d, s) in enumerate(pairs, 1)
                )
            )
            qrels.write(
                "".join(
                    f"{qid} 0 {name(d)} {g}\n"
                    for d, g in zip(judged_docs.tolist(), labels.tolist(), strict=True)
                )
            )
    partial_qrels.replace(qrels_path)
    partial_run.replace(run_path)
    return qrels_path, run_path


def built_trec_eval(folder: Path) -> Path | None:
    """trec_eval 10.0 built by its own ``make`` from the shared source into `folder` (kept
    there for later runs); None, with the reason printed, when it cannot be built."""
    binary = folder / "trec_eval-build" / "trec_eval"
    if binary.is_file():
        return binary
    compiler = shutil.which("cc") or shutil.which("gcc")
    source = trec_eval_source()
    if source is None:
        print(f"trec_eval not built: {UNKNOWN}")
        return None
    if not source.is_file() or compiler is None or shutil.which("make") is None:
        print(f"trec_eval not built: needs {source}, a C compiler and make")
        return None
    build = Path(tempfile.mkdtemp(dir=folder))
    with tarfile.open(source) as archive:
        archive.extractall(build, filter="data")
    (source,) = [p for p in build.iterdir() if (p / "Makefile").is_file()]
    made = subprocess.run(["make", f"CC={compiler}"], cwd=source, capture_output=True, text=True)
    if made.returncode != 0:
        print(f"trec_eval not built: make failed: {made.stderr[-500:]}")
        return None
    source.rename(binary.parent)
    shutil.rmtree(build)
    return binary


def plain_text(path: Path, folder: Path) -> Path:
    """`path` uncompressed into `folder` (trec_eval reads no gzip)."""
    if path.suffix != ".gz":
        return path
    target = folder / path.stem
    if not target.exists():
        with gzip.open(path, "rb") as packed, open(target, "wb") as out:
            shutil.copyfileobj(packed, out)
    return target


def timed(command: list[str]) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system) and peak RSS (KiB) of one process, its output
    discarded."""
    # GNU time reports the peak of the measured process alone, not of this (forked) one.
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", "-o", report.name, *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{command[:3]} failed: {done.stderr.decode()[-500:]}")
        user, system, rss = report.read().split()[-3:]
        return elapsed, float(user) + float(system), int(rss)


def compile_package() -> None:
    """Byte-compile the installed ndcgspec, as pip does when it installs a wheel, so that a
    start-up is timed as users see it, also where PYTHONDONTWRITEBYTECODE kept the bytecode
    of an editable install from being written."""
    import compileall
    from importlib import import_module

    # An editable install maps each subpackage to its own folder.
    for name in ("", ".engine", ".harness", ".reference", ".spec"):
        for folder in import_module("ndcgspec" + name).__path__:
            compileall.compile_dir(folder, quiet=1)


def run_size(run: Path) -> tuple[int, int]:
    """Lines and uncompressed bytes of a run file."""
    lines = size = 0
    with (gzip.open if run.suffix == ".gz" else open)(run, "rb") as stream:
        while block := stream.read(1 << 24):
            lines += block.count(b"\n")
            size += len(block)
    return lines, size


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def tools(qrels: Path, run: Path, peers: set[str], trec_eval: Path | None) -> dict[str, list[str]]:
    ours = shutil.which("ndcgspec") or "ndcgspec"
    commands = {
        "ndcgspec": [ours, "score", str(qrels), str(run), "-m", "nDCG", "-m", "nDCG@10"],
    }
    if trec_eval is not None:
        folder = trec_eval.parent
        plain_qrels, plain_run = plain_text(qrels, folder), plain_text(run, folder)
        commands["trec_eval"] = [str(trec_eval), *TREC_EVAL_MEASURES, str(plain_qrels)]
        commands["trec_eval"].append(str(plain_run))
    if "pytrec_eval" in peers:
        commands["pytrec_eval"] = [sys.executable, "-c", PYTREC, str(qrels), str(run)]
    if "ranx" in peers:
        commands["ranx"] = [sys.executable, "-c", RANX, str(qrels), str(run)]
    return commands


def measure(
    name: str, qrels: Path, run: Path, rounds: int, peers: set[str], trec_eval: Path | None
) -> dict[str, Any]:
    """Run the tools alternately `rounds` times; print and return medians and peak RSS."""
    lines, size = run_size(run)
    commands = tools(qrels, run, peers, trec_eval)
    wall: dict[str, list[float]] = {t: [] for t in commands}
    cpu: dict[str, list[float]] = {t: [] for t in commands}
    memory: dict[str, int] = dict.fromkeys(commands, 0)
    before = load()
    for _ in range(rounds):
        for tool, command in commands.items():
            elapsed, seconds, rss = timed(command)
            wall[tool].append(elapsed)
            cpu[tool].append(seconds)
            memory[tool] = max(memory[tool], rss)
    print(f"\n== {name}: run {size / 2**20:.1f} MiB uncompressed, {lines:,} lines, {rounds} rounds")
    print(f"   {before} before, {load()} after")
    result: dict[str, Any] = {"lines": lines, "bytes": size, "rounds": rounds}
    for tool in commands:
        median, median_cpu = statistics.median(wall[tool]), statistics.median(cpu[tool])
        mib = memory[tool] / 1024
        result[tool] = {"median_s": median, "median_cpu_s": median_cpu, "peak_rss_mib": mib}
        print(
            f"{tool:12} median {median:7.2f} s (CPU {median_cpu:6.2f} s)  "
            f"{median / lines * 1e6:7.3f} µs/line  peak RSS {mib:6.0f} MiB "
            f"= {memory[tool] * 1024 / size:.2f} × run"
        )
    ours = result["ndcgspec"]
    for peer in [t for t in commands if t != "ndcgspec"]:
        wall, cpu = (ratio(ours[key], result[peer][key]) for key in ("median_s", "median_cpu_s"))
        print(f"ratio ndcgspec/{peer}: {wall} wall, {cpu} CPU")
    return result


def ratio(ours: float, theirs: float) -> str:
    """ours / theirs, or why not (a peer's CPU time below the clock's 0.01 s resolution)."""
    return f"{ours / theirs:.2f}" if theirs else "n/a (under 0.01 s)"


def digits_identical(qrels: Path, run: Path) -> None:
    """Print how many output values of the fast engine equal the plain reference's, digit for
    digit."""
    from ndcgspec.engine.scoring import score_files, score_files_plain
    from ndcgspec.measures.grammar import parse_measure

    configs = [parse_measure("nDCG"), parse_measure("nDCG@10")]
    fast, plain = score_files(configs, qrels, run), score_files_plain(configs, qrels, run)
    values = [(a, b) for f, p in zip(fast, plain, strict=True) for a, b in _pairs(f, p)]
    same = sum(a == b for a, b in values)
    print(f"{run.name}: {same} of {len(values)} output values identical to the plain reference's")


def _pairs(fast: dict, plain: dict) -> Iterator[tuple[str | None, str | None]]:
    yield fast["aggregate"], plain["aggregate"]
    for qid, values in plain["per_query"].items():
        for key, value in values.items():
            yield fast["per_query"][qid][key], value


def growth(figures: dict[str, dict], ids: str, sizes: list[int]) -> None:
    """Time per line (wall and CPU) of each size over that at 5,000 queries (target at 50,000:
    at most 1.1)."""
    base = figures.get(f"5000x1000-{ids}")
    if not base:
        return
    per_line = {
        key: (base["ndcgspec"][key] / base["lines"]) for key in ("median_s", "median_cpu_s")
    }
    for size in sizes:
        figure = figures.get(f"{size}x1000-{ids}")
        if figure and size != 5000:
            wall, cpu = (
                figure["ndcgspec"][key] / figure["lines"] / per_line[key] for key in per_line
            )
            print(
                f"growth ({ids} ids): time per line at {size:,} / at 5,000 queries: "
                f"{wall:.2f} wall, {cpu:.2f} CPU"
            )


def peers_of(size: int, pytrec_up_to: int, ranx_up_to: int) -> set[str]:
    """The Python peers measured at `size` queries."""
    return {p for p, most in (("pytrec_eval", pytrec_up_to), ("ranx", ranx_up_to)) if size <= most}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[500, 5000])
    parser.add_argument("--large", action="store_true", help="add 50,000 queries")
    parser.add_argument("--ids", nargs="*", choices=list(ID_KINDS), default=list(ID_KINDS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--peers-up-to", type=int, default=50000, help="largest size with pytrec_eval"
    )
    # ranx reads TREC files in pure Python: minutes at 5,000 queries.
    parser.add_argument("--ranx-up-to", type=int, default=500, help="largest size with ranx")
    parser.add_argument("--big-query", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--dl19", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--digits", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "ndcgspec-bench")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    sizes = [*args.sizes, *([50000] if args.large else [])]
    print(f"{os.cpu_count()} CPUs, {load()}")
    compile_package()
    trec_eval = built_trec_eval(args.dir)
    figures: dict[str, dict] = {}
    for ids in args.ids:
        for size in sizes:
            qrels, run = write_workload(args.dir, size, 1000, ids)
            figures[f"{size}x1000-{ids}"] = measure(
                f"{size} queries × 1,000 documents, {ids} ids",
                qrels,
                run,
                args.rounds,
                peers_of(size, args.peers_up_to, args.ranx_up_to),
                trec_eval,
            )
    print()
    for ids in args.ids:
        growth(figures, ids, sizes)
    if args.big_query:
        qrels, run = write_workload(args.dir, 1, 1_000_000, "msmarco", judged=1000)
        figures["1x1000000"] = measure(
            "1 query × 1,000,000 documents", qrels, run, 1, {"pytrec_eval"}, trec_eval
        )
    runs = []
    data = data_root()
    dl19 = None if data is None else data / "dl19-passage"
    if args.dl19 and dl19 is not None and dl19.is_dir():
        runs = sorted((dl19 / "official-runs").glob("*.gz")) + sorted(dl19.glob("run.*.gz"))
        for run in runs:
            qrels = dl19 / "qrels.dl19-passage.txt"
            figures[run.name] = measure(
                f"DL19 {run.name}", qrels, run, args.rounds, {"pytrec_eval", "ranx"}, trec_eval
            )
    elif args.dl19:
        print(f"\nDL19 data skipped: {UNKNOWN if dl19 is None else f'absent at {dl19}'}")
    if args.digits:
        print()
        if 500 in sizes:
            for ids in args.ids:
                digits_identical(*write_workload(args.dir, 500, 1000, ids))
        for run in runs:
            digits_identical(dl19 / "qrels.dl19-passage.txt", run)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
