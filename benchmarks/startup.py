"""Start-up of the installed ``ndcgspec`` against ``python -c pass`` of the same interpreter,
in one run (issue 41: "`ndcgspec --help` and `explain` start within 3× `python -c pass`").

Each command is run once first, with bytecode written (as pip compiles a wheel's modules when
it installs it; PYTHONDONTWRITEBYTECODE is dropped for the whole run), then ``--rounds``
times, each call beside a call of ``python -c pass``: a ratio is taken pair by pair, so that
the machine's load drifting between rounds moves both sides, and the median is printed. The
interpreter is the one the ``ndcgspec`` script starts (its first line); with an editable
install that interpreter's start runs the install's path finder, which ``python -c pass``
pays too.

    python benchmarks/startup.py --rounds 11
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from score import load

OURS = shutil.which("ndcgspec") or "ndcgspec"
# A stored case's id, which never changes (cases/README.md).
CASE_ID = "gain.exponential/graded-six"


def interpreter(script: str) -> str:
    """The Python the ``ndcgspec`` script runs under (its ``#!`` line), else this one."""
    try:
        first = Path(script).read_text(encoding="utf-8").splitlines()[0]
    except (OSError, UnicodeDecodeError, IndexError):
        return sys.executable
    return first[2:].strip() if first.startswith("#!") else sys.executable


def commands(folder: Path) -> dict[str, list[str]]:
    """Each command timed, by the name ``--commands`` takes; a one-line qrels and run are
    written into `folder` for ``score``."""
    qrels, run = folder / "one-line-qrels", folder / "one-line-run"
    qrels.write_text("q 0 d 1\n")
    run.write_text("q Q0 d 1 1 t\n")
    return {
        "help": [OURS, "--help"],
        "explain-help": [OURS, "explain", "--help"],
        "explain": [OURS, "explain", "ndcg_cut.10"],
        "which-help": [OURS, "which", "--help"],
        "cases-show": [OURS, "cases", "show", CASE_ID],
        "score": [OURS, "score", str(qrels), str(run), "-m", "ndcg_cut.10"],
    }


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, to the microsecond: the kernel's own accounting of
    the child, where GNU time prints hundredths) of one call, its output discarded."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        error = subprocess.run(command, capture_output=True, text=True).stderr
        raise RuntimeError(f"{' '.join(command[:3])} failed: {error[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def paired(command: list[str], baseline: list[str], rounds: int) -> list[tuple[float, ...]]:
    """`rounds` pairs (wall, CPU of `command`, wall, CPU of `baseline`), each call beside the
    other."""
    pairs = []
    for _ in range(rounds):
        base_wall, base_cpu = timed(baseline)
        wall, cpu = timed(command)
        pairs.append((wall, cpu, base_wall, base_cpu))
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument(
        "--commands",
        nargs="+",
        metavar="NAME",
        help="only these of help, explain-help, explain, which-help, cases-show and score",
    )
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    python = interpreter(OURS)
    baseline = [python, "-c", "pass"]
    with tempfile.TemporaryDirectory() as folder:
        every = commands(Path(folder))
        names = args.commands or list(every)
        unknown = set(names) - set(every)
        if unknown:
            parser.error(f"unknown command names: {', '.join(sorted(unknown))}")
        chosen = {name: every[name] for name in names}
        for command in [baseline, *chosen.values()]:
            # The warm-up, whose bytecode the timed calls read.
            timed(command)
        print(
            f"== start-up against `python -c pass` ({python}), {args.rounds} rounds, each call "
            f"beside one of python; {load()} before"
        )
        print(f"{'command':56} {'wall s':>7} {'CPU s':>6} {'× wall':>7} {'× CPU':>6}")
        passes: list[tuple[float, float]] = []
        for command in chosen.values():
            pairs = paired(command, baseline, args.rounds)
            passes += [(p[2], p[3]) for p in pairs]
            shown = " ".join(c if c != OURS else "ndcgspec" for c in command)
            shown = shown.replace(folder + "/", "")
            print(
                f"{shown:56} {statistics.median(p[0] for p in pairs):7.3f} "
                f"{statistics.median(p[1] for p in pairs):6.3f} "
                f"{statistics.median(p[0] / p[2] for p in pairs):7.2f} "
                f"{statistics.median(p[1] / p[3] for p in pairs):6.2f}"
            )
        print(
            f"{'python -c pass':56} {statistics.median(p[0] for p in passes):7.3f} "
            f"{statistics.median(p[1] for p in passes):6.3f}"
        )
    print(
        "× is the median, over the rounds, of a call's time over that of the `python -c pass` "
        f"beside it; {load()} after"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
