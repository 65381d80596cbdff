"""Benchmark of where users wait, in one run with the load average beside every figure: the
trec_eval drop-in and ``score`` against trec_eval C on the DL19 runs, many runs in one call
against trec_eval's loop of one call per run, start-up, the large workload with short ids,
and ``identify``.

- **DL19 runs.** For each run of the shared data (the 7 official DL19 passage runs and the
  BM25 baseline) three processes run alternately, each computing nDCG@10 on the same files:
  ``ndcgspec trec_eval -m ndcg_cut.10``, ``ndcgspec score -m ndcg_cut.10`` and trec_eval 10.0
  built with its own ``make`` from the shared source (``benchmarks/score.py``
  `built_trec_eval`; it reads no gzip, so it is given the uncompressed files). The drop-in's
  output is compared byte for byte with trec_eval's.
- **Many runs.** The runs listed ``--repeat`` times (12: 96 runs, as many as TREC DL 2019's
  official runs) in one call of each of ``ndcgspec trec_eval`` and ``ndcgspec score``, against
  trec_eval's loop of one call per run, each timed whole; the drop-in's output is compared
  with the loop's, ``score``'s with one ``score`` call per run.
- **Start-up.** ``ndcgspec score -m ndcg_cut.10`` on the DL19 BM25 run and on a one-line qrels
  and run, ``--rounds`` × 3 alternating calls with trec_eval's.
- **Short ids.** ``benchmarks/score.py``'s 5,000 × 1,000 workload with short ids and
  2-decimal scores (many ties), nDCG and nDCG@10, against trec_eval C.
- **identify.** ``ndcgspec identify NAME`` of each in-process adapter named by
  ``--identify`` that is installed, timed once.

    python benchmarks/waits.py --rounds 5

Targets (issue "Fast where users feel it"): the drop-in no slower than ``score``; the batch
of many runs within 3 × trec_eval's loop; a DL19 run scored in at most 0.15 s wall on an
idle machine; the short-id workload at most 0.4 × trec_eval C; identify at most 10 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from score import (
    built_trec_eval,
    compile_package,
    load,
    measure,
    plain_text,
    ratio,
    timed,
    write_workload,
)

from ndcgspec.suite.folders import UNKNOWN, data_root

MEASURE = "ndcg_cut.10"
OURS = shutil.which("ndcgspec") or "ndcgspec"
# In-process adapters identify is timed on, each with the module it needs.
IDENTIFIED = {
    "sklearn": "sklearn",
    "lightgbm": "lightgbm",
    "torchmetrics": "torchmetrics",
    "trectools": "trectools",
    "ir_measures-pytrec_eval": "ir_measures",
    "ranx": "ranx",
}


def commands(qrels: Path, run: Path, trec_eval: Path) -> dict[str, list[str]]:
    """The three processes timed on one run."""
    folder = trec_eval.parent
    return {
        "drop-in": [OURS, "trec_eval", "-m", MEASURE, str(qrels), str(run)],
        "score": [OURS, "score", "-m", MEASURE, str(qrels), str(run)],
        "trec_eval": [
            str(trec_eval),
            "-m",
            MEASURE,
            str(plain_text(qrels, folder)),
            str(plain_text(run, folder)),
        ],
    }


def printed(command: list[str]) -> bytes:
    """What `command` writes on stdout."""
    return subprocess.run(command, capture_output=True, check=True).stdout


def alternating(line: dict[str, list[str]], rounds: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each command, run alternately `rounds` times."""
    wall: dict[str, list[float]] = {t: [] for t in line}
    cpu: dict[str, list[float]] = {t: [] for t in line}
    for _ in range(rounds):
        for tool, command in line.items():
            elapsed, seconds, _ = timed(command)
            wall[tool].append(elapsed)
            cpu[tool].append(seconds)
    return {t: (statistics.median(wall[t]), statistics.median(cpu[t])) for t in line}


def shown(medians: dict[str, tuple[float, float]]) -> str:
    return "  ".join(f"{t} {w:.3f} s (CPU {c:.2f} s)" for t, (w, c) in medians.items())


def dl19_runs(qrels: Path, runs: list[Path], trec_eval: Path, rounds: int) -> bool:
    """The drop-in, ``score`` and trec_eval C on each run; whether every output was the
    same as trec_eval's."""
    print(f"\n== DL19 runs, {MEASURE}, {rounds} rounds; {load()} before")
    totals = dict.fromkeys(("drop-in", "score", "trec_eval"), 0.0)
    identical = True
    for run in runs:
        line = commands(qrels, run, trec_eval)
        medians = alternating(line, rounds)
        for tool, (wall, _) in medians.items():
            totals[tool] += wall
        same = printed(line["drop-in"]) == printed(line["trec_eval"])
        identical &= same
        print(f"{run.name:48} {shown(medians)}  {'identical' if same else 'OUTPUT DIFFERS'}")
    print(
        "wall summed over the runs' medians: "
        + "  ".join(f"{t} {v:.2f} s" for t, v in totals.items())
        + f"\nratio drop-in/score {ratio(totals['drop-in'], totals['score'])}, "
        f"drop-in/trec_eval {ratio(totals['drop-in'], totals['trec_eval'])}; {load()} after"
    )
    return identical


def looped(commands_: list[list[str]]) -> tuple[float, bytes]:
    """Wall seconds of running `commands_` one after another, and their output joined."""
    start = time.perf_counter()
    out = b"".join(printed(c) for c in commands_)
    return time.perf_counter() - start, out


def many_runs(qrels: Path, runs: list[Path], trec_eval: Path, rounds: int, repeat: int) -> bool:
    """Every run, `repeat` times, in one call of the drop-in and of ``score`` against
    trec_eval's loop; whether the outputs were identical."""
    listed = [r for _ in range(repeat) for r in runs]
    print(f"\n== {len(listed)} runs in one call, {MEASURE}, {rounds} rounds; {load()} before")
    loop = [commands(qrels, r, trec_eval)["trec_eval"] for r in listed]
    batches = {
        "drop-in": [OURS, "trec_eval", "-m", MEASURE, str(qrels), *map(str, listed)],
        "score": [OURS, "score", "-m", MEASURE, str(qrels), *map(str, listed)],
    }
    times: dict[str, list[float]] = {"drop-in": [], "score": [], "trec_eval loop": []}
    for _ in range(rounds):
        for tool, command in batches.items():
            times[tool].append(timed(command)[0])
        times["trec_eval loop"].append(looped(loop)[0])
    medians = {t: statistics.median(v) for t, v in times.items()}
    loop_out = looped(loop)[1]
    score_loop = looped([commands(qrels, r, trec_eval)["score"] for r in runs])[1] * repeat
    same = {
        "drop-in": printed(batches["drop-in"]) == loop_out,
        "score": printed(batches["score"]) == score_loop,
    }
    base = medians["trec_eval loop"]
    for tool in batches:
        print(
            f"{tool:8} one call {medians[tool]:.2f} s wall; trec_eval's loop {base:.2f} s: "
            f"ratio {ratio(medians[tool], base)}; "
            + ("identical" if same[tool] else "OUTPUT DIFFERS")
            + (" to trec_eval's" if tool == "drop-in" else " to one score call per run")
        )
    print(f"   {load()} after")
    return all(same.values())


def start_up(qrels: Path, run: Path, trec_eval: Path, rounds: int, folder: Path) -> None:
    """``score`` on a DL19 run and on one line, against trec_eval on the same."""
    tiny_qrels, tiny_run = folder / "tiny-qrels", folder / "tiny-run"
    tiny_qrels.write_text("q 0 d 1\n")
    tiny_run.write_text("q Q0 d 1 1 t\n")
    print(f"\n== start-up, {MEASURE}, {rounds * 3} rounds; {load()} before")
    for name, files in ((run.name, (qrels, run)), ("one line", (tiny_qrels, tiny_run))):
        line = commands(*files, trec_eval)
        medians = alternating({t: line[t] for t in ("score", "trec_eval")}, rounds * 3)
        print(f"{name:48} {shown(medians)}")
    print(f"   {load()} after")


def identify(names: list[str]) -> None:
    """``ndcgspec identify`` of each named in-process adapter, timed once."""
    print(f"\n== identify; {load()} before")
    for name in names:
        if importlib.util.find_spec(IDENTIFIED.get(name, name)) is None:
            print(f"{name:28} not installed")
            continue
        elapsed, seconds, _ = timed([OURS, "identify", name])
        print(f"{name:28} {elapsed:6.1f} s wall (CPU {seconds:6.1f} s, with its workers)")
    print(f"   {load()} after")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=12, help="each run's times in the batch")
    parser.add_argument("--short", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--identify", nargs="*", default=list(IDENTIFIED), metavar="ADAPTER")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "ndcgspec-bench")
    args = parser.parse_args()
    data = data_root()
    dl19 = None if data is None else data / "dl19-passage"
    if dl19 is None or not dl19.is_dir():
        print(f"DL19 data absent: {UNKNOWN if dl19 is None else dl19}")
        return 1
    args.dir.mkdir(parents=True, exist_ok=True)
    compile_package()
    trec_eval = built_trec_eval(args.dir)
    if trec_eval is None:
        return 1
    qrels = dl19 / "qrels.dl19-passage.txt"
    runs = sorted((dl19 / "official-runs").glob("*.gz")) + sorted(dl19.glob("run.*.gz"))
    identical = dl19_runs(qrels, runs, trec_eval, args.rounds)
    identical &= many_runs(qrels, runs, trec_eval, args.rounds, args.repeat)
    start_up(qrels, runs[-1], trec_eval, args.rounds, args.dir)
    if args.short:
        files = write_workload(args.dir, 5000, 1000, "short")
        measure("5,000 × 1,000, short ids", *files, 3, set(), trec_eval)
    identify(args.identify)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
